package recall_test

import (
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/bench"
	"github.com/graphmem/graphmem/recall"
)

func TestZZKinds(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	e := newEnv(t)
	work := bench.Workload(100000, 7)
	if _, err := bench.Ingest(ctx, e.svc, "bench", work, 1000); err != nil {
		t.Fatal(err)
	}
	e.sync(t)
	e.index.Compact(ctx)
	e.now = time.Now()
	qs := recall.BenchQueries(work, 800, 1)
	kind := func(q string) string {
		for _, p := range []string{"what ", "why ", "who "} {
			if strings.HasPrefix(q, p) {
				return p
			}
		}
		return "plain"
	}
	f, _ := os.Create("/tmp/zz.prof")
	pprof.StartCPUProfile(f)
	lat := map[string][]float64{}
	var all []float64
	for _, q := range qs {
		st := time.Now()
		if _, err := e.engine.Context(ctx, "bench", recall.ContextRequest{Query: q}); err != nil {
			t.Fatal(err)
		}
		d := float64(time.Since(st).Microseconds()) / 1000
		lat[kind(q)] = append(lat[kind(q)], d)
		all = append(all, d)
	}
	pprof.StopCPUProfile()
	lat["ALL"] = all
	for k, v := range lat {
		slices.Sort(v)
		fmt.Printf("%s n=%d p50 %.1f p95 %.1f max %.1f\n", k, len(v), v[len(v)/2], v[len(v)*95/100], v[len(v)-1])
	}
}
