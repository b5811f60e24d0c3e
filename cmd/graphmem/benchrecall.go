package main

import (
	"context"

	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/memory"
)

// benchRecall measures search and context latency over the ingested
// workload; filled in by the recall work.
func benchRecall(ctx context.Context, cfg Config, store graph.Store, svc *memory.Service, work []memory.FactInput) (map[string]float64, error) {
	return nil, nil
}
