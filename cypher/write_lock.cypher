// The first statement of every write transaction: it takes the write lock
// of the scope's change counter and holds it to the commit, so the write
// transactions of one scope run one at a time while those of other scopes
// run side by side. Without it, a transaction could read a chain (or look
// up an entity name) while another one is rewriting it and then write on
// stale reads: two current values of a "one" predicate, or the same new
// entity created twice by two replicas. The lock is a SET of a constant, so
// nothing is read before it is held; then the scope's head (its latest
// change number) is read, above which the transaction numbers its writes.
CYPHER replan=skip
MERGE (c:Counter {name: $counter}) ON CREATE SET c.scope = $scope, c.value = 0
SET c.locked = true
RETURN c.value AS head
