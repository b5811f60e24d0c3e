// Tests only: remove every node in batches, keeping the schema. The change
// counter goes too and is re-created by counter_init.cypher.
MATCH (n)
CALL {
  WITH n
  DETACH DELETE n
} IN TRANSACTIONS OF 10000 ROWS
