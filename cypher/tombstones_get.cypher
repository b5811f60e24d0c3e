// The tombstones among the fingerprints $fingerprints.
CYPHER replan=skip
MATCH (t:Tombstone)
WHERE t.scope = $scope AND t.fingerprint IN $fingerprints
RETURN t
