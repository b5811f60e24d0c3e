// Tests only: remove every node in batches, keeping the schema. The change
// counters go too; counter_init.cypher re-creates the store-wide one.
MATCH (n)
CALL {
  WITH n
  DETACH DELETE n
} IN TRANSACTIONS OF 10000 ROWS
