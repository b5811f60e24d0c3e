// Facts and entities by id together, in one round trip
// (graph.BatchReader): what a search found of each; $bare leaves the
// facts' claims and revisions out.
CALL {
  UNWIND $facts AS id
  MATCH (f:Fact {scope: $scope, id: id})
  RETURN collect(CASE WHEN $bare THEN f {.*, claims: null, revisions: null} ELSE f END) AS facts
}
CALL {
  UNWIND $entities AS id
  MATCH (e:Entity {scope: $scope, id: id})
  RETURN collect(e) AS entities
}
RETURN facts, entities
