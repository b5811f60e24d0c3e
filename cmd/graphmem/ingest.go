package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
)

// runIngest loads a JSON Lines file of facts (memory.FactInput) or
// episodes (lines with "content") — offline into the data folder when
// --data is given, otherwise through a running server.
func runIngest(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: graphmem ingest [--data DIR] [--scope S] [--batch N] FILE.jsonl")
		fs.PrintDefaults()
	}
	resolve := configFlags(fs)
	scope := fs.String("scope", entity.DefaultScope, "scope to write into (offline only; a server takes it from the key)")
	batch := fs.Int("batch", 500, "facts per request or transaction")
	quiet := fs.Bool("quiet", false, "no progress bar")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("ingest needs one FILE")
	}
	cfg, err := resolve()
	if err != nil {
		return err
	}
	offline := false
	fs.Visit(func(f *flag.Flag) { offline = offline || f.Name == "data" || f.Name == "store" })
	if *batch < 1 || *batch > memory.MaxBatch {
		return fmt.Errorf("--batch must be between 1 and %d", memory.MaxBatch)
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	var sink ingestSink
	if offline {
		store, err := openStore(ctx, cfg)
		if err != nil {
			return err
		}
		defer store.Close()
		onto, err := ontology.Load(cfg.Ontology)
		if err != nil {
			return err
		}
		sink = &serviceSink{svc: memory.New(store, onto), scope: *scope}
	} else {
		sink = &httpSink{c: newAPIClient(cfg, "")}
	}
	var r io.Reader = f
	var bar *progressbar.ProgressBar
	if !*quiet {
		bar = progressbar.DefaultBytes(st.Size(), "ingesting")
		r = io.TeeReader(f, bar)
	}
	counts, err := ingestLines(ctx, r, sink, *batch)
	if bar != nil {
		_ = bar.Finish()
		fmt.Fprintln(os.Stderr)
	}
	printCounts(os.Stdout, counts)
	return err
}

// ingestSink receives batches from ingestLines.
type ingestSink interface {
	facts(ctx context.Context, fs []memory.FactInput) ([]memory.FactResult, error)
	episode(ctx context.Context, ep memory.EpisodeInput) error
}

// ingestLines reads JSON Lines and sends facts in batches, episodes one by
// one, counting outcomes by action. A malformed line stops the ingestion
// with its line number; everything before it was written.
func ingestLines(ctx context.Context, r io.Reader, sink ingestSink, batch int) (map[string]int, error) {
	counts := map[string]int{}
	var pending []memory.FactInput
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		res, err := sink.facts(ctx, pending)
		if err != nil {
			return err
		}
		for _, x := range res {
			counts[string(x.Action)]++
		}
		pending = pending[:0]
		return nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), memory.MaxEpisodeBytes+64<<10)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 || b[0] == '#' {
			continue
		}
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(b, &probe); err != nil {
			return counts, fmt.Errorf("line %d: %w", line, err)
		}
		b, err := readTimes(probe, "valid_from", "valid_to", "reference_time")
		if err != nil {
			return counts, fmt.Errorf("line %d: %w", line, err)
		}
		if _, isEpisode := probe["content"]; isEpisode {
			var ep memory.EpisodeInput
			if err := strictUnmarshal(b, &ep); err != nil {
				return counts, fmt.Errorf("line %d: %w", line, err)
			}
			if err := flush(); err != nil {
				return counts, err
			}
			if err := sink.episode(ctx, ep); err != nil {
				return counts, fmt.Errorf("line %d: %w", line, err)
			}
			counts["episodes"]++
			continue
		}
		var fi memory.FactInput
		if err := strictUnmarshal(b, &fi); err != nil {
			return counts, fmt.Errorf("line %d: %w", line, err)
		}
		pending = append(pending, fi)
		if len(pending) == batch {
			if err := flush(); err != nil {
				return counts, fmt.Errorf("batch ending at line %d: %w", line, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return counts, err
	}
	return counts, flush()
}

// readTimes reads the named time fields of a record the way every other
// interface does (entity.ParseTime, so a plain date is midnight UTC) and
// returns the record with them in RFC 3339.
func readTimes(rec map[string]json.RawMessage, fields ...string) ([]byte, error) {
	for _, name := range fields {
		raw, ok := rec[name]
		if !ok || string(raw) == "null" {
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("%s: %s", name, entity.TimeMessage)
		}
		t, err := entity.ParseTime(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %s", name, entity.TimeMessage)
		}
		rec[name], _ = json.Marshal(t)
	}
	return json.Marshal(rec)
}

func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func printCounts(w io.Writer, counts map[string]int) {
	for _, k := range []string{"created", "corroborated", "corrected", "superseded_previous", "historical", "ended", "blocked_by_tombstone", "refused", "episodes"} {
		if counts[k] > 0 {
			fmt.Fprintf(w, "%-22s %d\n", k, counts[k])
		}
	}
}

type serviceSink struct {
	svc   *memory.Service
	scope entity.Scope
}

func (s *serviceSink) facts(ctx context.Context, fs []memory.FactInput) ([]memory.FactResult, error) {
	return s.svc.AddFacts(ctx, s.scope, fs)
}

func (s *serviceSink) episode(ctx context.Context, ep memory.EpisodeInput) error {
	_, _, err := s.svc.AddEpisode(ctx, s.scope, ep)
	return err
}

type httpSink struct{ c *apiClient }

func (s *httpSink) facts(ctx context.Context, fs []memory.FactInput) ([]memory.FactResult, error) {
	var out struct {
		Results []memory.FactResult `json:"results"`
	}
	err := s.c.do(ctx, "POST", "/v1/facts", map[string]any{"facts": fs}, &out)
	return out.Results, err
}

func (s *httpSink) episode(ctx context.Context, ep memory.EpisodeInput) error {
	return s.c.do(ctx, "POST", "/v1/episodes", ep, nil)
}
