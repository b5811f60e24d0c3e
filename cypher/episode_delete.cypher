// Delete one episode and leave a Deleted marker for Changes. Returns no row
// when the episode does not exist.
MATCH (e:Episode {scope: $scope, id: $id})
MERGE (c:Counter {name: $counter}) ON CREATE SET c.scope = $scope
SET c.value = $seq
WITH e, $seq AS seq
DETACH DELETE e
MERGE (d:Deleted {kind: 'episode', scope: $scope, id: $id})
SET d.seq = seq
RETURN seq
