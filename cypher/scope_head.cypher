// The scope's head: its latest change number (no row before its first
// write). A read checks the Store's cache against it (graph/neo4j/cache.go).
MATCH (c:Counter {name: $counter})
RETURN c.value AS head
