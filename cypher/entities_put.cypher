// Create or replace a batch of entities in one round trip, with their Name
// nodes (one per normalised name or alias key, shared by every entity that
// has the key) and the links to facts already written about them.
//
// $scope: the transaction's scope; $rows: [{props, keys}], props holding
// every stored property (id included) and keys the entity's name keys.
//
// Sequence numbers: the rows take $seq, $seq+1 …, drawn by the Store above
// the scope's head while the transaction holds the scope counter's lock
// (write_lock.cypher); the counter keeps the last as the new head.
CYPHER replan=skip
MERGE (c:Counter {name: $counter}) ON CREATE SET c.scope = $scope
SET c.value = $seq + size($rows) - 1
MERGE (:Scope {name: $scope})
WITH c
UNWIND range(0, size($rows) - 1) AS i
WITH $seq + i AS seq, $rows[i] AS r
MERGE (e:Entity {scope: $scope, id: r.props.id})
WITH e, r, seq, e.seq IS NULL AS created, coalesce(e.keys, []) AS oldKeys
SET e = r.props, e.scope = $scope, e.seq = seq, e.keys = r.keys
WITH e, r, created, oldKeys
CALL {
  WITH e, r, oldKeys
  UNWIND [k IN oldKeys WHERE NOT k IN r.keys] AS gone
  MATCH (e)-[x:NAMED]->(n)
  WHERE n.key = gone
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
  USING INDEX SEEK f:Fact(scope, subject_id, id)
  WHERE f.scope = $scope AND f.subject_id = newID AND f.id IS NOT NULL
  CREATE (e)-[:SUBJECT_OF]->(f)
  RETURN count(f) AS subjects
}
CALL {
  WITH e, created
  UNWIND CASE WHEN created THEN [e.id] ELSE [] END AS newID
  MATCH (f:Fact)
  USING INDEX SEEK f:Fact(scope, object_id, id)
  WHERE f.scope = $scope AND f.object_id = newID AND f.id IS NOT NULL
  CREATE (f)-[:OBJECT]->(e)
  RETURN count(f) AS objects
}
// Only a new entity can have a Deleted marker.
CALL {
  WITH e, created
  UNWIND CASE WHEN created THEN [e.id] ELSE [] END AS newID
  MATCH (d:Deleted {kind: 'entity', scope: $scope, id: newID})
  DELETE d
}
// fresh: the entities created that no fact named yet, whose facts around
// are then exactly those written after them (the Store's cache holds them
// from there, see writeCache.commit).
RETURN count(*) AS n, collect(CASE WHEN created AND subjects + objects = 0 THEN e.id END) AS fresh
