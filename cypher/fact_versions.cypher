// The facts among $ids (graph.BatchReader's FactsByID), each as its id,
// change number and version, and its body only when stored without a
// version: the Store keeps bodies by version and reads those it lacks with
// facts_by_id.cypher (see graph/neo4j/cache.go).
UNWIND $ids AS id
MATCH (f:Fact {scope: $scope, id: id})
RETURN f.id AS id, f.seq AS seq, f.ver AS ver, CASE WHEN f.ver IS NULL THEN f END AS body
