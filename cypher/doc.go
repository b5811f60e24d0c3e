// Package cypher holds every Cypher statement graphmem runs against Neo4j,
// one .cypher file each, embedded in the binary. Keeping the statements out
// of Go strings lets them be read, reviewed and profiled as Cypher, and
// schema.cypher documents the database schema in one place.
//
// A file may hold several statements separated by semicolons at the end of
// a line (schema.cypher does); Statements splits them. Comments start with
// // at the beginning of a line.
package cypher
