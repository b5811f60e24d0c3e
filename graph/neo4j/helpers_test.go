package neo4j_test

import (
	"context"
	"os"
	"testing"

	"github.com/graphmem/graphmem/graph/neo4j"
)

var ctx = context.Background()

// config reads the test server from the environment. Without
// GRAPHMEM_NEO4J_URI the Neo4j tests skip — except in CI, where a skipped
// backend would hide failures, so they fail.
func config(tb testing.TB) neo4j.Config {
	tb.Helper()
	uri := os.Getenv("GRAPHMEM_NEO4J_URI")
	if uri == "" {
		const how = "start one with `scripts/neo4j-local.sh start` and set GRAPHMEM_NEO4J_URI to the URI it prints"
		if os.Getenv("CI") == "true" {
			tb.Fatal("GRAPHMEM_NEO4J_URI is unset in CI, where the Neo4j tests must run: " + how)
		}
		tb.Skip("GRAPHMEM_NEO4J_URI is unset: the Neo4j tests need a Neo4j server; " + how)
	}
	return neo4j.Config{
		URI:      uri,
		User:     os.Getenv("GRAPHMEM_NEO4J_USER"),
		Password: os.Getenv("GRAPHMEM_NEO4J_PASSWORD"),
		Database: os.Getenv("GRAPHMEM_NEO4J_DATABASE"),
	}
}

// mustOpen opens the test server's store, empty: Community edition has one
// user database, so every test wipes it. Tests of this package therefore
// never run in parallel.
func mustOpen(tb testing.TB) *neo4j.Store {
	tb.Helper()
	cfg := config(tb)
	s, err := neo4j.Open(ctx, cfg)
	if err != nil {
		tb.Fatalf("Open(%s): %v", cfg.URI, err)
	}
	if err := s.Wipe(ctx); err != nil {
		s.Close()
		tb.Fatalf("Wipe: %v", err)
	}
	return s
}

// mustOpenClosing is mustOpen with Close at the end of the test.
func mustOpenClosing(tb testing.TB) *neo4j.Store {
	tb.Helper()
	s := mustOpen(tb)
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return s
}
