// The change counter: created once, at the first start on an empty
// database (or after a wipe); never reset otherwise.
MERGE (c:Counter {name: 'changes'})
ON CREATE SET c.value = 0
