// For each prefix in $prefixes, up to $limit entities with a name key
// starting with it (entities_by_prefix.cypher for several prefixes in one
// round trip, graph.BatchReader).
CYPHER replan=skip
UNWIND $prefixes AS prefix
CALL {
  WITH prefix
  MATCH (n:Name)
  USING INDEX SEEK n:Name(scope, key)
  WHERE n.scope = $scope AND n.key STARTS WITH prefix
  WITH n ORDER BY n.scope, n.key
  CALL {
    WITH n
    MATCH (n)<-[:NAMED]-(e)
    RETURN e ORDER BY e.id
  }
  WITH DISTINCT e
  LIMIT $limit
  RETURN e
}
RETURN prefix, e
