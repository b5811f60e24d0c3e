// Up to $limit entities with a name key starting with $prefix, walking the
// keys in order so the scan stops early.
MATCH (n:Name)
WHERE n.scope = $scope AND n.key STARTS WITH $prefix
WITH n ORDER BY n.scope, n.key
MATCH (n)<-[:NAMED]-(e:Entity)
WITH DISTINCT e
LIMIT $limit
RETURN e
