// Benchmarks only (`graphmem bench`, baseline_raw_neo4j_facts_per_sec): what
// Neo4j itself allows for a batch of facts — the same properties as
// facts_write.cypher stores, as nodes of a label of their own (no constraint,
// index, MERGE or change numbers) with their SUBJECT_OF and OBJECT links to
// the scope's entities, found through the entity constraint's index.
UNWIND $rows AS r
CREATE (f:RawFact)
SET f = r, f.scope = $scope
WITH f
CALL {
  WITH f
  MATCH (s:Entity {scope: $scope, id: f.subject_id})
  CREATE (s)-[:SUBJECT_OF]->(f)
}
CALL {
  WITH f
  UNWIND CASE WHEN f.object_id IS NULL THEN [] ELSE [f.object_id] END AS objectID
  MATCH (o:Entity {scope: $scope, id: objectID})
  CREATE (f)-[:OBJECT]->(o)
}
RETURN count(*) AS n
