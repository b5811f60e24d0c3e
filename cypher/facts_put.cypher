// Create or replace a batch of facts in one round trip, with their graph
// links (:Entity)-[:SUBJECT_OF]->(:Fact)-[:OBJECT]->(:Entity).
//
// $scope: the transaction's scope; $rows: [{props}], props holding every
// stored property of the fact (id, subject_id, predicate, object_id or
// value_key, validity, the JSON of claims, revisions and attributes…).
//
// Sequence numbers are given as in entities_put.cypher. Links are made
// only for a new fact or one whose subject or object changed, so rewriting
// a chain (the common case) touches properties only.
MERGE (c:Counter {name: $counter}) ON CREATE SET c.scope = $scope
SET c.value = $seq + size($rows) - 1
MERGE (:Scope {name: $scope})
WITH c
UNWIND range(0, size($rows) - 1) AS i
WITH $seq + i AS seq, $rows[i] AS r
MERGE (f:Fact {scope: $scope, id: r.props.id})
WITH f, r, seq, f.seq IS NULL AS created, f.subject_id AS oldSubject, f.object_id AS oldObject
SET f = r.props, f.scope = $scope, f.seq = seq
WITH f, r, created,
     NOT created AND oldSubject <> r.props.subject_id AS subjectMoved,
     NOT created AND coalesce(oldObject, '') <> coalesce(r.props.object_id, '') AS objectMoved
// Conditional parts are written UNWIND CASE WHEN … THEN [x] ELSE [] END,
// not WHERE: the planner may move a filter after the index seek it guards,
// and these seeks would then run for every row.
//
// A rewrite that changes the subject or object (rare) drops the old link.
CALL {
  WITH f, subjectMoved
  UNWIND CASE WHEN subjectMoved THEN [f] ELSE [] END AS moved
  MATCH (:Entity)-[x:SUBJECT_OF]->(moved)
  DELETE x
}
CALL {
  WITH f, objectMoved
  UNWIND CASE WHEN objectMoved THEN [f] ELSE [] END AS moved
  MATCH (moved)-[x:OBJECT]->(:Entity)
  DELETE x
}
// Links to the entities when they are stored; an entity stored later picks
// its facts up (entities_put.cypher).
CALL {
  WITH f, r, created, subjectMoved
  UNWIND CASE WHEN created OR subjectMoved THEN [r.props.subject_id] ELSE [] END AS subjectID
  MATCH (s:Entity {scope: $scope, id: subjectID})
  CREATE (s)-[:SUBJECT_OF]->(f)
}
CALL {
  WITH f, r, created, objectMoved
  UNWIND CASE WHEN (created OR objectMoved) AND r.props.object_id IS NOT NULL
    THEN [r.props.object_id] ELSE [] END AS objectID
  MATCH (o:Entity {scope: $scope, id: objectID})
  CREATE (f)-[:OBJECT]->(o)
}
// Only a new fact can have a Deleted marker: putting a fact removes it,
// deleting one removes the node.
CALL {
  WITH f, created
  UNWIND CASE WHEN created THEN [f.id] ELSE [] END AS newID
  MATCH (d:Deleted {kind: 'fact', scope: $scope, id: newID})
  DELETE d
}
RETURN count(*) AS n
