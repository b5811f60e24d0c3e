// Create a batch of facts the store does not hold (facts_stored.cypher
// said so under the scope's lock), with their graph links
// (:Entity)-[:SUBJECT_OF]->(:Fact)-[:OBJECT]->(:Entity) to the entities
// that are stored; an entity stored later picks its facts up
// (entities_put.cypher).
//
// $scope: the transaction's scope; $rows: [{props}], props holding every
// stored property of the fact (scope, id, subject_id, predicate, object_id
// or value_key, validity, the JSON of claims, revisions and attributes…)
// and seq, its change number, drawn by the Store above the scope's head
// while the transaction holds the scope counter's lock (write_lock.cypher);
// $head is the last number drawn, which the counter keeps as the new head.
// (Scope and seq come in props: a SET of its own would read them back
// first, and make the planner buffer every row.)
//
// CREATE, not MERGE: nothing is read back and nothing conflicts, so the
// rows stream through without an Eager; the uniqueness constraint on
// (scope, id) still refuses a duplicate, loudly. Returns the rows written.
MERGE (c:Counter {name: $counter}) ON CREATE SET c.scope = $scope
SET c.value = $head
MERGE (:Scope {name: $scope})
WITH c
UNWIND $rows AS r
CREATE (f:Fact)
SET f = r.props
WITH f, r.props.subject_id AS subjectID, r.props.object_id AS objectID
CALL {
  WITH f, subjectID
  MATCH (s:Entity {scope: $scope, id: subjectID})
  CREATE (s)-[:SUBJECT_OF]->(f)
}
// (UNWIND of an empty list, not WHERE: the planner may move a filter
// after the index seek it guards.)
CALL {
  WITH f, objectID
  UNWIND CASE WHEN objectID IS NULL THEN [] ELSE [objectID] END AS oid
  MATCH (o:Entity {scope: $scope, id: oid})
  CREATE (f)-[:OBJECT]->(o)
}
RETURN count(*) AS n
