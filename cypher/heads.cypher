// The head of every scope: its latest change number, held by its counter.
// A plain read, taking no lock: a head at most promises that the scope's
// changes up to it are committed (see scope_changes.cypher).
MATCH (c:Counter)
WHERE c.scope IS NOT NULL
RETURN c.scope AS scope, c.value AS head
