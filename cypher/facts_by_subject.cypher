// A page of facts matching a filter, ordered by id after the id $after
// ('' for the first); $subject, $predicate and $object ('' for any) and,
// when $byValue, $value (the normalised literal) are the filter.
// Driven by the subject index.
MATCH (f:Fact)
WHERE f.scope = $scope AND f.subject_id = $subject AND f.id > $after
  AND ($subject = '' OR f.subject_id = $subject)
  AND ($predicate = '' OR f.predicate = $predicate)
  AND ($object = '' OR f.object_id = $object)
  AND (NOT $byValue OR f.value_key = $value)
RETURN f
ORDER BY f.scope, f.subject_id, f.id
LIMIT $limit
