// Many episodes by id in one round trip (graph.BatchReader).
UNWIND $ids AS id
MATCH (e:Episode {scope: $scope, id: id})
RETURN e
