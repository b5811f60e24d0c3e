// Facts and entities by id together, in one round trip
// (graph.BatchReader): what a search found of each. Each fact as
// [id, change number, version, body], its body only with $full or when it
// is stored without a version (see fact_versions.cypher).
CALL {
  UNWIND $facts AS id
  MATCH (f:Fact {scope: $scope, id: id})
  RETURN collect([f.id, f.seq, f.ver, CASE WHEN $full OR f.ver IS NULL THEN f END]) AS facts
}
CALL {
  UNWIND $entities AS id
  MATCH (e:Entity {scope: $scope, id: id})
  RETURN collect(e) AS entities
}
RETURN facts, entities
