// Delete one fact with its links and leave a Deleted marker for Changes.
// Returns no row when the fact does not exist.
MATCH (f:Fact {scope: $scope, id: $id})
MERGE (c:Counter {name: $counter}) ON CREATE SET c.scope = $scope
SET c.value = $seq
WITH f, $seq AS seq
DETACH DELETE f
MERGE (d:Deleted {kind: 'fact', scope: $scope, id: $id})
SET d.seq = seq
RETURN seq
