// A page of episodes ordered by id after the id $after ('' for the first).
MATCH (e:Episode)
WHERE e.scope = $scope AND e.id > $after
RETURN e
ORDER BY e.scope, e.id
LIMIT $limit
