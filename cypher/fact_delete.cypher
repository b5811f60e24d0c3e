// Delete one fact with its links and leave a Deleted marker for Changes.
// Returns no row when the fact does not exist.
MATCH (f:Fact {scope: $scope, id: $id})
MERGE (c:Counter {name: 'changes'}) ON CREATE SET c.value = 0
SET c.locked = true
WITH *
SET c.value = c.value + 1
WITH f, c.value AS seq
DETACH DELETE f
MERGE (d:Deleted {kind: 'fact', scope: $scope, id: $id})
SET d.seq = seq
RETURN seq
