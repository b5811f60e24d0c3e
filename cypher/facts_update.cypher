// Rewrite a batch of stored facts (read by the transaction, or found by
// facts_stored.cypher, under the scope's lock): $rows: [{id, props}], props
// holding only the properties that change — a new value, or null to remove
// one — and always the new change number (seq). Links are left alone: a
// fact whose subject or object changed is relinked by facts_relink.cypher,
// so rewriting a chain (the common case: a validity closed, a claim added)
// touches a few properties only.
//
// $head as in facts_create.cypher. Returns the rows written, which the
// caller checks against the rows sent.
MERGE (c:Counter {name: $counter}) ON CREATE SET c.scope = $scope
SET c.value = $head
WITH c
UNWIND $rows AS r
MATCH (f:Fact {scope: $scope, id: r.id})
SET f += r.props
RETURN count(*) AS n
