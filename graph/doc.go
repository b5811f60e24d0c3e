// Package graph is graphmem's persistence port: the Store interface every
// storage adapter implements (graph/bolt, the embedded default; graph/neo4j),
// and graph/graphtest, the conformance suite each adapter runs unchanged.
//
// The port is deliberately dumb: it stores and finds records. The temporal
// rules, entity resolution and ranking live above it, in the memory service,
// so they are written once and behave the same on every store.
package graph
