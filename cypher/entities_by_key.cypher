// The entities known by each of the normalised name keys $keys.
CYPHER replan=skip
MATCH (n:Name)
USING INDEX SEEK n:Name(scope, key)
WHERE n.scope = $scope AND n.key IN $keys
MATCH (n)<-[:NAMED]-(e)
RETURN n.key AS key, e
ORDER BY key, e.id
