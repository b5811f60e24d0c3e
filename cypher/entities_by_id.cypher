// Many entities by id in one round trip (graph.BatchReader).
UNWIND $ids AS id
MATCH (e:Entity {scope: $scope, id: id})
RETURN e
