// Up to $limit changes of the scope with a sequence number above $after,
// in order, read through the (scope, seq) index of each label.
//
// First the scope counter's lock: every writer of the scope holds it from
// its first statement until its commit has been applied, so holding it here
// means no commit of the scope is half-visible while the feed is read, and
// within a scope numbers are given in commit order: a reader can never see
// seq n+1 of the scope while n is still to come. Writers of other scopes
// are not held up. The SET changes nothing; the statement runs in a write
// transaction for the lock.
OPTIONAL MATCH (lock:Counter {name: $counter})
SET lock.locked = true
WITH count(lock) AS locked
CALL {
  MATCH (n:Entity) WHERE n.scope = $scope AND n.seq > $after
  RETURN n.seq AS seq, 'entity' AS kind, n.id AS id, false AS deleted
  ORDER BY n.seq LIMIT $limit
  UNION ALL
  MATCH (n:Fact) WHERE n.scope = $scope AND n.seq > $after
  RETURN n.seq AS seq, 'fact' AS kind, n.id AS id, false AS deleted
  ORDER BY n.seq LIMIT $limit
  UNION ALL
  MATCH (n:Episode) WHERE n.scope = $scope AND n.seq > $after
  RETURN n.seq AS seq, 'episode' AS kind, n.id AS id, false AS deleted
  ORDER BY n.seq LIMIT $limit
  UNION ALL
  MATCH (n:Tombstone) WHERE n.scope = $scope AND n.seq > $after
  RETURN n.seq AS seq, 'tombstone' AS kind, n.fingerprint AS id, false AS deleted
  ORDER BY n.seq LIMIT $limit
  UNION ALL
  MATCH (n:Deleted) WHERE n.scope = $scope AND n.seq > $after
  RETURN n.seq AS seq, n.kind AS kind, n.id AS id, true AS deleted
  ORDER BY n.seq LIMIT $limit
}
RETURN seq, kind, id, deleted
ORDER BY seq
LIMIT $limit
