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

	"github.com/graphmem/graphmem/bench"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
)

// benchReport is what `graphmem bench` prints; JSON field names are stable
// for scripts.
type benchReport struct {
	Store             string  `json:"store"`
	Facts             int     `json:"facts"`
	Batch             int     `json:"batch"`
	IngestFactsPerSec float64 `json:"ingest_facts_per_sec"`
	RawBoltPutsPerSec float64 `json:"baseline_raw_bbolt_puts_per_sec"`
	IngestRatio       float64 `json:"ingest_ratio_to_raw_bbolt"`
	RSSMB             float64 `json:"rss_mb"`
	PeakRSSMB         float64 `json:"peak_rss_mb"`
	HeapMB            float64 `json:"heap_mb"`
	Cores             int     `json:"cores"`
	// Recall figures (recall issue) are appended by benchRecall.
	Extra map[string]float64 `json:"-"`
}

func runBench(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	resolve := configFlags(fs)
	n := fs.Int("facts", 100000, "number of facts to generate and ingest")
	batch := fs.Int("batch", 1000, "facts per batch")
	seed := fs.Uint64("seed", 1, "workload seed")
	asJSON := fs.Bool("json", false, "print only the JSON object")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := resolve()
	if err != nil {
		return err
	}
	dataSet := false
	fs.Visit(func(f *flag.Flag) { dataSet = dataSet || f.Name == "data" })
	if !dataSet {
		dir, err := os.MkdirTemp("", "graphmem-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cfg.Data = dir
	}
	rep := benchReport{Store: cfg.Store, Facts: *n, Batch: *batch, Cores: runtime.NumCPU()}
	work := bench.Workload(*n, *seed)

	baseDir, err := os.MkdirTemp("", "graphmem-bench-raw-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(baseDir)
	if rep.RawBoltPutsPerSec, err = bench.RawBolt(baseDir, *n, *batch, 400); err != nil {
		return fmt.Errorf("raw bbolt baseline: %w", err)
	}

	store, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close()
	onto, err := ontology.Load(cfg.Ontology)
	if err != nil {
		return err
	}
	svc := memory.New(store, onto)
	if rep.IngestFactsPerSec, err = bench.Ingest(ctx, svc, "bench", work, *batch); err != nil {
		return err
	}
	rep.IngestRatio = rep.IngestFactsPerSec / rep.RawBoltPutsPerSec
	if rep.Extra, err = benchRecall(ctx, cfg, store, svc, work); err != nil {
		return err
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rep.HeapMB = float64(ms.HeapAlloc) / (1 << 20)
	rep.RSSMB, rep.PeakRSSMB = procMB("VmRSS"), procMB("VmHWM")
	if !*asJSON {
		printBench(os.Stdout, &rep)
	}
	return printBenchJSON(os.Stdout, &rep)
}

func printBench(w io.Writer, r *benchReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "store\t%s\t(%d cores)\n", r.Store, r.Cores)
	fmt.Fprintf(tw, "facts\t%d\tbatches of %d\n", r.Facts, r.Batch)
	fmt.Fprintf(tw, "ingest\t%.0f facts/s\tgraphmem: resolution, temporal rules, indexes, fsync per batch\n", r.IngestFactsPerSec)
	fmt.Fprintf(tw, "baseline\t%.0f puts/s\traw bbolt: 400-byte values, random keys, same batches, same run\n", r.RawBoltPutsPerSec)
	fmt.Fprintf(tw, "ratio\t%.2f\tgraphmem ÷ raw bbolt\n", r.IngestRatio)
	for _, k := range sortedKeys(r.Extra) {
		fmt.Fprintf(tw, "%s\t%.2f\t\n", k, r.Extra[k])
	}
	fmt.Fprintf(tw, "rss\t%.0f MB\tpeak %.0f MB, Go heap %.0f MB\n", r.RSSMB, r.PeakRSSMB, r.HeapMB)
	tw.Flush()
}

// printBenchJSON prints the report as one JSON object on one line, with the
// recall figures merged in.
func printBenchJSON(w io.Writer, r *benchReport) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for k, v := range r.Extra {
		m[k] = v
	}
	b, err = json.Marshal(m)
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
