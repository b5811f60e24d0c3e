package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/neo4j"
)

// openNeo4j connects to the Neo4j the configuration names and applies the
// schema.
func openNeo4j(ctx context.Context, cfg Config) (graph.Store, error) {
	var cache int64 // the default
	if cfg.Neo4jCacheMB != "" {
		mb, err := strconv.ParseInt(cfg.Neo4jCacheMB, 10, 64)
		if err != nil || mb < 0 || mb > 1<<30 {
			return nil, fmt.Errorf("neo4j-fact-cache-mb: %q is not a number of MiB", cfg.Neo4jCacheMB)
		}
		cache = mb << 20
		if mb == 0 {
			cache = -1 // no cache
		}
	}
	return neo4j.Open(ctx, neo4j.Config{URI: cfg.Neo4jURI, User: cfg.Neo4jUser, Password: cfg.Neo4jPassword, Database: cfg.Neo4jDatabase,
		FactCacheBytes: cache})
}
