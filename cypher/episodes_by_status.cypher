// A page of the episodes with status $status, ordered by id after $after.
MATCH (e:Episode)
WHERE e.scope = $scope AND e.status = $status AND e.id > $after
RETURN e
ORDER BY e.scope, e.status, e.id
LIMIT $limit
