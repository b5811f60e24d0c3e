// Delete one entity with its links, drop the Name nodes no other entity
// uses, and leave a Deleted marker so Changes reports the deletion. Returns
// no row when the entity does not exist (the number drawn for it stays
// unused).
MATCH (e:Entity {scope: $scope, id: $id})
MERGE (c:Counter {name: $counter}) ON CREATE SET c.scope = $scope
SET c.value = $seq
WITH e, $seq AS seq
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
