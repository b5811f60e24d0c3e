// Create or replace a batch of facts in one round trip, with their graph
// links (:Entity)-[:SUBJECT_OF]->(:Fact)-[:OBJECT]->(:Entity).
//
// $scope: the transaction's scope; $rows: [{props}], props holding every
// stored property of the fact (id, subject_id, predicate, object_id or
// value_key, validity, the JSON of claims, revisions and attributes…).
//
// Sequence numbers come from the counter as in entities_put.cypher. Links
// are rebuilt only for a new fact or one whose subject or object changed,
// so rewriting a chain (the common case) touches properties only.
MATCH (c:Counter {name: 'changes'})
SET c.locked = true
WITH c
SET c.value = c.value + size($rows)
WITH c.value - size($rows) AS base
MERGE (:Scope {name: $scope})
WITH base
UNWIND range(0, size($rows) - 1) AS i
WITH base + i + 1 AS seq, $rows[i] AS r
MERGE (f:Fact {scope: $scope, id: r.props.id})
WITH f, r, seq, f.seq IS NULL AS created, f.subject_id AS oldSubject, f.object_id AS oldObject
SET f = r.props, f.scope = $scope, f.seq = seq
WITH f, r, created, oldSubject, oldObject
CALL {
  WITH f, r, created, oldSubject
  WITH f, r, created WHERE created OR oldSubject <> r.props.subject_id
  OPTIONAL MATCH (:Entity)-[x:SUBJECT_OF]->(f)
  DELETE x
  WITH DISTINCT f, r
  MATCH (s:Entity {scope: $scope, id: r.props.subject_id})
  CREATE (s)-[:SUBJECT_OF]->(f)
}
CALL {
  WITH f, r, created, oldObject
  WITH f, r, created WHERE created OR coalesce(oldObject, '') <> coalesce(r.props.object_id, '')
  OPTIONAL MATCH (f)-[x:OBJECT]->(:Entity)
  DELETE x
  WITH DISTINCT f, r
  WHERE r.props.object_id IS NOT NULL
  MATCH (o:Entity {scope: $scope, id: r.props.object_id})
  CREATE (f)-[:OBJECT]->(o)
}
CALL {
  WITH f
  MATCH (d:Deleted {kind: 'fact', scope: $scope, id: f.id})
  DELETE d
}
RETURN count(*) AS n
