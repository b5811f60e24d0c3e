// For each entity id in $ids, the facts whose subject or object it is,
// without claims and revisions: all of them when there are at most $cap
// (complete), else the $cap newest (highest id). What the Store's cache
// holds of an entity (graph/neo4j/cache.go): recall's filters and limits
// are applied to it in Go. Found through the subject and object indexes
// scanned backwards, $cap + 1 at most each way.
UNWIND $ids AS id
CALL {
  WITH id
  CALL {
    WITH id
    MATCH (f:Fact)
    WHERE f.scope = $scope AND f.subject_id = id AND f.id > ''
    RETURN f ORDER BY f.scope DESC, f.subject_id DESC, f.id DESC LIMIT $over
    UNION
    WITH id
    MATCH (f:Fact)
    WHERE f.scope = $scope AND f.object_id = id AND f.id > ''
    RETURN f ORDER BY f.scope DESC, f.object_id DESC, f.id DESC LIMIT $over
  }
  RETURN f ORDER BY f.id DESC LIMIT $over
}
WITH id, collect(f) AS fs
RETURN id, size(fs) <= $cap AS complete, [f IN fs[..$cap] | f {.*, claims: null, revisions: null}] AS fs
