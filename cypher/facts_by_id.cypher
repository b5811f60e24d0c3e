// Many facts by id in one round trip (graph.BatchReader).
UNWIND $ids AS id
MATCH (f:Fact {scope: $scope, id: id})
RETURN f
