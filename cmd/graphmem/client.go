package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/api/wire"
	gmclient "github.com/graphmem/graphmem/client"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
)

// clientFlags are the flags every read-only client command shares.
type clientFlags struct {
	resolve func() (Config, error)
	scope   *string
	json    *bool
	fs      *flag.FlagSet
}

// newClientFlags returns the flags of a client command. usage is its
// synopsis and what it does; a command that can also read a data folder
// itself (offline) gets the store settings too.
func newClientFlags(name, usage string, offline bool) *clientFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	groups := []group{clientSettings}
	scopeHelp := "which of the key's scopes to use (default: its first)"
	if offline {
		usage += "\n\nIt asks the server at --url (GRAPHMEM_URL) with --api-key (GRAPHMEM_API_KEY); with --data or\n--store it reads the store itself instead (a running server must not hold the data folder)."
		groups = append(groups, storeSettings)
		scopeHelp += `; offline, the scope to read (default "default")`
	} else {
		usage += "\n\nIt asks the server at --url (GRAPHMEM_URL) with --api-key (GRAPHMEM_API_KEY)."
	}
	return &clientFlags{
		fs:      fs,
		resolve: configFlags(fs, usage, groups...),
		scope:   fs.String("scope", "", scopeHelp),
		json:    fs.Bool("json", false, "print JSON instead of a table"),
	}
}

// parse parses flags placed before or after positional arguments and
// returns the positional ones.
func (cf *clientFlags) parse(args []string) ([]string, error) {
	var pos []string
	for {
		if err := cf.fs.Parse(args); err != nil {
			return nil, err
		}
		args = cf.fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// offline reports whether the command should read the store directly.
func (cf *clientFlags) offline() bool {
	off := false
	cf.fs.Visit(func(f *flag.Flag) { off = off || f.Name == "data" || f.Name == "store" })
	return off
}

// reader answers the client commands, from a server or from a data folder.
type reader interface {
	facts(ctx context.Context, q gmclient.FactQuery) (wire.FactList, error)
	// timeline is the entity an id or a name denotes, with its facts over
	// time (memory.Service.Timeline).
	timeline(ctx context.Context, ref, predicate string, knownAt time.Time) (wire.Timeline, error)
	// episode is one episode with its extraction report; episodes a list
	// of at most limit, of one status when status is set.
	episode(ctx context.Context, id string) (wire.Episode, error)
	episodes(ctx context.Context, status string, limit int) (wire.EpisodeList, error)
	close() error
}

func (cf *clientFlags) reader(ctx context.Context) (reader, error) {
	cfg, err := cf.resolve()
	if err != nil {
		return nil, err
	}
	if cf.offline() {
		store, err := openStore(ctx, cfg)
		if err != nil {
			return nil, err
		}
		onto, err := ontology.Load(cfg.Ontology)
		if err != nil {
			store.Close()
			return nil, err
		}
		scope := *cf.scope
		if scope == "" {
			scope = entity.DefaultScope
		}
		return &localReader{svc: memory.New(store, onto), scope: scope}, nil
	}
	return &remoteReader{c: newAPIClient(cfg, *cf.scope)}, nil
}

// newAPIClient is the API client of the client commands.
func newAPIClient(cfg Config, scope string) *gmclient.Client {
	return gmclient.New(cfg.URL, gmclient.WithAPIKey(cfg.APIKey), gmclient.WithScope(scope))
}

type remoteReader struct{ c *gmclient.Client }

func (r *remoteReader) facts(ctx context.Context, q gmclient.FactQuery) (wire.FactList, error) {
	var out wire.FactList
	want := q.Limit
	for {
		q.Limit = min(want-len(out.Items), entity.MaxPageSize)
		page, err := r.c.FactsPage(ctx, q)
		if err != nil {
			return out, err
		}
		out.Items = append(out.Items, page.Items...)
		out.NextCursor = page.NextCursor
		if page.NextCursor == nil || len(out.Items) >= want {
			return out, nil
		}
		q.Cursor = *page.NextCursor
	}
}

func (r *remoteReader) timeline(ctx context.Context, ref, predicate string, knownAt time.Time) (wire.Timeline, error) {
	return r.c.Timeline(ctx, ref, gmclient.TimelineQuery{Predicate: predicate, KnownAt: knownAt})
}

func (r *remoteReader) close() error { return nil }

type localReader struct {
	svc   *memory.Service
	scope entity.Scope
}

func (r *localReader) facts(ctx context.Context, q gmclient.FactQuery) (wire.FactList, error) {
	var out wire.FactList
	want := q.Limit
	for {
		q.Limit = min(want-len(out.Items), entity.MaxPageSize)
		fs, next, err := r.svc.Facts(ctx, r.scope, memory.FactQuery(q))
		if err != nil {
			return out, err
		}
		out.Items = append(out.Items, wire.NewFacts(fs, q.AsOf, time.Now())...)
		out.NextCursor = nil
		if next != "" {
			out.NextCursor = &next
		}
		if next == "" || len(out.Items) >= want {
			return out, nil
		}
		q.Cursor = next
	}
}

func (r *localReader) timeline(ctx context.Context, ref, predicate string, knownAt time.Time) (wire.Timeline, error) {
	d, err := r.svc.Timeline(ctx, r.scope, ref, predicate, knownAt)
	return wire.Timeline{Entity: wire.NewEntity(d.Entity), Items: wire.NewFacts(d.Facts, time.Time{}, time.Now())}, err
}

func (r *localReader) close() error { return r.svc.Store.Close() }

// runFacts is `graphmem facts`: list facts with the filters of GET
// /v1/facts.
func runFacts(ctx context.Context, args []string) error {
	cf := newClientFlags("facts", `facts [--subject S] [--predicate P] [--object O] [--as-of T] [--known-at T] [--history] [--limit N] [--json]

Lists facts: those valid at --as-of (default now), as graphmem knew them at
--known-at, or their whole history. Times are RFC 3339 or plain dates.`, true)
	subject := cf.fs.String("subject", "", "subject entity name")
	predicate := cf.fs.String("predicate", "", "predicate")
	object := cf.fs.String("object", "", "object entity name or literal value")
	asOf := cf.fs.String("as-of", "", "valid time: RFC 3339 or YYYY-MM-DD (default now)")
	knownAt := cf.fs.String("known-at", "", "transaction time: what graphmem believed then (default now)")
	history := cf.fs.Bool("history", false, "include superseded and ended facts")
	limit := cf.fs.Int("limit", 100, "most facts to print")
	pos, err := cf.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("facts takes no arguments, got %q", pos)
	}
	if *limit < 1 {
		return fmt.Errorf("--limit must be positive")
	}
	q := gmclient.FactQuery{Subject: *subject, Predicate: *predicate, Object: *object, IncludeHistory: *history, Limit: *limit}
	if q.AsOf, err = parseWhen("--as-of", *asOf); err != nil {
		return err
	}
	if q.KnownAt, err = parseWhen("--known-at", *knownAt); err != nil {
		return err
	}
	r, err := cf.reader(ctx)
	if err != nil {
		return err
	}
	defer r.close()
	list, err := r.facts(ctx, q)
	if err != nil {
		return err
	}
	if *cf.json {
		return printJSON(os.Stdout, list)
	}
	printFacts(os.Stdout, list.Items, false)
	return nil
}

// runTimeline is `graphmem timeline`: every fact of an entity over time.
func runTimeline(ctx context.Context, args []string) error {
	cf := newClientFlags("timeline", `timeline ENTITY [--predicate P] [--known-at T] [--json]

Every fact of an entity over time, in valid-time order. ENTITY is an id, a name
or an alias; a name several entities share is refused with their ids.`, true)
	predicate := cf.fs.String("predicate", "", "only this predicate")
	knownAt := cf.fs.String("known-at", "", "transaction time: what graphmem believed then (default now)")
	pos, err := cf.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		cf.fs.Usage()
		return fmt.Errorf("timeline needs one entity name or id")
	}
	k, err := parseWhen("--known-at", *knownAt)
	if err != nil {
		return err
	}
	r, err := cf.reader(ctx)
	if err != nil {
		return err
	}
	defer r.close()
	tl, err := r.timeline(ctx, pos[0], *predicate, k)
	if err != nil {
		return err
	}
	if *cf.json {
		return printJSON(os.Stdout, tl)
	}
	fmt.Printf("%s (%s)\n", tl.Entity.Name, tl.Entity.ID)
	printFacts(os.Stdout, tl.Items, true)
	return nil
}

// parseWhen reads a time flag (entity.ParseTime); "" is the zero time.
func parseWhen(flagName, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := entity.ParseTime(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %s", flagName, entity.TimeMessage)
	}
	return t, nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printFacts prints facts as a table; a timeline leads with the interval.
func printFacts(w io.Writer, fs []api.Fact, timeline bool) {
	if len(fs) == 0 {
		fmt.Fprintln(w, "no facts")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if timeline {
		fmt.Fprintln(tw, "VALID FROM\tVALID TO\tSTATUS\tSUBJECT\tPREDICATE\tOBJECT\tSOURCE\tID")
	} else {
		fmt.Fprintln(tw, "SUBJECT\tPREDICATE\tOBJECT\tVALID FROM\tVALID TO\tSTATUS\tSOURCE\tID")
	}
	for _, f := range fs {
		obj := f.Object
		if obj == "" {
			obj = f.Value
		}
		from, to := when(f.ValidFrom, "?"), when(f.ValidTo, "-")
		cells := []string{cell(f.Subject), cell(f.Predicate), cell(obj), from, to, string(f.Status), string(f.SourceKind), f.ID}
		if timeline {
			cells = []string{from, to, string(f.Status), cell(f.Subject), cell(f.Predicate), cell(obj), string(f.SourceKind), f.ID}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
}

// when formats a table time: the date alone at midnight UTC, else to the
// minute.
func when(t *time.Time, none string) string {
	if t == nil {
		return none
	}
	u := t.UTC()
	if u.Equal(u.Truncate(24 * time.Hour)) {
		return u.Format(time.DateOnly)
	}
	return u.Format("2006-01-02 15:04Z")
}

// cell keeps a table cell on one line and reasonably short.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 48 {
		s = string(r[:47]) + "…"
	}
	return s
}
