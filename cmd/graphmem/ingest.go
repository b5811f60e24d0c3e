package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/graphmem/graphmem/api/wire"
	gmclient "github.com/graphmem/graphmem/client"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/mcp"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/temporal"
)

// runIngest loads a JSON Lines file of facts (memory.FactInput) and
// episodes (lines with "content") — through a running server, or offline
// into the store with --data or --store. The whole file is read and checked
// before anything is written, so a bad line leaves the store untouched
// unless --continue-on-error asks to load the good lines anyway.
func runIngest(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	resolve := configFlags(fs, `ingest [--batch N] [--continue-on-error] [--quiet] FILE.jsonl

Loads a JSON Lines file of facts (the shape of one fact of POST /v1/facts) and
episodes (lines with "content") into the server at --url (GRAPHMEM_URL), or with
--data or --store straight into the store. Times are RFC 3339 or plain dates.
Every line is checked before anything is written: a bad line (reported with its
line number) leaves the store untouched, unless --continue-on-error.`, clientSettings, storeSettings)
	scope := fs.String("scope", "", `scope to write into: offline, default "default"; with a server, which of the key's scopes`)
	batch := fs.Int("batch", 500, "facts per request or transaction")
	keepGoing := fs.Bool("continue-on-error", false, "load the good lines, report the bad ones and exit with an error")
	quiet := fs.Bool("quiet", false, "no progress bar (there is none unless stderr is a terminal)")
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
	if *batch < 1 || *batch > entity.MaxBatch {
		return fmt.Errorf("--batch must be between 1 and %d", entity.MaxBatch)
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	recs, bad, err := readIngest(f)
	f.Close()
	if err != nil {
		return err
	}
	if len(bad) > 0 {
		printLineErrors(os.Stderr, bad)
		if !*keepGoing {
			return fmt.Errorf("%s: %d bad line(s); nothing was written (fix them, or --continue-on-error to load the rest)", fs.Arg(0), len(bad))
		}
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
		sc := *scope
		if sc == "" {
			sc = entity.DefaultScope
		}
		sink = &serviceSink{svc: memory.New(store, onto), scope: sc}
	} else {
		sink = &httpSink{c: newAPIClient(cfg, *scope)}
	}
	set, done := func(int, int) {}, func() {}
	if !*quiet {
		set, done = progress("ingesting")
	}
	written := 0
	counts, refused, err := writeIngest(ctx, recs, sink, *batch, *keepGoing, func(n int) {
		written += n
		set(written, len(recs))
	})
	done()
	printCounts(os.Stdout, counts)
	if len(refused) > 0 {
		printLineErrors(os.Stderr, refused)
	}
	if err != nil {
		return err
	}
	if n := len(bad) + len(refused); n > 0 {
		return fmt.Errorf("%s: %d line(s) not loaded", fs.Arg(0), n)
	}
	return nil
}

// isTerminal reports whether f is a terminal: progress bars repaint in
// place, which only makes sense there (not in a log file or a pipe).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// ingestRecord is one line of an ingest file: a fact or an episode.
type ingestRecord struct {
	line    int
	fact    *memory.FactInput
	episode *memory.EpisodeInput
}

// lineError is what is wrong with one line of the file.
type lineError struct {
	line int
	msg  string
}

func (e lineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// maxLineErrors bounds the bad lines printed.
const maxLineErrors = 20

func printLineErrors(w io.Writer, errs []lineError) {
	for i, e := range errs {
		if i == maxLineErrors {
			fmt.Fprintf(w, "… and %d more\n", len(errs)-i)
			break
		}
		fmt.Fprintln(w, e.Error())
	}
}

// readIngest reads and checks every line — JSON shape, times, the domain
// rules a server would apply — before anything is written.
func readIngest(r io.Reader) ([]ingestRecord, []lineError, error) {
	var recs []ingestRecord
	var bad []lineError
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), entity.MaxEpisodeBytes+64<<10)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 || b[0] == '#' {
			continue
		}
		rec, err := readLine(b)
		if err != nil {
			bad = append(bad, lineError{line, err.Error()})
			continue
		}
		rec.line = line
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	return recs, bad, nil
}

func readLine(b []byte) (ingestRecord, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return ingestRecord{}, errors.New("not a JSON object")
	}
	b, err := readTimes(probe, "valid_from", "valid_to", "reference_time")
	if err != nil {
		return ingestRecord{}, err
	}
	if _, isEpisode := probe["content"]; isEpisode {
		var ep memory.EpisodeInput
		if err := strictUnmarshal(b, &ep); err != nil {
			return ingestRecord{}, err
		}
		if err := memory.ValidateEpisode(&ep); err != nil {
			return ingestRecord{}, fieldsOf(err, "")
		}
		return ingestRecord{episode: &ep}, nil
	}
	var fi memory.FactInput
	if err := strictUnmarshal(b, &fi); err != nil {
		return ingestRecord{}, err
	}
	if err := memory.ValidateFacts([]memory.FactInput{fi}); err != nil {
		return ingestRecord{}, fieldsOf(err, "facts[0].")
	}
	return ingestRecord{fact: &fi}, nil
}

// fieldsOf renders the field errors of err as "field: message; …", the
// fields' prefix removed.
func fieldsOf(err error, prefix string) error {
	var e *entity.Error
	if !errors.As(err, &e) || len(e.Fields) == 0 {
		return errors.New(entity.ErrorMessage(err))
	}
	parts := make([]string, 0, len(e.Fields))
	for k, v := range e.Fields {
		parts = append(parts, strings.TrimPrefix(k, prefix)+": "+v)
	}
	sort.Strings(parts)
	return errors.New(strings.Join(parts, "; "))
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

// strictUnmarshal decodes one record, refusing unknown fields, with an
// error that names the field rather than a Go type.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		return fmt.Errorf("%s: must be a JSON %s", te.Field, jsonKind(te.Type.Kind().String()))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("%s: unknown field", strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`))
	}
	return err
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "slice", "array":
		return "array"
	case "map", "struct":
		return "object"
	case "bool":
		return "boolean"
	}
	return "number"
}

// ingestSink receives batches from writeIngest.
type ingestSink interface {
	facts(ctx context.Context, fs []memory.FactInput) ([]memory.FactResult, error)
	episode(ctx context.Context, ep memory.EpisodeInput) error
}

// factField finds the fact a field error names ("facts[3].valid_to").
var factField = regexp.MustCompile(`^facts\[(\d+)\]\.?(.*)$`)

// writeIngest sends facts in batches and episodes one by one, in file
// order, counting outcomes by action. A batch the sink refuses is reported
// by file line. With keepGoing the lines it names are left out and the
// rest of the batch is sent again; without, writing stops there (lines
// before it were written: only the sink, not the file, can be wrong then).
func writeIngest(ctx context.Context, recs []ingestRecord, sink ingestSink, batch int, keepGoing bool, progress func(int)) (map[string]int, []lineError, error) {
	counts := map[string]int{}
	var refused []lineError
	var pending []ingestRecord
	flush := func() error {
		for len(pending) > 0 {
			in := make([]memory.FactInput, len(pending))
			for i, r := range pending {
				in[i] = *r.fact
			}
			res, err := sink.facts(ctx, in)
			if err == nil {
				for _, x := range res {
					counts[string(x.Action)]++
				}
				progress(len(pending))
				pending = pending[:0]
				return nil
			}
			named := linesOf(err, pending)
			if len(named) == 0 {
				return fmt.Errorf("lines %d–%d: %w", pending[0].line, pending[len(pending)-1].line, err)
			}
			if !keepGoing {
				return fmt.Errorf("%w (lines before %d were written)", named[0], pending[0].line)
			}
			refused = append(refused, named...)
			pending = slices.DeleteFunc(pending, func(r ingestRecord) bool {
				return slices.ContainsFunc(named, func(e lineError) bool { return e.line == r.line })
			})
			progress(len(named))
		}
		return nil
	}
	for _, r := range recs {
		if r.fact != nil {
			pending = append(pending, r)
			if len(pending) == batch {
				if err := flush(); err != nil {
					return counts, refused, err
				}
			}
			continue
		}
		if err := flush(); err != nil {
			return counts, refused, err
		}
		if err := sink.episode(ctx, *r.episode); err != nil {
			le := lineError{r.line, fieldsOf(err, "").Error()}
			if !keepGoing || entity.ErrorCode(err) != entity.EINVALID {
				return counts, refused, fmt.Errorf("%w (lines before %d were written)", le, r.line)
			}
			refused = append(refused, le)
		} else {
			counts["episodes"]++
		}
		progress(1)
	}
	return counts, refused, flush()
}

// linesOf maps the field errors of a refused batch to the file lines of
// the facts they name.
func linesOf(err error, batch []ingestRecord) []lineError {
	var e *entity.Error
	if !errors.As(err, &e) || len(e.Fields) == 0 {
		return nil
	}
	byLine := map[int][]string{}
	for k, v := range e.Fields {
		m := factField.FindStringSubmatch(k)
		if m == nil {
			continue
		}
		i, _ := strconv.Atoi(m[1])
		if i >= len(batch) {
			continue
		}
		byLine[batch[i].line] = append(byLine[batch[i].line], m[2]+": "+v)
	}
	out := make([]lineError, 0, len(byLine))
	for line, msgs := range byLine {
		sort.Strings(msgs)
		out = append(out, lineError{line, strings.Join(msgs, "; ")})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].line < out[j].line })
	return out
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

type httpSink struct{ c *gmclient.Client }

func (s *httpSink) facts(ctx context.Context, fs []memory.FactInput) ([]memory.FactResult, error) {
	in := make([]wire.FactInput, len(fs))
	for i := range fs {
		in[i] = mcp.WireFact(fs[i])
	}
	res, err := s.c.AddFacts(ctx, in...)
	out := make([]memory.FactResult, len(res))
	for i, r := range res {
		out[i] = memory.FactResult{FactID: r.FactID, Action: temporal.Action(r.Action), Superseded: r.Superseded, Warning: r.Warning}
	}
	return out, err
}

func (s *httpSink) episode(ctx context.Context, ep memory.EpisodeInput) error {
	_, _, err := s.c.Remember(ctx, wire.EpisodeInput(ep))
	return err
}
