// A page of entities ordered by id, after the id $after ('' for the first).
MATCH (e:Entity)
WHERE e.scope = $scope AND e.id > $after
RETURN e
ORDER BY e.scope, e.id
LIMIT $limit
