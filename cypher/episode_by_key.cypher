// The episode with idempotency key $key (the oldest if, against the
// service's rules, several share it).
MATCH (e:Episode)
WHERE e.scope = $scope AND e.idempotency_key = $key
RETURN e
ORDER BY e.id
LIMIT 1
