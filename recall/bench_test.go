package recall_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/graphmem/graphmem/bench"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/recall"
	"github.com/graphmem/graphmem/search"
)

// benchFacts is the size of the benchmark data set; GRAPHMEM_BENCH_FACTS
// overrides it (docs/design.md §8 states the bar at 100k).
func benchFacts() int {
	if v, err := strconv.Atoi(os.Getenv("GRAPHMEM_BENCH_FACTS")); err == nil && v > 0 {
		return v
	}
	return 20000
}

var benchEnv *env
var benchWork []memory.FactInput

// loadBench builds one store and index of the workload for every
// benchmark of the run.
func loadBench(b *testing.B) *env {
	b.Helper()
	if benchEnv != nil {
		return benchEnv
	}
	e := newEnvPersistent(b)
	benchWork = bench.Workload(benchFacts(), 1)
	if _, err := bench.Ingest(ctx, e.svc, "bench", benchWork, 1000); err != nil {
		b.Fatal(err)
	}
	e.sync(b)
	if err := e.index.Compact(ctx); err != nil {
		b.Fatal(err)
	}
	benchEnv = e
	return e
}

// BenchmarkIndexSearch is the baseline, the index alone: the BM25 query
// with its scope and status filters, before recall reads the store.
func BenchmarkIndexSearch(b *testing.B) {
	e := loadBench(b)
	qs := bench.Queries(benchWork, 256, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.index.Search(ctx, search.Query{Scope: "bench", Text: qs[i%len(qs)], Limit: 100}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearch(b *testing.B) {
	e := loadBench(b)
	qs := bench.Queries(benchWork, 256, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.engine.Search(ctx, "bench", recall.SearchRequest{Query: qs[i%len(qs)]}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkContext(b *testing.B) {
	e := loadBench(b)
	qs := bench.Queries(benchWork, 256, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.engine.Context(ctx, "bench", recall.ContextRequest{Query: qs[i%len(qs)]}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkContextNoFloor is BenchmarkContext without the relevance
// floor: what the floor costs.
func BenchmarkContextNoFloor(b *testing.B) {
	e := loadBench(b)
	qs := bench.Queries(benchWork, 256, 1)
	eng := &recall.Engine{Store: e.store, Index: e.index, Now: e.engine.Now, NoRelevanceFloor: true}
	defer eng.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := eng.Context(ctx, "bench", recall.ContextRequest{Query: qs[i%len(qs)]}); err != nil {
			b.Fatal(err)
		}
	}
}
