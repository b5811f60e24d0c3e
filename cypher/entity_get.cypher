// One entity by id.
MATCH (e:Entity {scope: $scope, id: $id})
RETURN e
