// Remove the Deleted markers of facts $ids put again: only a fact that is
// not stored can have one (putting a fact removes it, deleting one removes
// the node).
CYPHER replan=skip
UNWIND $ids AS id
MATCH (d:Deleted {kind: 'fact', scope: $scope, id: id})
DELETE d
