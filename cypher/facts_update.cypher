// Replace a batch of stored facts (read by the transaction, or found by
// facts_stored.cypher, under the scope's lock): every property, and a new
// change number. Links are left alone: a fact whose subject or object
// changed is relinked by facts_relink.cypher, so rewriting a chain (the
// common case) touches properties only.
//
// $rows: [{props}] and $head as in facts_create.cypher. Returns the
// rows written, which the caller checks against the rows sent.
MERGE (c:Counter {name: $counter}) ON CREATE SET c.scope = $scope
SET c.value = $head
WITH c
UNWIND $rows AS r
MATCH (f:Fact {scope: $scope, id: r.props.id})
SET f = r.props
RETURN count(*) AS n
