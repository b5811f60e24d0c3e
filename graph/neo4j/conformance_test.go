package neo4j_test

import (
	"testing"

	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/graphtest"
)

// TestConformance runs the graph.Store conformance suite against Neo4j.
func TestConformance(t *testing.T) {
	config(t) // skip (or fail in CI) before the suite's subtests start
	graphtest.Run(t, func(t *testing.T) graph.Store { return mustOpen(t) })
}
