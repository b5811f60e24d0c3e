package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/bolt"
)

// openStore opens the store the configuration names: the embedded bbolt
// file in the data folder, or Neo4j. A data folder another process holds
// (bbolt's file lock) is named as such, with the way around it.
func openStore(ctx context.Context, cfg Config) (graph.Store, error) {
	switch cfg.Store {
	case "neo4j":
		return openNeo4j(ctx, cfg)
	default:
		if err := os.MkdirAll(cfg.Data, 0o755); err != nil {
			return nil, fmt.Errorf("data folder: %w", err)
		}
		s, err := bolt.Open(filepath.Join(cfg.Data, "graph.db"))
		if entity.ErrorCode(err) == entity.EUNAVAILABLE {
			return nil, fmt.Errorf("the data folder %s is held by another graphmem process (a running graphmem serve?): "+
				"stop it, or talk to that server instead with GRAPHMEM_URL=http://<its address> and no --data", cfg.Data)
		}
		return s, err
	}
}
