// The first statement of every write transaction: it takes the change
// counter's write lock and holds it to the commit, so write transactions
// run one at a time. Without it, a transaction could read a chain (or look
// up an entity name) while another one is rewriting it and then write on
// stale reads: two current values of a "one" predicate, or the same new
// entity created twice by two replicas.
MERGE (c:Counter {name: 'changes'}) ON CREATE SET c.value = 0
SET c.locked = true
