// A page of tombstones ordered by fingerprint after $after.
MATCH (t:Tombstone)
WHERE t.scope = $scope AND t.fingerprint > $after
RETURN t
ORDER BY t.scope, t.fingerprint
LIMIT $limit
