package bench_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/graphmem/graphmem/bench"
	"github.com/graphmem/graphmem/graph/bolt"
	"github.com/graphmem/graphmem/memory"
)

func TestWorkloadDeterministic(t *testing.T) {
	a, b := bench.Workload(500, 7), bench.Workload(500, 7)
	if len(a) != 500 {
		t.Fatalf("%d facts", len(a))
	}
	for i := range a {
		if a[i].Subject != b[i].Subject || a[i].Predicate != b[i].Predicate || !a[i].ValidFrom.Equal(*b[i].ValidFrom) {
			t.Fatalf("fact %d differs", i)
		}
	}
}

// BenchmarkIngest reports graphmem's facts/s on the embedded store next to
// the raw bbolt baseline measured in the same run.
func BenchmarkIngest(b *testing.B) {
	const n = 20000
	work := bench.Workload(n, 1)
	for b.Loop() {
		dir := b.TempDir()
		raw, err := bench.RawBolt(dir, n, 1000, 400)
		if err != nil {
			b.Fatal(err)
		}
		store, err := bolt.Open(filepath.Join(dir, "graph.db"))
		if err != nil {
			b.Fatal(err)
		}
		rate, err := bench.Ingest(context.Background(), memory.New(store, nil), "bench", work, 1000)
		store.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(rate, "facts/s")
		b.ReportMetric(raw, "raw-bbolt-puts/s")
		b.ReportMetric(rate/raw, "ratio")
	}
}
