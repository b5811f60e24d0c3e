// One fact by id.
MATCH (f:Fact {scope: $scope, id: $id})
RETURN f
