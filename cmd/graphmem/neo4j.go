package main

import (
	"context"

	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/neo4j"
)

// openNeo4j connects to the Neo4j the configuration names and applies the
// schema. With the write cache on, the process collects garbage less often
// (collectLessOften).
func openNeo4j(ctx context.Context, cfg Config) (graph.Store, error) {
	s, err := neo4j.Open(ctx, neo4j.Config{URI: cfg.Neo4jURI, User: cfg.Neo4jUser, Password: cfg.Neo4jPassword,
		Database: cfg.Neo4jDatabase, WriteCacheMB: int(cfg.Neo4jCacheMB), Writers: int(cfg.Neo4jWriters)})
	if err == nil && cfg.Neo4jCacheMB >= 0 { // (-1: off)
		collectLessOften()
	}
	return s, err
}
