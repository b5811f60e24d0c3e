// Every fact of each chain in $keys ([{subject, predicate}]), history and
// retracted facts included: one index seek per chain.
// (Every property of the composite index has a predicate, id's a mere
// existence check, so the planner can seek it.)
CYPHER replan=skip
UNWIND $keys AS k
WITH k.subject AS subject, k.predicate AS predicate
MATCH (f:Fact)
USING INDEX SEEK f:Fact(scope, subject_id, predicate, id)
WHERE f.scope = $scope AND f.subject_id = subject AND f.predicate = predicate AND f.id IS NOT NULL
RETURN subject, predicate, f
ORDER BY subject, predicate, f.id
