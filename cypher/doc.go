// Package cypher holds every Cypher statement graphmem runs against Neo4j,
// one .cypher file each, embedded in the binary. Keeping the statements out
// of Go strings lets them be read, reviewed and profiled as Cypher, and
// schema.cypher documents the database schema in one place.
//
// A file may hold several statements separated by semicolons at the end of
// a line (schema.cypher does); Statements splits them. Comments start with
// // at the beginning of a line.
//
// The statements of a write transaction's path (the scope's lock, name and
// chain lookups, entity and fact writes) start with CYPHER replan=skip:
// Neo4j plans them once and keeps the plan while the store grows, rather
// than planning them again each time its statistics have moved (hundreds
// of milliseconds on two cores, mid-ingest). A plan kept must not depend
// on statistics, as the first may be made on an empty store: each record
// they look up goes through a uniqueness constraint or an index named by
// USING INDEX SEEK (planned on an empty store without it, a lookup of a
// new entity's facts became a scan of the whole index, per entity).
// A node reached from a bound one through a relationship carries no label
// (MATCH (e)-[x:NAMED]->(n)), so the planner has no index or label to scan
// for it in place of following the relationship (with n:Name, one plan
// scanned the names' index for each name an entity dropped).
// TestStatementsSeekIndexes plans them on an empty store and on one with
// data.
package cypher
