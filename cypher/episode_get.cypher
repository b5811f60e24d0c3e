// One episode by id.
MATCH (e:Episode {scope: $scope, id: $id})
RETURN e
