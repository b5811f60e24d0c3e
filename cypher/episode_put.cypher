// Create or replace one episode; $props holds every stored property.
// An idempotency key names at most one episode per scope: when another
// episode holds it, nothing is written and its id is returned as conflict
// (the uniqueness constraint on (scope, idempotency_key) is the backstop).
OPTIONAL MATCH (o:Episode)
WHERE o.scope = $scope AND o.idempotency_key = $props.idempotency_key AND o.id <> $props.id
WITH collect(o.id) AS conflicts
CALL {
  WITH conflicts
  WITH conflicts WHERE size(conflicts) = 0
  MERGE (c:Counter {name: $counter}) ON CREATE SET c.scope = $scope
  SET c.value = $seq
  WITH $seq AS seq
  MERGE (:Scope {name: $scope})
  MERGE (e:Episode {scope: $scope, id: $props.id})
  SET e = $props, e.scope = $scope, e.seq = seq
  WITH e
  OPTIONAL MATCH (d:Deleted {kind: 'episode', scope: $scope, id: e.id})
  DELETE d
}
RETURN conflicts[0] AS conflict
