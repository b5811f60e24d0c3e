// Create or replace one tombstone; $props holds every stored property.
MERGE (c:Counter {name: $counter}) ON CREATE SET c.scope = $scope
SET c.value = $seq
WITH $seq AS seq
MERGE (:Scope {name: $scope})
MERGE (t:Tombstone {scope: $scope, fingerprint: $props.fingerprint})
SET t = $props, t.scope = $scope, t.seq = seq
RETURN t.seq AS seq
