// The k-hop subgraph in one query, part 1 of 4. The statement is assembled
// as start + (hop + next) × (k − 1) + hop + end, because Cypher has no loop
// that carries a frontier from one hop to the next and a per-entity fan-out
// cap cannot be expressed in a variable-length pattern.
//
// $scope, $seeds (entity ids), $fanout (valid facts followed per entity,
// lowest ids first), $asOf (valid time) and $now (what is recallable now).
MATCH (s:Entity)
WHERE s.scope = $scope AND s.id IN $seeds
WITH collect(s) AS frontier
WITH frontier, frontier AS seen, [] AS found, 0 AS hop
