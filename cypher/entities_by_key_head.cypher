// The scope's head (scope_head.cypher) and the entities known by each of
// the normalised name keys $keys (entities_by_key.cypher) in one round trip:
// the first statement of a read that starts by looking names up, which
// checks the names the Store's cache gave it against the head (see
// tx.namesWithHead). The head is read first: what the cache holds at that
// head is no newer than what the statements after it see.
CYPHER replan=skip
CALL {
  OPTIONAL MATCH (c:Counter {name: $counter})
  RETURN c.value AS head
}
CALL {
  MATCH (n:Name)
  USING INDEX SEEK n:Name(scope, key)
  WHERE n.scope = $scope AND n.key IN $keys
  MATCH (n)<-[:NAMED]-(e)
  WITH n.key AS key, e
  ORDER BY key, e.id
  RETURN collect([key, e]) AS found
}
RETURN head, found
