package main

import (
	"context"
	"fmt"

	"github.com/graphmem/graphmem/graph"
)

// openNeo4j is replaced when the Neo4j adapter lands.
func openNeo4j(ctx context.Context, cfg Config) (graph.Store, error) {
	return nil, fmt.Errorf("the neo4j store is not available in this build")
}
