package bench

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/recall"
	"github.com/graphmem/graphmem/search"
	"github.com/graphmem/graphmem/vector"
)

// RecallOptions configure Recall.
type RecallOptions struct {
	// Scope holds the workload's facts.
	Scope entity.Scope
	// Work is the workload written to the scope; queries are drawn from it.
	Work []memory.FactInput
	// IndexDir receives the index; a temporary folder, removed afterwards,
	// when empty.
	IndexDir string
	// Queries is how many requests of each kind are timed (default 500).
	Queries int
	// Seed picks the queries (default 1).
	Seed uint64
	// Embedder, when set, also builds the vector index (as the follower
	// does) and times search and context with the vector list: every
	// question embedded (no cache) with the default wait
	// (recall.DefaultVectorWait) and waiting for each vector, then the
	// questions asked again (cached vectors); Identity names the model.
	Embedder vector.Embedder
	Identity string
}

// Queries draws n queries from a workload: questions about a
// subject's relation in the words a user would use (a quarter of them
// asking why or how it changed).
func Queries(work []memory.FactInput, n int, seed uint64) []string {
	if len(work) == 0 {
		return nil
	}
	r := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	out := make([]string, n)
	for i := range out {
		f := work[r.IntN(len(work))]
		pred := strings.ReplaceAll(f.Predicate, "_", " ")
		switch r.IntN(4) {
		case 0:
			out[i] = fmt.Sprintf("what %s does %s have now", pred, f.Subject)
		case 1:
			out[i] = fmt.Sprintf("why did %s change its %s", f.Subject, pred)
		case 2:
			out[i] = f.Subject + " " + pred
		default:
			obj := f.Object
			if obj == "" {
				obj = f.Value
			}
			out[i] = fmt.Sprintf("who %s %s", pred, obj)
		}
	}
	return out
}

// Recall indexes the facts of a scope and times recall's Search and
// Context on queries drawn from the workload that produced them, next to
// the index's own BM25 query for the same text (top 10 facts, no store
// read, no graph) as the in-run baseline. The figures are milliseconds
// (…_ms) and seconds (…_s), ready for `graphmem bench`.
func Recall(ctx context.Context, store graph.Store, o RecallOptions) (map[string]float64, error) {
	if o.Queries <= 0 {
		o.Queries = 500
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	dir := o.IndexDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "graphmem-recall-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = filepath.Join(tmp, "index")
	}
	idx, err := search.Open(dir)
	if err != nil {
		return nil, err
	}
	defer idx.Close()
	out, err := indexFigures(ctx, store, idx, o.Scope, dir)
	if err != nil {
		return nil, err
	}
	e := &recall.Engine{Store: store, Index: idx}
	defer e.Close()
	b := newBenchQuestions(o)
	if err := b.timeRequests(ctx, idx, e, o.Scope, out); err != nil {
		return nil, err
	}
	if o.Embedder != nil {
		closeV, err := b.timeWithVectors(ctx, store, idx, o, dir, out)
		if err != nil {
			return nil, err
		}
		defer closeV()
	}
	return withDuringSync(ctx, store, o, dir, out)
}

// benchQuestions are the questions Recall times: search's, context's,
// and those every timing asks first, untimed. Warmed up on other
// questions than those timed, and context timed on others than search, so
// that no cache of a store answers a timed question from having seen it.
// (The vector figures ask search's questions again.)
type benchQuestions struct {
	search, context, warm []string
}

func newBenchQuestions(o RecallOptions) benchQuestions {
	qs := Queries(o.Work, o.Queries, o.Seed)
	return benchQuestions{search: qs, warm: Queries(o.Work, min(len(qs), 50), o.Seed+1), context: Queries(o.Work, o.Queries, o.Seed+2)}
}

// time asks the warm-up questions through fn, then times fn on each of
// qs and returns the latencies in milliseconds.
func (b benchQuestions) time(qs []string, fn func(q string) error) ([]float64, error) {
	for _, q := range b.warm {
		if err := fn(q); err != nil {
			return nil, err
		}
	}
	lat := make([]float64, 0, len(qs))
	for _, q := range qs {
		t := time.Now()
		if err := fn(q); err != nil {
			return nil, err
		}
		lat = append(lat, float64(time.Since(t).Nanoseconds())/1e6)
	}
	return lat, nil
}

// timeRequests times the index's own BM25 query (top 10 facts), recall's
// Search and Context into out, with the BM25 hits per query and context's
// p95 against BM25's.
func (b benchQuestions) timeRequests(ctx context.Context, idx *search.Index, e *recall.Engine, scope entity.Scope, out map[string]float64) error {
	bm25Hits := 0
	bm25 := func(q string) error {
		hits, err := idx.Search(ctx, search.Query{Scope: scope, Text: q, Limit: 10, Types: []string{search.TypeFact}})
		bm25Hits += len(hits)
		return err
	}
	searchFn := func(q string) error {
		_, err := e.Search(ctx, scope, recall.SearchRequest{Query: q})
		return err
	}
	contextFn := func(q string) error {
		_, err := e.Context(ctx, scope, recall.ContextRequest{Query: q})
		return err
	}
	for _, m := range []struct {
		name string
		qs   []string
		fn   func(string) error
	}{{"index_bm25", b.search, bm25}, {"search", b.search, searchFn}, {"context", b.context, contextFn}} {
		lat, err := b.time(m.qs, m.fn)
		if err != nil {
			return err
		}
		out[m.name+"_p50_ms"], out[m.name+"_p95_ms"] = pct(lat, 50), pct(lat, 95)
	}
	out["index_bm25_hits_per_query"] = round(float64(bm25Hits) / float64(len(b.search)+len(b.warm)))
	if out["index_bm25_p95_ms"] > 0 {
		out["context_p95_ratio_to_index_bm25"] = round(out["context_p95_ms"] / out["index_bm25_p95_ms"])
	}
	return nil
}

// timeWithVectors builds the vector index next to the index in dir (the
// follower's catch-up: every fact and entity embedded), then times the
// requests with the vector list into out; it returns what closes the
// vector index and its engines.
func (b benchQuestions) timeWithVectors(ctx context.Context, store graph.Store, idx *search.Index, o RecallOptions, dir string, out map[string]float64) (func(), error) {
	vec, err := vector.Open(dir+"-vectors", o.Embedder, o.Identity)
	if err != nil {
		return nil, err
	}
	if err := syncVectors(ctx, store, vec, len(o.Work), out); err != nil {
		vec.Close()
		return nil, err
	}
	// Two engines with the vector list: the default wait (an answer whose
	// vector is late goes without the list), and waiting for every vector.
	ev := &recall.Engine{Store: store, Index: idx, Vectors: vec}
	waited := &recall.Engine{Store: store, Index: idx, Vectors: vec, VectorWait: time.Minute, VectorTimeout: time.Minute}
	closeV := func() {
		waited.Close()
		ev.Close()
		vec.Close()
	}
	if err := b.timeVectorRequests(ctx, ev, waited, vec, o.Scope, out); err != nil {
		closeV()
		return nil, err
	}
	return closeV, nil
}

// syncVectors catches the vector index up with the store, without a query
// cache, and writes into out how long it took, the lag it ran behind, the
// pace of embedding and the index file's size (also per 100k facts of a
// workload of facts).
func syncVectors(ctx context.Context, store graph.Store, vec *vector.Index, facts int, out map[string]float64) error {
	vec.SetQueryCache(0)
	start := time.Now()
	lag, err := watchLag(vec.Lag, func() error {
		_, err := vec.Sync(ctx, store)
		return err
	})
	if err != nil {
		return err
	}
	if err := vec.Save(); err != nil {
		return err
	}
	took := time.Since(start).Seconds()
	out["vector_sync_s"], out["vectors"] = round(took), float64(vec.Len())
	out["vector_lag_changes_max_during_sync"], out["vector_lag_s_max_during_sync"] = float64(lag.Changes), round(lag.Seconds)
	out["embeddings_per_sec"] = round(float64(vec.Embedded()) / took)
	if fi, err := os.Stat(filepath.Join(vec.Dir(), vector.FileName)); err == nil {
		out["vector_index_mb"] = round(float64(fi.Size()) / 1e6)
		out["vector_index_mb_per_100k_facts"] = round(float64(fi.Size()) / 1e6 * 1e5 / float64(facts))
	}
	return nil
}

// timeVectorRequests times into out the question's embedding, and search
// and context with the vector list: through ev (the default wait, with
// the share of answers that had the list), through waited (context
// waiting for every vector), and through ev again on questions asked
// before, whose vectors come from the cache.
func (b benchQuestions) timeVectorRequests(ctx context.Context, ev, waited *recall.Engine, vec *vector.Index, scope entity.Scope, out map[string]float64) error {
	embedFn := func(q string) error {
		_, err := vec.QueryVector(ctx, q)
		return err
	}
	searchV := func(q string) error {
		_, err := ev.Search(ctx, scope, recall.SearchRequest{Query: q})
		return err
	}
	contextV := func(q string) error {
		_, err := ev.Context(ctx, scope, recall.ContextRequest{Query: q})
		return err
	}
	contextW := func(q string) error {
		_, err := waited.Context(ctx, scope, recall.ContextRequest{Query: q})
		return err
	}
	for _, m := range []struct {
		name string
		fn   func(string) error
	}{{"query_embed", embedFn}, {"search_vectors", searchV}, {"context_vectors", contextV}, {"context_vectors_waited", contextW}} {
		used, missed := ev.VectorUse()
		lat, err := b.time(b.search, m.fn)
		if err != nil {
			return err
		}
		out[m.name+"_p50_ms"], out[m.name+"_p95_ms"] = pct(lat, 50), pct(lat, 95)
		if m.name == "search_vectors" || m.name == "context_vectors" {
			u, n := ev.VectorUse()
			out[m.name+"_share_with_list"] = round(float64(u-used) / float64(max(1, u-used+n-missed)))
		}
	}
	// Questions asked again: their vectors come from the cache.
	vec.SetQueryCache(len(b.search))
	for _, q := range b.search {
		if err := embedFn(q); err != nil {
			return err
		}
	}
	lat, err := b.time(b.search, contextV)
	if err != nil {
		return err
	}
	out["context_vectors_cached_p50_ms"], out["context_vectors_cached_p95_ms"] = pct(lat, 50), pct(lat, 95)
	return nil
}

// withDuringSync adds the figures of searchDuringSync to out. It runs last:
// it writes a scope of its own into the store.
func withDuringSync(ctx context.Context, store graph.Store, o RecallOptions, dir string, out map[string]float64) (map[string]float64, error) {
	during, err := searchDuringSync(ctx, store, o, dir+".during")
	if err != nil {
		return nil, err
	}
	maps.Copy(out, during)
	if rest := out["index_changes_per_sec"]; rest > 0 {
		out["index_sync_ratio_during_searches"] = round(during["index_changes_per_sec_during_searches"] / rest)
	}
	return out, nil
}

// duringSyncFacts is the size of the scope searched while another scope's
// backlog is indexed.
const duringSyncFacts = 1000

// searchDuringSync times searches in a small scope of its own while a fresh
// index in dir catches up with the workload's scope from nothing (its whole
// backlog): the small scope is indexed first, through a query's own
// catch-up, and every tenth search follows a write there (not timed), which
// that search must find (read your writes) — so the figure shows what a
// tenant waits for while another tenant's bulk import is being indexed (the
// median of the searches that follow a write, which catch it up first, is
// search_after_write_p50_ms_during_sync). The baseline is
// search_p95_ms, the same kind of searches on an index at rest. It also
// reports the sync's pace against its pace at rest (index_changes_per_sec)
// and how long it yielded to the searches.
func searchDuringSync(ctx context.Context, store graph.Store, o RecallOptions, dir string) (map[string]float64, error) {
	defer os.RemoveAll(dir)
	small := o.Scope + "-tenant"
	work := Workload(duringSyncFacts, o.Seed+1)
	svc := memory.New(store, nil)
	if _, err := Ingest(ctx, svc, small, work, duringSyncFacts); err != nil {
		return nil, err
	}
	idx, err := search.Open(dir)
	if err != nil {
		return nil, err
	}
	defer idx.Close()
	idx.Notify(small)
	if err := idx.CatchUp(ctx, store, small); err != nil {
		return nil, err
	}
	svc.Changed = idx.Notify
	e := &recall.Engine{Store: store, Index: idx}
	defer e.Close()

	synced := make(chan error, 1)
	start := time.Now()
	var applied int
	go func() {
		var err error
		applied, err = idx.Sync(ctx, store)
		synced <- err
	}()
	qs := Queries(work, 200, o.Seed+1)
	var lat, afterWrite []float64 // afterWrite: the searches that follow a write, also in lat
	var syncErr error
	var lag graph.Lag // the most seen, as /readyz and /metrics show it
	written := 0
	for i, done := 0, false; !done; i++ {
		select {
		case syncErr = <-synced:
			done = true
			continue
		default:
		}
		lag = mostLag(lag, idx.Lag())
		q, probe := qs[i%len(qs)], i%10 == 9
		if probe {
			written++
			value := fmt.Sprintf("written-during-sync-%d", written)
			if _, err := svc.AddFacts(ctx, small, []memory.FactInput{{Subject: "bench probe", Predicate: "status", Value: value}}); err != nil {
				return nil, err
			}
			q = value
		}
		t := time.Now()
		res, err := e.Search(ctx, small, recall.SearchRequest{Query: q})
		if err != nil {
			return nil, err
		}
		lat = append(lat, float64(time.Since(t).Nanoseconds())/1e6)
		if probe {
			afterWrite = append(afterWrite, lat[len(lat)-1])
			if !foundValue(res, q) {
				return nil, fmt.Errorf("search during sync: the write just made is not found")
			}
		}
	}
	if syncErr != nil {
		return nil, syncErr
	}
	took := time.Since(start).Seconds()
	return map[string]float64{
		"search_p50_ms_during_sync": pct(lat, 50), "search_p95_ms_during_sync": pct(lat, 95),
		"search_after_write_p50_ms_during_sync": pct(afterWrite, 50),
		"searches_during_sync":                  float64(len(lat)), "sync_s_during_searches": round(took),
		"index_changes_per_sec_during_searches": float64(int(float64(applied) / took)),
		"index_sync_yielded_s_during_searches":  round(idx.Yielded().Seconds()),
		"index_lag_changes_max_during_sync":     float64(lag.Changes), "index_lag_s_max_during_sync": round(lag.Seconds),
	}, nil
}

// watchLag runs fn while it reads a follower's lag every lagEvery, as
// /readyz and /metrics would, and returns the most it saw.
func watchLag(lag func() graph.Lag, fn func() error) (graph.Lag, error) {
	var most graph.Lag
	done := make(chan error, 1)
	go func() { done <- fn() }()
	t := time.NewTicker(lagEvery)
	defer t.Stop()
	for {
		select {
		case err := <-done:
			return most, err
		case <-t.C:
			most = mostLag(most, lag())
		}
	}
}

// mostLag is the larger of two lags in each measure.
func mostLag(a, b graph.Lag) graph.Lag {
	return graph.Lag{Changes: max(a.Changes, b.Changes), Seconds: max(a.Seconds, b.Seconds)}
}

// lagEvery is how often watchLag reads the lag.
const lagEvery = 100 * time.Millisecond

func foundValue(res recall.SearchResult, value string) bool {
	for _, h := range res.Hits {
		if h.Fact != nil && h.Fact.Value == value {
			return true
		}
	}
	return false
}

// indexFigures times the index catching up with the store from nothing
// (Sync, then Compact on its own), next to two baselines on the scope's
// records in the same run: Bleve indexing the very documents Sync writes
// (search.IndexRaw: what the follower adds to Bleve's own cost) and bare
// documents of the same text (BareBleve: what graphmem's documents cost).
//
// It also reports what the index costs a replica: its size on disk and the
// Go heap it holds once synced (index_disk_mb, index_heap_mb; Bleve maps
// its segment files, so they live in the page cache, not in the heap).
func indexFigures(ctx context.Context, store graph.Store, idx *search.Index, scope entity.Scope, dir string) (map[string]float64, error) {
	heap0 := liveHeapMB()
	start := time.Now()
	n, err := idx.Sync(ctx, store)
	if err != nil {
		return nil, err
	}
	sync := time.Since(start).Seconds()
	start = time.Now()
	if err := idx.Compact(ctx); err != nil {
		return nil, err
	}
	out := map[string]float64{"index_sync_s": round(sync), "index_changes": float64(n),
		"index_compact_s": round(time.Since(start).Seconds())}
	out["index_heap_mb"] = round(max(0, liveHeapMB()-heap0))
	if mb, err := dirMB(dir); err == nil {
		out["index_disk_mb"] = round(mb)
	}
	if sync <= 0 {
		return out, nil
	}
	rate := float64(n) / sync
	out["index_changes_per_sec"] = float64(int(rate))
	defer os.RemoveAll(dir + ".raw")
	defer os.RemoveAll(dir + ".bare")
	raw, err := search.IndexRaw(ctx, store, scope, dir+".raw")
	if err != nil {
		return nil, fmt.Errorf("raw bleve baseline: %w", err)
	}
	bare, err := BareBleve(ctx, store, scope, dir+".bare")
	if err != nil {
		return nil, fmt.Errorf("bare bleve baseline: %w", err)
	}
	out["baseline_raw_bleve_docs_per_sec"] = float64(int(raw))
	out["index_sync_ratio_to_raw_bleve"] = round(rate / raw)
	out["baseline_bare_bleve_docs_per_sec"] = float64(int(bare))
	out["index_sync_ratio_to_bare_bleve"] = round(rate / bare)
	return out, nil
}

func pct(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return round(s[int(float64(len(s)-1)*p/100)])
}

func round(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// liveHeapMB is the Go heap in use after a collection, in MB.
func liveHeapMB() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20)
}

// dirMB is the size of the files under dir, in MB.
func dirMB(dir string) (float64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	return float64(n) / (1 << 20), err
}
