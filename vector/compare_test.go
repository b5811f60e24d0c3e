package vector

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	neo "github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// BenchmarkVectorIndexes100k answers which vector index graphmem should use
// on Neo4j: the per-replica HNSW of this package (in the process, one per
// replica, derived from the change feed) or Neo4j's native vector index
// (Lucene HNSW inside the database, queried over Bolt). Both get the same
// 100,000 synthetic unit vectors of 384 dimensions (multilingual-e5-small's
// size; clustered like texts on a few topics — synthetic vectors are fine
// for latency, not for answer quality) and the same 200 questions, k = 60
// (what recall reads per question). The baselines of the same run: an exact
// scan over the vectors (recall@10 is measured against it) and a Bolt round
// trip that does nothing (RETURN 1). Neo4j's part runs when
// GRAPHMEM_NEO4J_URI is set; it creates :BenchVector nodes and an index and
// deletes them at the end, so point it at a test server.
//
//	go test -run '^$' -bench VectorIndexes100k -benchtime 1x -timeout 60m ./vector
func BenchmarkVectorIndexes100k(b *testing.B) {
	const n, dims, k, scopes = 100_000, 384, 60, 10
	r := rand.New(rand.NewPCG(3, 4))
	all := clustered(r, n, dims)
	qs := clustered(r, 200, dims)
	rows := [][]string{}
	add := func(name string, lat []float64, recall float64, note string) {
		rows = append(rows, []string{name, fmt.Sprintf("%.2f", pct(lat, 50)), fmt.Sprintf("%.2f", pct(lat, 95)),
			fmt.Sprintf("%.3f", recall), note})
	}
	load, _ := os.ReadFile("/proc/loadavg")
	b.Logf("load average at start: %s", strings.TrimSpace(string(load)))

	// Exact top 10 of every question, overall and within its scope (the
	// vector's number modulo 10).
	truth, truthScoped := make([][]string, len(qs)), make([][]string, len(qs))
	var exactLat []float64
	for i, q := range qs {
		start := time.Now()
		truth[i] = exactTop(all, q, 10, -1, scopes)
		exactLat = append(exactLat, ms(time.Since(start)))
		truthScoped[i] = exactTop(all, q, 10, i%scopes, scopes)
	}

	for b.Loop() {
		g := newHNSW()
		start := time.Now()
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i, v := range all {
			g.add(key(i), 0, v)
		}
		build := time.Since(start)
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		var lat []float64
		var rec float64
		for i, q := range qs {
			start := time.Now()
			cs := g.search(q, k, max(searchEf, 2*k))
			lat = append(lat, ms(time.Since(start)))
			got := make([]string, 0, 10)
			for _, c := range cs[:min(10, len(cs))] {
				got = append(got, g.nodes[c.id].key)
			}
			rec += overlap(got, truth[i])
		}
		add("per-replica HNSW (in process)", lat, rec/float64(len(qs)),
			fmt.Sprintf("build %.0f s, heap %.0f MB", build.Seconds(), float64(after.HeapAlloc-before.HeapAlloc)/1e6))
		b.ReportMetric(pct(lat, 95), "hnsw-p95-ms")
		add("exact scan, float32 (baseline)", exactLat, 1, "")

		if uri := os.Getenv("GRAPHMEM_NEO4J_URI"); uri != "" {
			neoRows, err := neo4jVectorIndex(uri, all, qs, truth, truthScoped, k, scopes)
			if err != nil {
				b.Fatal(err)
			}
			rows = append(rows, neoRows...)
		} else {
			b.Log("GRAPHMEM_NEO4J_URI is unset: Neo4j's native vector index not measured")
		}
	}
	load, _ = os.ReadFile("/proc/loadavg")
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%d vectors of %d dimensions, %d questions, k = %d; load average at the end: %s\n", n, dims, len(qs), k,
		strings.TrimSpace(string(load)))
	fmt.Fprintf(&sb, "%-44s %9s %9s %10s  %s\n", "", "p50 ms", "p95 ms", "recall@10", "")
	for _, r := range rows {
		fmt.Fprintf(&sb, "%-44s %9s %9s %10s  %s\n", r[0], r[1], r[2], r[3], r[4])
	}
	fmt.Print(sb.String())
}

// neo4jVectorIndex loads the vectors into Neo4j, builds its vector index
// and times the same questions: unfiltered, and within one of ten scopes
// (the native index cannot filter while it searches, so it reads 10·k
// and keeps the scope's), next to a Bolt round trip doing nothing.
func neo4jVectorIndex(uri string, all, qs [][]float32, truth, truthScoped [][]string, k, scopes int) ([][]string, error) {
	ctx := context.Background()
	drv, err := neo.NewDriverWithContext(uri, neo.NoAuth())
	if err != nil {
		return nil, err
	}
	defer drv.Close(ctx)
	run := func(q string, params map[string]any) (*neo.EagerResult, error) {
		return neo.ExecuteQuery(ctx, drv, q, params, neo.EagerResultTransformer)
	}
	cleanup := func() error {
		if _, err := run("DROP INDEX bench_vectors IF EXISTS", nil); err != nil {
			return err
		}
		_, err := run("MATCH (n:BenchVector) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS", nil)
		return err
	}
	if err := cleanup(); err != nil {
		return nil, err
	}
	defer cleanup()
	start := time.Now()
	for lo := 0; lo < len(all); lo += 1000 {
		batch := make([]any, 0, 1000)
		for i := lo; i < min(len(all), lo+1000); i++ {
			batch = append(batch, map[string]any{"id": key(i), "scope": i % scopes, "v": f64(all[i])})
		}
		if _, err := run("UNWIND $rows AS r CREATE (n:BenchVector {id: r.id, scope: r.scope, v: r.v})",
			map[string]any{"rows": batch}); err != nil {
			return nil, err
		}
	}
	write := time.Since(start)
	start = time.Now()
	if _, err := run("CREATE VECTOR INDEX bench_vectors FOR (n:BenchVector) ON n.v OPTIONS {indexConfig: "+
		"{`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}", nil); err != nil {
		return nil, err
	}
	if _, err := run("CALL db.awaitIndexes(3600)", nil); err != nil {
		return nil, err
	}
	populate := time.Since(start)
	var rows [][]string
	timeQueries := func(name, q string, scoped bool, note string) error {
		var lat []float64
		var rec float64
		for i, v := range qs {
			p := map[string]any{"q": f64(v), "k": k, "fetch": k, "scope": i % scopes}
			if scoped {
				p["fetch"] = k * scopes
			}
			start := time.Now()
			res, err := run(q, p)
			if err != nil {
				return err
			}
			lat = append(lat, ms(time.Since(start)))
			got := make([]string, 0, 10)
			for _, r := range res.Records[:min(10, len(res.Records))] {
				id, _ := r.Get("id")
				got = append(got, id.(string))
			}
			want := truth[i]
			if scoped {
				want = truthScoped[i]
			}
			rec += overlap(got, want)
		}
		rows = append(rows, []string{name, fmt.Sprintf("%.2f", pct(lat, 50)), fmt.Sprintf("%.2f", pct(lat, 95)),
			fmt.Sprintf("%.3f", rec/float64(len(qs))), note})
		return nil
	}
	// Warm the index and the page cache first.
	for _, v := range qs[:20] {
		if _, err := run("CALL db.index.vector.queryNodes('bench_vectors', $k, $q) YIELD node RETURN node.id",
			map[string]any{"q": f64(v), "k": k}); err != nil {
			return nil, err
		}
	}
	if err := timeQueries("Neo4j native vector index (over Bolt)",
		"CALL db.index.vector.queryNodes('bench_vectors', $fetch, $q) YIELD node, score RETURN node.id AS id, score",
		false, fmt.Sprintf("write %.0f s, index population %.0f s", write.Seconds(), populate.Seconds())); err != nil {
		return nil, err
	}
	if err := timeQueries("Neo4j native, one of 10 scopes (reads 10·k)",
		"CALL db.index.vector.queryNodes('bench_vectors', $fetch, $q) YIELD node, score "+
			"WITH node, score WHERE node.scope = $scope RETURN node.id AS id, score LIMIT $k", true, ""); err != nil {
		return nil, err
	}
	var lat []float64
	for range qs {
		start := time.Now()
		if _, err := run("RETURN 1 AS one", nil); err != nil {
			return nil, err
		}
		lat = append(lat, ms(time.Since(start)))
	}
	rows = append(rows, []string{"Bolt round trip, RETURN 1 (baseline)", fmt.Sprintf("%.2f", pct(lat, 50)),
		fmt.Sprintf("%.2f", pct(lat, 95)), "-", ""})
	return rows, nil
}

func key(i int) string { return fmt.Sprintf("v%06d", i) }

func f64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func pct(xs []float64, p int) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, len(s)*p/100)]
}

// exactTop is the k nearest vectors to q by a full scan, among those of
// one scope (scope ≥ 0: number modulo scopes) or all.
func exactTop(all [][]float32, q []float32, k, scope, scopes int) []string {
	type kv struct {
		i int
		s float32
	}
	best := make([]kv, 0, k+1)
	for i, v := range all {
		if scope >= 0 && i%scopes != scope {
			continue
		}
		var s float32
		for j := range v {
			s += v[j] * q[j]
		}
		if len(best) < k || s > best[len(best)-1].s {
			best = append(best, kv{i, s})
			slices.SortFunc(best, func(a, b kv) int { return cmp.Compare(b.s, a.s) })
			best = best[:min(k, len(best))]
		}
	}
	out := make([]string, len(best))
	for i, x := range best {
		out[i] = key(x.i)
	}
	return out
}

func overlap(got, want []string) float64 {
	n := 0
	for _, g := range got {
		if slices.Contains(want, g) {
			n++
		}
	}
	return float64(n) / float64(max(1, len(want)))
}
