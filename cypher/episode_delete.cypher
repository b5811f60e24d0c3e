// Delete one episode and leave a Deleted marker for Changes. Returns no row
// when the episode does not exist.
MATCH (e:Episode {scope: $scope, id: $id})
MERGE (c:Counter {name: 'changes'}) ON CREATE SET c.value = 0
SET c.locked = true
WITH *
SET c.value = c.value + 1
WITH e, c.value AS seq
DETACH DELETE e
MERGE (d:Deleted {kind: 'episode', scope: $scope, id: $id})
SET d.seq = seq
RETURN seq
