// Reserve $n change numbers for one Store, all above $above (a scope's head
// its writer must exceed): returns base, and the numbers base+1 … base+$n
// are the Store's alone. This transaction is the only one that locks the
// store-wide counter, for the moment it takes, not for a writer's whole
// transaction.
CYPHER replan=skip
MERGE (g:Counter {name: 'changes'}) ON CREATE SET g.value = 0
WITH g, CASE WHEN g.value > $above THEN g.value ELSE $above END AS base
SET g.value = base + $n
RETURN base
