package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/graphmem/graphmem/bench"
	"github.com/graphmem/graphmem/embed"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
)

// storeRun is what `graphmem bench` measured on one store.
type storeRun struct {
	Store             string  `json:"store"`
	IngestFactsPerSec float64 `json:"ingest_facts_per_sec"`
	// What the store itself allows for the same facts (Neo4j only).
	RawNeo4jFactsPerSec float64 `json:"baseline_raw_neo4j_facts_per_sec,omitempty"`
	IngestRatioRawNeo4j float64 `json:"ingest_ratio_to_raw_neo4j,omitempty"`
	// Facts ingested, and raw-written, into a scope of their own before
	// anything is timed (Neo4j only; see rawBaseline).
	WarmUpFacts int `json:"warm_up_facts,omitempty"`
	// The share of the chains and name keys the timed ingest asked for
	// that its store's write cache held, and the cache's size after it
	// (Neo4j only; see writeCacheStats).
	WriteCacheHitRatio float64 `json:"write_cache_hit_ratio,omitempty"`
	WriteCacheMB       float64 `json:"write_cache_mb,omitempty"`
	// ReadCacheHitRatio: the share of the facts around entities and name
	// keys recall's reads asked for that the write cache answered, over
	// the timed search and context requests.
	ReadCacheHitRatio float64 `json:"read_cache_hit_ratio,omitempty"`
	// The same facts ingested into several scopes, one after the other and
	// all at once, each way twice (benchScopes).
	Scopes                  int     `json:"scopes,omitempty"`
	ScopesSerialFactsPerSec float64 `json:"ingest_scopes_serial_facts_per_sec,omitempty"`
	ScopesAtOnceFactsPerSec float64 `json:"ingest_scopes_at_once_facts_per_sec,omitempty"`
	ScopesRatio             float64 `json:"ingest_scopes_at_once_ratio,omitempty"`
	// The machine's cores busy (every process, the store's server too)
	// while the scopes were written one after the other and at once; the
	// machine's cores over the first are the ratio writing at once reaches
	// when it fills the machine and each fact costs the CPU it cost one
	// after the other (past it when a fact costs less CPU at once, under
	// it when writers contend).
	ScopesSerialCores   float64            `json:"ingest_scopes_serial_cores_busy,omitempty"`
	ScopesAtOnceCores   float64            `json:"ingest_scopes_at_once_cores_busy,omitempty"`
	ScopesRatioEqualCPU float64            `json:"ingest_scopes_ratio_at_equal_cpu,omitempty"`
	Recall              map[string]float64 `json:"-"` // search_*_ms, context_*_ms, index_bm25_*_ms…
}

// benchReport is what `graphmem bench` prints; JSON field names are stable
// for scripts. With --store neo4j the embedded store runs too, in the same
// process on the same workload, and is reported under "compare".
type benchReport struct {
	storeRun
	Facts             int        `json:"facts"`
	Batch             int        `json:"batch"`
	RawBoltPutsPerSec float64    `json:"baseline_raw_bbolt_puts_per_sec"`
	IngestRatio       float64    `json:"ingest_ratio_to_raw_bbolt"`
	RSSMB             float64    `json:"rss_mb"`
	PeakRSSMB         float64    `json:"peak_rss_mb"`
	HeapMB            float64    `json:"heap_mb"`
	Cores             int        `json:"cores"`
	Compare           []storeRun `json:"-"`
	episodeRun
}

// episodeRun is the episode part of `graphmem bench`: episodes through the
// durable queue and extraction, on the first store, next to bare calls to
// the same model endpoint.
type episodeRun struct {
	Episodes                   int     `json:"episodes"`
	EpisodeModel               string  `json:"episode_model,omitempty"`
	EpisodePrompt              string  `json:"episode_prompt,omitempty"`
	EpisodeWorkers             int     `json:"episode_workers,omitempty"`
	EpisodesPerSec             float64 `json:"episodes_per_sec"`
	EpisodesFailed             int     `json:"episodes_failed"`
	EpisodeCallsPerEpisode     float64 `json:"episode_calls_per_episode"`
	EpisodePromptTokens        float64 `json:"episode_prompt_tokens_per_episode"`
	EpisodeCompletionTokens    float64 `json:"episode_completion_tokens_per_episode"`
	BaselineBareCallsPerSecond float64 `json:"baseline_bare_model_calls_per_sec"`
}

func runBench(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	resolve := configFlags(fs, `bench [--facts N] [--batch N] [--queries N] [--seed N] [--json]

Generates a synthetic workload in a temporary store, ingests it and times search
and context, next to raw baselines measured in the same run. With --store neo4j
(and --neo4j-uri) it measures Neo4j with the embedded store beside it. With an
embedding model configured (GRAPHMEM_EMBED_BASE_URL, GRAPHMEM_EMBED_MODEL) it
also embeds the workload and times search and context with the vector list. Then it sends
--episodes episodes of the extraction gold set through the episode queue and extraction:
against the configured model (GRAPHMEM_LLM_*), else a built-in fake endpoint answering
scripted answers, next to bare calls to the same endpoint; tokens per episode are read
from the episode records.`, storeSettings, modelSettings)
	n := fs.Int("facts", 100000, "number of facts to generate and ingest")
	batch := fs.Int("batch", 1000, "facts per batch")
	seed := fs.Uint64("seed", 1, "workload seed")
	queries := fs.Int("queries", 500, "search and context requests timed")
	scopes := fs.Int("scopes", 8, "scopes ingesting at once, beside the same facts one scope after the other (0: none)")
	warmUp := fs.Int("warm-up", 30000, "with --store neo4j: facts ingested and raw-written into a scope of their own before anything is timed, "+
		"and into --scopes scopes at once, so the server's JIT compiler has compiled every path timed (0: none)")
	episodes := fs.Int("episodes", 200, "episodes sent through extraction (0: none)")
	episodeWorkers := fs.Int("episode-workers", 4, "extraction workers (and scopes) for the episodes")
	asJSON := fs.Bool("json", false, "print only the JSON object")
	hashed := fs.Bool("hashed-passages", false, "embed the workload's facts, entities and predicates with a fast word-hashing stand-in of the model's dimension, "+
		"to time the vector path at sizes the model cannot embed in time; questions still go to the configured model (to the stand-in, 384 dimensions, when none is)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := resolve()
	if err != nil {
		return err
	}
	if *n < 1 || *batch < 1 || *batch > entity.MaxBatch || *warmUp < 0 {
		return fmt.Errorf("--facts must be positive, --batch between 1 and %d and --warm-up not negative", entity.MaxBatch)
	}
	rep := benchReport{Facts: *n, Batch: *batch, Cores: runtime.NumCPU()}
	work := bench.Workload(*n, *seed)

	tmp, err := os.MkdirTemp("", "graphmem-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if rep.RawBoltPutsPerSec, err = bench.RawBolt(tmp, *n, *batch, 400); err != nil {
		return fmt.Errorf("raw bbolt baseline: %w", err)
	}
	stores := []string{cfg.Store}
	if cfg.Store == "neo4j" {
		stores = append(stores, "embedded")
	}
	for i, kind := range stores {
		c := cfg
		c.Store = kind
		if kind == "embedded" {
			c.Data = fmt.Sprintf("%s/data-%d", tmp, i)
		}
		run, err := benchStore(ctx, c, work, *batch, *queries, *scopes, *warmUp, *seed, fmt.Sprintf("%s/index-%d", tmp, i), i == 0, *hashed)
		if err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
		if i == 0 {
			rep.storeRun = run
		} else {
			rep.Compare = append(rep.Compare, run)
		}
	}
	if *episodes > 0 {
		c := cfg
		c.Data = tmp + "/data-episodes"
		if rep.episodeRun, err = benchEpisodes(ctx, c, *episodes, *episodeWorkers); err != nil {
			return fmt.Errorf("episodes: %w", err)
		}
	}
	rep.IngestRatio = rep.IngestFactsPerSec / rep.RawBoltPutsPerSec
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rep.HeapMB = float64(ms.HeapAlloc) / (1 << 20)
	rep.RSSMB, rep.PeakRSSMB = procMB("VmRSS"), procMB("VmHWM")
	if !*asJSON {
		printBench(os.Stdout, &rep)
	}
	return printBenchJSON(os.Stdout, &rep)
}

// benchStore ingests the workload into a fresh scope of one store, then
// times search and context over it (bench.Recall, with the index's own BM25
// query as the in-run baseline).
func benchStore(ctx context.Context, cfg Config, work []memory.FactInput, batch, queries, scopes, warmUp int, seed uint64, indexDir string, vectors, hashed bool) (storeRun, error) {
	run := storeRun{Store: cfg.Store}
	o := bench.RecallOptions{Work: work, IndexDir: indexDir, Queries: queries}
	if vectors {
		emb, identity, err := newEmbedder(cfg)
		if err != nil {
			return run, err
		}
		switch {
		case emb != nil && hashed:
			// The stand-in takes the model's dimension, learnt from one
			// question.
			v, err := emb.Embed(ctx, embed.Query, []string{"dimension probe"})
			if err != nil {
				return run, fmt.Errorf("embedding model: %w", err)
			}
			o.Embedder, o.Identity = bench.PassagesHashed(emb, len(v[0])), identity+"|hashed passages"
		case emb != nil:
			o.Embedder, o.Identity = emb, identity
		case hashed:
			h := bench.Hashed{Dims: 384}
			o.Embedder, o.Identity = h, h.Model()
		}
	}
	store, err := openStore(ctx, cfg)
	if err != nil {
		return run, err
	}
	defer store.Close()
	onto, err := ontology.Load(cfg.Ontology)
	if err != nil {
		return run, err
	}
	// A scope of its own, so a shared Neo4j's other data does not count.
	scope := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	svc := memory.New(store, onto)
	raw, isNeo4j := store.(rawBaseline)
	if isNeo4j && warmUp > 0 {
		// A JVM runs its hot paths interpreted until its JIT compiler has
		// compiled them, which on two cores takes tens of thousands of
		// facts: timed cold, the ingest would measure the compiler, and the
		// raw baseline after it a server the ingest had warmed. Both paths
		// are warmed first, as they are on a server that has been running.
		scope := scope + "-warm-up"
		if _, err := bench.Ingest(ctx, svc, scope, bench.Workload(warmUp, seed+1000), batch); err != nil {
			return run, fmt.Errorf("warm-up: %w", err)
		}
		if _, err := raw.RawFactsPerSec(ctx, scope, warmUp, batch); err != nil {
			return run, fmt.Errorf("warm-up: %w", err)
		}
		run.WarmUpFacts = warmUp
	}
	cache, cached := store.(cacheStats)
	var before graph.CacheStats
	if cached {
		before = cache.CacheStats()
	}
	if run.IngestFactsPerSec, err = bench.Ingest(ctx, svc, scope, work, batch); err != nil {
		return run, err
	}
	if cached {
		after := cache.CacheStats()
		run.WriteCacheHitRatio = hitRatio(after.WriteHits-before.WriteHits, after.WriteMisses-before.WriteMisses)
		run.WriteCacheMB = float64(after.Bytes) / (1 << 20)
		before = after
	}
	if isNeo4j {
		if run.RawNeo4jFactsPerSec, err = raw.RawFactsPerSec(ctx, scope, len(work), batch); err != nil {
			return run, fmt.Errorf("raw baseline: %w", err)
		}
		run.IngestRatioRawNeo4j = run.IngestFactsPerSec / run.RawNeo4jFactsPerSec
	}
	o.Scope = scope
	if run.Recall, err = bench.Recall(ctx, store, o); err != nil {
		return run, err
	}
	if cached {
		after := cache.CacheStats()
		run.ReadCacheHitRatio = hitRatio(after.ReadHits-before.ReadHits, after.ReadMisses-before.ReadMisses)
	}
	if scopes > 0 {
		err = benchScopes(ctx, svc, &run, scope, scopes, min(len(work)/scopes, maxScopeFacts), batch, seed, isNeo4j && warmUp > 0)
	}
	return run, err
}

// rawBaseline is a store that measures what its server allows for the
// same writes (graph/neo4j: RawFactsPerSec).
type rawBaseline interface {
	RawFactsPerSec(ctx context.Context, scope string, n, batch int) (float64, error)
}

// cacheStats is a store with a cache of records (graph/neo4j: CacheStats).
type cacheStats interface {
	CacheStats() graph.CacheStats
}

// hitRatio is hits over all asked, 0 when nothing was.
func hitRatio(hits, misses uint64) float64 {
	if hits+misses == 0 {
		return 0
	}
	return float64(hits) / float64(hits+misses)
}

// maxScopeFacts bounds the facts of each scope in the scopes part of the
// bench, which is about writers waiting for each other, not about size.
const maxScopeFacts = 2500

// benchScopes ingests n facts into each of k fresh scopes one scope after
// the other, then into k others all at once, then at once again and one
// after the other again (each round into fresh scopes), and reports each
// way's rate over its two rounds: a drift of the machine or the server
// over the part weighs on both ways alike. With warm, a round at once and
// one one after the other come first, untimed: a JVM compiles the paths
// that writers at once take (lock waits, concurrent index updates) only
// once they run, over seconds, which a server that has been running has
// long done, and the main ingest warmed only one writer's; the round one
// after the other takes what the compiler was still doing.
func benchScopes(ctx context.Context, svc *memory.Service, run *storeRun, prefix string, k, n, batch int, seed uint64, warm bool) error {
	if n < 1 {
		return nil
	}
	works := make([][]memory.FactInput, k)
	for i := range works {
		works[i] = bench.Workload(n, seed+uint64(i)+1)
	}
	names := func(round string) []string {
		out := make([]string, k)
		for i := range out {
			out[i] = fmt.Sprintf("%s-%s%d", prefix, round, i)
		}
		return out
	}
	run.Scopes = k
	if warm {
		for i, parallel := range []bool{true, false} {
			if _, err := bench.Scopes(ctx, svc, names(fmt.Sprintf("warm-up%d", i)), works, batch, parallel); err != nil {
				return fmt.Errorf("scopes' warm-up: %w", err)
			}
		}
	}
	// Seconds and core-seconds of each way over its rounds.
	var secs, busy [2]float64
	for i, parallel := range []bool{false, true, true, false} {
		way := 0
		if parallel {
			way = 1
		}
		cpu := bench.StartCPU()
		rate, err := bench.Scopes(ctx, svc, names(fmt.Sprintf("round%d-", i)), works, batch, parallel)
		if err != nil {
			return fmt.Errorf("scopes, round %d: %w", i+1, err)
		}
		t := float64(k*n) / rate
		secs[way] += t
		busy[way] += cpu.Cores() * t
	}
	run.ScopesSerialFactsPerSec, run.ScopesAtOnceFactsPerSec = float64(2*k*n)/secs[0], float64(2*k*n)/secs[1]
	run.ScopesSerialCores, run.ScopesAtOnceCores = busy[0]/secs[0], busy[1]/secs[1]
	run.ScopesRatio = run.ScopesAtOnceFactsPerSec / run.ScopesSerialFactsPerSec
	if run.ScopesSerialCores > 0 {
		run.ScopesRatioEqualCPU = float64(runtime.NumCPU()) / run.ScopesSerialCores
	}
	return nil
}

func printBench(w io.Writer, r *benchReport) {
	runs := append([]storeRun{r.storeRun}, r.Compare...)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%d facts, batches of %d, %d cores\t", r.Facts, r.Batch, r.Cores)
	for _, run := range runs {
		fmt.Fprintf(tw, "%s\t", run.Store)
	}
	fmt.Fprintln(tw)
	row := func(name string, v func(storeRun) float64, format string) {
		fmt.Fprintf(tw, "%s\t", name)
		for _, run := range runs {
			if x := v(run); x != 0 {
				fmt.Fprintf(tw, format+"\t", x)
			} else {
				fmt.Fprint(tw, "-\t") // not measured on this store
			}
		}
		fmt.Fprintln(tw)
	}
	row("ingest facts/s", func(s storeRun) float64 { return s.IngestFactsPerSec }, "%.0f")
	row("  baseline: raw bbolt puts/s", func(storeRun) float64 { return r.RawBoltPutsPerSec }, "%.0f")
	if r.RawNeo4jFactsPerSec > 0 {
		row("  baseline: raw neo4j facts/s", func(s storeRun) float64 { return s.RawNeo4jFactsPerSec }, "%.0f")
		row("  ratio to raw neo4j", func(s storeRun) float64 { return s.IngestRatioRawNeo4j }, "%.2f")
		row("  after a warm-up of (facts, untimed)", func(s storeRun) float64 { return float64(s.WarmUpFacts) }, "%.0f")
		row("  write cache hit ratio", func(s storeRun) float64 { return s.WriteCacheHitRatio }, "%.2f")
		row("  write cache MB (estimated)", func(s storeRun) float64 { return s.WriteCacheMB }, "%.0f")
		row("  write cache hit ratio of recall's reads", func(s storeRun) float64 { return s.ReadCacheHitRatio }, "%.2f")
	}
	if r.Scopes > 0 {
		row(fmt.Sprintf("ingest %d scopes at once facts/s", r.Scopes), func(s storeRun) float64 { return s.ScopesAtOnceFactsPerSec }, "%.0f")
		row("  baseline: one scope after the other", func(s storeRun) float64 { return s.ScopesSerialFactsPerSec }, "%.0f")
		row("  ratio", func(s storeRun) float64 { return s.ScopesRatio }, "%.2f")
		row("  cores busy at once (machine)", func(s storeRun) float64 { return s.ScopesAtOnceCores }, "%.2f")
		row("  cores busy one after the other (machine)", func(s storeRun) float64 { return s.ScopesSerialCores }, "%.2f")
		row("  ratio at equal CPU a fact (cores / busy one after the other)", func(s storeRun) float64 { return s.ScopesRatioEqualCPU }, "%.2f")
	}
	for _, k := range sortedKeys(r.Recall) {
		row(strings.ReplaceAll(k, "_", " "), func(s storeRun) float64 { return s.Recall[k] }, "%.2f")
	}
	tw.Flush()
	if e := r.episodeRun; e.Episodes > 0 {
		fmt.Fprintf(w, "episodes: %d through the queue and extraction (%d workers, model %s): %.1f episodes/s, %d failed; baseline: bare calls to the same endpoint %.1f/s\n",
			e.Episodes, e.EpisodeWorkers, e.EpisodeModel, e.EpisodesPerSec, e.EpisodesFailed, e.BaselineBareCallsPerSecond)
		fmt.Fprintf(w, "  per episode (%s prompt): %.2f model calls, %.0f prompt and %.0f completion tokens\n",
			e.EpisodePrompt, e.EpisodeCallsPerEpisode, e.EpisodePromptTokens, e.EpisodeCompletionTokens)
	}
	fmt.Fprintf(w, "rss %.0f MB (peak %.0f MB, Go heap %.0f MB) for the whole run\n", r.RSSMB, r.PeakRSSMB, r.HeapMB)
}

// printBenchJSON prints the report as one JSON object on one line, the
// recall figures of the first store merged in at the top level.
func printBenchJSON(w io.Writer, r *benchReport) error {
	flat := func(v any, extra map[string]float64) (map[string]any, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, err
		}
		for k, x := range extra {
			m[k] = x
		}
		return m, nil
	}
	m, err := flat(r, r.Recall)
	if err != nil {
		return err
	}
	var cmp []map[string]any
	for _, c := range r.Compare {
		x, err := flat(c, c.Recall)
		if err != nil {
			return err
		}
		cmp = append(cmp, x)
	}
	if len(cmp) > 0 {
		m["compare"] = cmp
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// procMB reads a memory figure (kB) from /proc/self/status in MB; 0 where
// there is no /proc.
func procMB(field string) float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}
