// Up to $limit changes with a sequence number above $after, across scopes.
// Each label's seq index is read in order and cut at $limit, so the cost is
// bounded by the page, not by the store. A rewritten record carries only its
// latest seq, so it is listed once; deletions come from Deleted markers.
//
// First the counter's lock: every writer holds it from its first write
// until its commit has been applied, so holding it here means no commit is
// half-visible while the feed is read — a reader can never see seq n+1 of a
// commit whose seq n is not visible yet, and skip n for ever. The SET
// changes nothing; the statement runs in a write transaction for the lock.
MERGE (lock:Counter {name: 'changes'}) ON CREATE SET lock.value = 0
SET lock.locked = true
WITH count(lock) AS locked
CALL {
  MATCH (n:Entity) WHERE n.seq > $after
  RETURN n.seq AS seq, n.scope AS scope, 'entity' AS kind, n.id AS id, false AS deleted
  ORDER BY n.seq LIMIT $limit
  UNION ALL
  MATCH (n:Fact) WHERE n.seq > $after
  RETURN n.seq AS seq, n.scope AS scope, 'fact' AS kind, n.id AS id, false AS deleted
  ORDER BY n.seq LIMIT $limit
  UNION ALL
  MATCH (n:Episode) WHERE n.seq > $after
  RETURN n.seq AS seq, n.scope AS scope, 'episode' AS kind, n.id AS id, false AS deleted
  ORDER BY n.seq LIMIT $limit
  UNION ALL
  MATCH (n:Tombstone) WHERE n.seq > $after
  RETURN n.seq AS seq, n.scope AS scope, 'tombstone' AS kind, n.fingerprint AS id, false AS deleted
  ORDER BY n.seq LIMIT $limit
  UNION ALL
  MATCH (n:Deleted) WHERE n.seq > $after
  RETURN n.seq AS seq, n.scope AS scope, n.kind AS kind, n.id AS id, true AS deleted
  ORDER BY n.seq LIMIT $limit
}
RETURN seq, scope, kind, id, deleted
ORDER BY seq
LIMIT $limit
