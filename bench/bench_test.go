package bench_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("GRAPHMEM_BENCH_FACTS")); err == nil && v > 0 {
		n = v
	}
	work := bench.Workload(n, 1)
	for b.Loop() {
		dir := b.TempDir()
		cpu0, w0 := cpuAndWrites(b)
		raw, err := bench.RawBolt(dir, n, 1000, 400)
		if err != nil {
			b.Fatal(err)
		}
		cpu1, w1 := cpuAndWrites(b)
		store, err := bolt.Open(filepath.Join(dir, "graph.db"))
		if err != nil {
			b.Fatal(err)
		}
		rate, err := bench.Ingest(context.Background(), memory.New(store, nil), "bench", work, 1000)
		store.Close()
		if err != nil {
			b.Fatal(err)
		}
		cpu2, w2 := cpuAndWrites(b)
		b.ReportMetric(rate, "facts/s")
		b.ReportMetric(raw, "raw-bbolt-puts/s")
		b.ReportMetric(rate/raw, "ratio")
		// What a loaded machine does not distort: CPU time and bytes
		// written per fact, against raw bbolt's per put.
		b.ReportMetric((cpu2-cpu1).Seconds()*1e6/float64(n), "cpu-us/fact")
		b.ReportMetric((cpu1-cpu0).Seconds()*1e6/float64(n), "raw-cpu-us/put")
		b.ReportMetric(float64(w2-w1)/float64(n), "written-B/fact")
		b.ReportMetric(float64(w1-w0)/float64(n), "raw-written-B/put")
	}
}

// TestRecall runs the recall figures `graphmem bench` reports, on a small
// workload unless GRAPHMEM_BENCH_FACTS asks for more.
func TestRecall(t *testing.T) {
	store, err := bolt.Open(filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("GRAPHMEM_BENCH_FACTS")); err == nil && v > 0 {
		n = v
	}
	work := bench.Workload(n, 7)
	if _, err := bench.Ingest(context.Background(), memory.New(store, nil), "bench", work, 500); err != nil {
		t.Fatal(err)
	}
	got, err := bench.Recall(context.Background(), store, bench.RecallOptions{Scope: "bench", Work: work, Queries: min(500, n/10)})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"search_p50_ms", "search_p95_ms", "context_p50_ms", "context_p95_ms", "index_bm25_p50_ms", "index_bm25_p95_ms", "index_bm25_hits_per_query"} {
		if got[k] <= 0 {
			t.Errorf("%s = %v", k, got[k])
		}
	}
	if got["index_changes"] < float64(n) {
		t.Errorf("indexed %v changes for %d facts", got["index_changes"], n)
	}
	t.Log(got)
}

// cpuAndWrites returns the process's CPU time so far and the bytes it has
// passed to write calls (/proc/self/io wchar).
func cpuAndWrites(tb testing.TB) (time.Duration, int64) {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	io, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return cpu, 0
	}
	for _, line := range strings.Split(string(io), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return cpu, n
		}
	}
	return cpu, 0
}
