// Many facts by id in one round trip (graph.BatchReader), whole: also the
// bodies a Store's cache lacks of the facts another read named by version
// (see graph/neo4j/cache.go).
UNWIND $ids AS id
MATCH (f:Fact {scope: $scope, id: id})
RETURN f
