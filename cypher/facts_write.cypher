// Write a batch of facts in one round trip: create those the store does not
// hold, rewrite those it holds (facts_stored.cypher and the transaction's
// reads tell which, under the scope's lock).
//
// $created: [{props}], props holding every stored property of a new fact
// (scope, id, subject_id, predicate, object_id or value_key, validity, the
// JSON of claims, revisions and attributes…) and seq, its change number.
// It gets its graph links (:Entity)-[:SUBJECT_OF]->(:Fact)-[:OBJECT]->(:Entity)
// to the entities that are stored; an entity stored later picks its facts
// up (entities_put.cypher). (Scope and seq come in props: a SET of its own
// would read them back first, and make the planner buffer every row.)
// CREATE, not MERGE: nothing is read back and nothing conflicts; the
// uniqueness constraint on (scope, id) still refuses a duplicate, loudly.
//
// $replaced: [{id, props}], props holding only the properties that change —
// a new value, or null to remove one — and always the new change number.
// Links are left alone: a fact whose subject or object changed is relinked
// by facts_relink.cypher, so rewriting a chain (the common case: a validity
// closed, a claim added) touches a few properties only.
//
// Change numbers are drawn by the Store above the scope's head while the
// transaction holds the scope counter's lock (write_lock.cypher); $head is
// the last number drawn, which the counter keeps as the new head. Returns
// the rows created and rewritten, which the caller checks against the rows
// sent.
CYPHER replan=skip
MERGE (c:Counter {name: $counter}) ON CREATE SET c.scope = $scope
SET c.value = $head
MERGE (:Scope {name: $scope})
WITH c
CALL {
  UNWIND $created AS r
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
  RETURN count(*) AS created
}
CALL {
  UNWIND $replaced AS r
  MATCH (f:Fact {scope: $scope, id: r.id})
  SET f += r.props
  RETURN count(*) AS replaced
}
RETURN created, replaced
