// Up to $limit entities with a name key starting with $prefix, walking the
// keys in order so the scan stops early, the entities of one key by id (as
// the embedded store lists them: the first of equally good candidates
// wins a lookup, so the order decides).
MATCH (n:Name)
WHERE n.scope = $scope AND n.key STARTS WITH $prefix
WITH n ORDER BY n.scope, n.key
CALL {
  WITH n
  MATCH (n)<-[:NAMED]-(e:Entity)
  RETURN e ORDER BY e.id
}
WITH DISTINCT e
LIMIT $limit
RETURN e
