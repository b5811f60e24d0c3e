// One hit on each fact of $rows ({id, at}) and its last access raised to
// at, never lowered (graph.Tx.TouchFacts). In place: the fact keeps its
// change number, so no follower reads it again.
UNWIND $rows AS r
MATCH (f:Fact {scope: $scope, id: r.id})
SET f.hits = coalesce(f.hits, 0) + 1,
    f.last_accessed_at = CASE WHEN f.last_accessed_at IS NULL OR f.last_accessed_at < r.at
                              THEN r.at ELSE f.last_accessed_at END
