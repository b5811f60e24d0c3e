// Up to $limit changes with a sequence number above $after, across scopes.
// Each label's seq index is read in order and cut at $limit, so the cost is
// bounded by the page, not by the store. A rewritten record carries only its
// latest seq, so it is listed once; deletions come from Deleted markers.
//
// It takes no lock: writers of different scopes commit side by side, so a
// commit may become visible after a higher number of another scope was
// listed. Readers that must miss nothing tail each scope
// (scope_changes.cypher).
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
