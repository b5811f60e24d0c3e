// For each entity id in $ids, up to $limit facts whose subject or object it
// is, ordered by id: FactsOf (facts_of.cypher) for a whole frontier of a
// graph walk in one round trip.
UNWIND $ids AS id
CALL {
  WITH id
  CALL {
    WITH id
    MATCH (f:Fact)
    WHERE f.scope = $scope AND f.subject_id = id AND f.id > ''
    RETURN f ORDER BY f.scope, f.subject_id, f.id LIMIT $limit
    UNION
    WITH id
    MATCH (f:Fact)
    WHERE f.scope = $scope AND f.object_id = id AND f.id > ''
    RETURN f ORDER BY f.scope, f.object_id, f.id LIMIT $limit
  }
  RETURN f ORDER BY f.id LIMIT $limit
}
RETURN id, f
