// Package storetest gives tests above the port a fresh store of the kind the
// test environment names, so one test suite runs on every adapter:
// GRAPHMEM_TEST_STORE=neo4j (with GRAPHMEM_NEO4J_URI) gives a wiped Neo4j,
// anything else an embedded store in a temporary folder.
package storetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/bolt"
	"github.com/graphmem/graphmem/graph/neo4j"
)

// Kind returns "neo4j" when the environment asks for Neo4j, else "embedded".
func Kind() string {
	if os.Getenv("GRAPHMEM_TEST_STORE") == "neo4j" {
		return "neo4j"
	}
	return "embedded"
}

// Neo4jURI returns the Bolt URI of the test Neo4j. With
// GRAPHMEM_TEST_STORE=neo4j and no URI the test fails: CI must never skip.
func Neo4jURI(tb testing.TB) string {
	tb.Helper()
	uri := os.Getenv("GRAPHMEM_NEO4J_URI")
	if uri == "" {
		tb.Fatal("GRAPHMEM_TEST_STORE=neo4j needs GRAPHMEM_NEO4J_URI (scripts/neo4j-local.sh start prints it)")
	}
	return uri
}

// Open returns a fresh, empty store, closed when the test ends.
func Open(tb testing.TB) graph.Store {
	tb.Helper()
	if Kind() == "neo4j" {
		s, err := neo4j.Open(context.Background(), neo4j.Config{URI: Neo4jURI(tb)})
		if err != nil {
			tb.Fatal(err)
		}
		if err := s.Wipe(context.Background()); err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { s.Close() })
		return s
	}
	s, err := bolt.Open(filepath.Join(tb.TempDir(), "graph.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// Wipe empties the test Neo4j (a no-op for the embedded kind, whose
// stores are new folders).
func Wipe(tb testing.TB) {
	tb.Helper()
	if Kind() != "neo4j" {
		return
	}
	Open(tb)
}
