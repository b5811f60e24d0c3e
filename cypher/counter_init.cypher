// The change counters, applied at every start: the store-wide one, from
// which each Store reserves blocks of change numbers (seq_reserve.cypher),
// and one per scope, holding the scope's head and its write lock
// (write_lock.cypher). A scope written by an older graphmem, whose records
// drew their numbers from the store-wide counter only, gets its counter
// with that counter's value as head, no lower than any of its changes.
MERGE (g:Counter {name: 'changes'})
ON CREATE SET g.value = 0
WITH g
MATCH (s:Scope)
WHERE NOT EXISTS { MATCH (c:Counter) WHERE c.name = 'changes:' + s.name }
MERGE (c:Counter {name: 'changes:' + s.name})
ON CREATE SET c.scope = s.name, c.value = g.value
