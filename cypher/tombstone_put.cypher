// Create or replace one tombstone; $props holds every stored property.
MERGE (c:Counter {name: 'changes'}) ON CREATE SET c.value = 0
SET c.locked = true
WITH *
SET c.value = c.value + 1
WITH c.value AS seq
MERGE (:Scope {name: $scope})
MERGE (t:Tombstone {scope: $scope, fingerprint: $props.fingerprint})
SET t = $props, t.scope = $scope, t.seq = seq
RETURN t.seq AS seq
