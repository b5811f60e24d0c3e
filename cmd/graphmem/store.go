package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/bolt"
)

// openStore opens the store the configuration names: the embedded bbolt
// file in the data folder, or Neo4j.
func openStore(ctx context.Context, cfg Config) (graph.Store, error) {
	switch cfg.Store {
	case "neo4j":
		return openNeo4j(ctx, cfg)
	default:
		if err := os.MkdirAll(cfg.Data, 0o755); err != nil {
			return nil, fmt.Errorf("data folder: %w", err)
		}
		return bolt.Open(filepath.Join(cfg.Data, "graph.db"))
	}
}
