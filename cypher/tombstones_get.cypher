// The tombstones among the fingerprints $fingerprints.
CYPHER replan=skip
MATCH (t:Tombstone)
USING INDEX SEEK t:Tombstone(scope, fingerprint)
WHERE t.scope = $scope AND t.fingerprint IN $fingerprints
RETURN t
