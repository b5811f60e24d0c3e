// Create or replace a batch of entities in one round trip, with their Name
// nodes (one per normalised name or alias key, shared by every entity that
// has the key) and the links to facts already written about them.
//
// $scope: the transaction's scope; $rows: [{props, keys}], props holding
// every stored property (id included) and keys the entity's name keys.
//
// Sequence numbers: the counter is locked first — a SET of a constant takes
// its write lock without reading it — and only then read and raised; read
// before the lock, two writers could draw the same numbers. The lock is held
// until commit, so writers are serialised on it and the sequence order of
// committed writes is their commit order: a reader of Changes can never see
// seq n+1 committed while n is still to come.
MERGE (c:Counter {name: 'changes'}) ON CREATE SET c.value = 0
SET c.locked = true
WITH c
SET c.value = c.value + size($rows)
WITH c.value - size($rows) AS base
MERGE (:Scope {name: $scope})
WITH base
UNWIND range(0, size($rows) - 1) AS i
WITH base + i + 1 AS seq, $rows[i] AS r
MERGE (e:Entity {scope: $scope, id: r.props.id})
WITH e, r, seq, e.seq IS NULL AS created, coalesce(e.keys, []) AS oldKeys
SET e = r.props, e.scope = $scope, e.seq = seq, e.keys = r.keys
WITH e, r, created, oldKeys
CALL {
  WITH e, r, oldKeys
  UNWIND [k IN oldKeys WHERE NOT k IN r.keys] AS gone
  MATCH (e)-[x:NAMED]->(n:Name {scope: $scope, key: gone})
  DELETE x
  WITH DISTINCT n
  WHERE NOT EXISTS { (n)<-[:NAMED]-() }
  DELETE n
}
CALL {
  WITH e, r, oldKeys
  UNWIND [k IN r.keys WHERE NOT k IN oldKeys] AS added
  MERGE (n:Name {scope: $scope, key: added})
  CREATE (e)-[:NAMED]->(n)
}
// A new entity (or one re-created after a delete) picks up the facts that
// already name it; an existing one has its links since those facts were put.
// (UNWIND of an empty list, not WHERE: the planner may move a filter after
// the index seek it guards, which would scan a busy entity's facts on every
// rewrite.)
CALL {
  WITH e, created
  UNWIND CASE WHEN created THEN [e.id] ELSE [] END AS newID
  MATCH (f:Fact)
  WHERE f.scope = $scope AND f.subject_id = newID AND f.id IS NOT NULL
  CREATE (e)-[:SUBJECT_OF]->(f)
}
CALL {
  WITH e, created
  UNWIND CASE WHEN created THEN [e.id] ELSE [] END AS newID
  MATCH (f:Fact)
  WHERE f.scope = $scope AND f.object_id = newID AND f.id IS NOT NULL
  CREATE (f)-[:OBJECT]->(e)
}
// Only a new entity can have a Deleted marker.
CALL {
  WITH e, created
  UNWIND CASE WHEN created THEN [e.id] ELSE [] END AS newID
  MATCH (d:Deleted {kind: 'entity', scope: $scope, id: newID})
  DELETE d
}
RETURN count(*) AS n
