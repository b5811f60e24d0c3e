// Delete one entity with its links, drop the Name nodes no other entity
// uses, and leave a Deleted marker so Changes reports the deletion. Returns
// no row when the entity does not exist (and takes no sequence number).
MATCH (e:Entity {scope: $scope, id: $id})
MERGE (c:Counter {name: 'changes'}) ON CREATE SET c.value = 0
SET c.locked = true
WITH *
SET c.value = c.value + 1
WITH e, c.value AS seq
OPTIONAL MATCH (e)-[:NAMED]->(n:Name)
WITH e, seq, collect(n) AS names
DETACH DELETE e
WITH seq, names
CALL {
  WITH names
  UNWIND names AS n
  WITH n WHERE NOT EXISTS { (n)<-[:NAMED]-() }
  DELETE n
}
MERGE (d:Deleted {kind: 'entity', scope: $scope, id: $id})
SET d.seq = seq
RETURN seq
