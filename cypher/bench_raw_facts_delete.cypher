// Benchmarks only: remove the nodes bench_raw_facts.cypher wrote.
MATCH (f:RawFact)
CALL {
  WITH f
  DETACH DELETE f
} IN TRANSACTIONS OF 10000 ROWS
