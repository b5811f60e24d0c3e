// The change counter: created once, at the first start on an empty
// database (or after a wipe); never reset otherwise. Every statement that
// draws from it MERGEs it the same way, so writes keep working if the
// database is replaced under a running store (a test server restarted
// empty); the schema then comes back at the next Open.
MERGE (c:Counter {name: 'changes'})
ON CREATE SET c.value = 0
