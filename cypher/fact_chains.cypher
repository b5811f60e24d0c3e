// Every fact of each chain in $keys ([{subject, predicate}]), history and
// retracted facts included: one index seek per chain.
UNWIND $keys AS k
MATCH (f:Fact)
WHERE f.scope = $scope AND f.subject_id = k.subject AND f.predicate = k.predicate
RETURN k.subject AS subject, k.predicate AS predicate, f
ORDER BY subject, predicate, f.id
