// Up to $limit facts whose subject or object is the entity $id, ordered by
// id. Found through the subject and object indexes rather than the graph
// links, so a fact about an entity not (or no longer) stored is found too,
// exactly as on the embedded store.
CALL {
  MATCH (f:Fact)
  WHERE f.scope = $scope AND f.subject_id = $id AND f.id > ''
  RETURN f ORDER BY f.scope, f.subject_id, f.id LIMIT $limit
  UNION
  MATCH (f:Fact)
  WHERE f.scope = $scope AND f.object_id = $id AND f.id > ''
  RETURN f ORDER BY f.scope, f.object_id, f.id LIMIT $limit
}
RETURN f
ORDER BY f.id
LIMIT $limit
