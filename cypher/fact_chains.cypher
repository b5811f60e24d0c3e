// Every fact of each chain in $keys ([{subject, predicate}]), history and
// retracted facts included: one index seek per chain.
// (Every property of the composite index has a predicate, id's a mere
// existence check, so the planner can seek it.)
// Each fact as its id, change number and version; its body only with
// $full or for a fact stored without a version (see graph/neo4j/cache.go).
UNWIND $keys AS k
WITH k.subject AS subject, k.predicate AS predicate
MATCH (f:Fact)
WHERE f.scope = $scope AND f.subject_id = subject AND f.predicate = predicate AND f.id IS NOT NULL
RETURN subject, predicate, f.id AS id, f.seq AS seq, f.ver AS ver, CASE WHEN $full OR f.ver IS NULL THEN f END AS body
ORDER BY subject, predicate, id
