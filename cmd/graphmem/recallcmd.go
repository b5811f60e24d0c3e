package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/api/wire"
	gmclient "github.com/graphmem/graphmem/client"
	"github.com/graphmem/graphmem/search"
	"github.com/graphmem/graphmem/vector"
)

// serverClient returns a client of the running server for commands that
// only exist there (search, context, forget), with the --scope header.
func (cf *clientFlags) serverClient() (*gmclient.Client, error) {
	cfg, err := cf.resolve()
	if err != nil {
		return nil, err
	}
	return newAPIClient(cfg, *cf.scope), nil
}

// runSearch is `graphmem search QUERY`: ranked facts, entities and episodes.
func runSearch(ctx context.Context, args []string) error {
	cf := newClientFlags("search", `search [--limit N] [--as-of T] [--history] [--types fact,entity,episode] [--json] QUERY

Ranked facts, entities and episodes for QUERY, with their scores.`, false)
	limit := cf.fs.Int("limit", 10, "most hits")
	asOf := cf.fs.String("as-of", "", "valid time (RFC 3339 or YYYY-MM-DD)")
	history := cf.fs.Bool("history", false, "keep superseded and ended facts")
	types := cf.fs.String("types", "", "comma-separated: fact, entity, episode")
	pos, err := cf.parse(args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		cf.fs.Usage()
		return fmt.Errorf("search needs a QUERY")
	}
	c, err := cf.serverClient()
	if err != nil {
		return err
	}
	req := gmclient.SearchRequest{Query: strings.Join(pos, " "), Limit: *limit, IncludeHistory: *history}
	if req.AsOf, err = parseWhen("--as-of", *asOf); err != nil {
		return err
	}
	if *types != "" {
		req.Types = strings.Split(*types, ",")
	}
	out, err := c.Search(ctx, req)
	if err != nil {
		return err
	}
	if *cf.json {
		return printJSON(os.Stdout, out)
	}
	for _, l := range nameNotes(out.Unresolved, out.Ambiguous) {
		fmt.Println(l)
	}
	if l := vectorNote(out.Vectors, out.VectorsSkipped); l != "" {
		fmt.Println(l)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCORE\tTYPE\tTEXT\tID")
	for _, h := range out.Hits {
		fmt.Fprintf(tw, "%.3f\t%s\t%s\t%s\n", h.Score, h.Type, cell(h.Text), h.ID)
	}
	return tw.Flush()
}

// runContext is `graphmem context QUESTION`: the block to put in a prompt.
func runContext(ctx context.Context, args []string) error {
	cf := newClientFlags("context", `context [--max-tokens N] [--mode auto|current|history] [--format text|markdown|json] [--as-of T] QUESTION

The context block an agent gets for QUESTION: dated, sourced facts packed into
--max-tokens.`, false)
	maxTokens := cf.fs.Int("max-tokens", 0, "token budget (default 1500)")
	mode := cf.fs.String("mode", "", "auto, current or history")
	format := cf.fs.String("format", "", "text, markdown or json")
	asOf := cf.fs.String("as-of", "", "valid time (RFC 3339 or YYYY-MM-DD)")
	pos, err := cf.parse(args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		cf.fs.Usage()
		return fmt.Errorf("context needs a QUESTION")
	}
	c, err := cf.serverClient()
	if err != nil {
		return err
	}
	req := gmclient.ContextRequest{Query: strings.Join(pos, " "), MaxTokens: *maxTokens, Mode: *mode, Format: *format}
	if req.AsOf, err = parseWhen("--as-of", *asOf); err != nil {
		return err
	}
	out, err := c.Context(ctx, req)
	if err != nil {
		return err
	}
	if *cf.json {
		return printJSON(os.Stdout, out)
	}
	fmt.Println(out.Context)
	fmt.Fprintf(os.Stderr, "(%d tokens, mode %s)\n", out.Tokens, out.Mode)
	for _, l := range nameNotes(out.Unresolved, out.Ambiguous) {
		fmt.Fprintln(os.Stderr, l)
	}
	if l := vectorNote(out.Vectors, out.VectorsSkipped); l != "" {
		fmt.Fprintln(os.Stderr, l)
	}
	return nil
}

// vectorNote is the line saying that an answer went without the vector
// list although embeddings are on, and why; "" when it did not.
func vectorNote(vectors, skipped string) string {
	if vectors != "skipped" {
		return ""
	}
	return fmt.Sprintf("vectors skipped (%s): this answer was ranked without meaning search", skipped)
}

// nameNotes are the lines saying which names of a question memory knows
// nothing about, and which name several entities.
func nameNotes(unresolved, ambiguous []api.NameLink) []string {
	var out []string
	for _, n := range unresolved {
		l := fmt.Sprintf("unresolved: memory holds nothing about %q", n.Name)
		if len(n.Candidates) > 0 {
			l += " (did you mean: " + strings.Join(n.Candidates, ", ") + "?)"
		}
		out = append(out, l)
	}
	for _, n := range ambiguous {
		out = append(out, fmt.Sprintf("ambiguous: %q names %s", n.Name, strings.Join(n.Candidates, ", ")))
	}
	return out
}

// runForget is `graphmem forget`: forget or purge by ids, entity, query or
// episode, with a dry run.
func runForget(ctx context.Context, args []string) error {
	cf := newClientFlags("forget", `forget [--fact ID]... [--entity NAME_OR_ID] [--query Q] [--episode ID] [--purge] [--reason R] [--dry-run]

Forgets facts (they leave every recall path, and tombstones keep them from
coming back) or, with --purge, deletes them with their source episodes. An
entity goes with all its facts. --dry-run lists what would go, by name.`, false)
	var ids multiFlag
	cf.fs.Var(&ids, "fact", "a fact id (repeatable)")
	ent := cf.fs.String("entity", "", "forget this entity (id or name) and every fact of it")
	query := cf.fs.String("query", "", "forget the facts of the entities this query names that hold its words (a name memory does not know, or that names several entities, is refused)")
	episode := cf.fs.String("episode", "", "an episode id (with --purge: the episode and what derives only from it)")
	purge := cf.fs.Bool("purge", false, "delete physically (privacy requests) instead of forgetting")
	reason := cf.fs.String("reason", "", "why, for the audit record")
	dry := cf.fs.Bool("dry-run", false, "only list what would be removed")
	if _, err := cf.parse(args); err != nil {
		return err
	}
	c, err := cf.serverClient()
	if err != nil {
		return err
	}
	req := gmclient.ForgetRequest{FactIDs: ids, Entity: *ent, Query: *query, EpisodeID: *episode,
		Reason: *reason, DryRun: *dry, Mode: wire.ModeForget}
	if *purge {
		req.Mode = wire.ModePurge
	}
	out, err := c.Forget(ctx, req)
	if err != nil {
		return err
	}
	if *cf.json {
		return printJSON(os.Stdout, out)
	}
	verb := out.Mode
	if out.DryRun {
		verb += " (dry run)"
	}
	fmt.Printf("%s: %d facts, %d episodes, %d entities, %d tombstones\n", verb, out.Facts, out.Episodes, out.Entities, out.Tombstones)
	for _, n := range out.Resolved {
		fmt.Printf("  %q is %s (id %s)\n", n.Name, n.Entity, n.EntityID)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	for _, it := range out.Items {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", it.Type, it.ID, cell(it.Name))
	}
	return tw.Flush()
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// runReindex is `graphmem reindex`: rebuild the search index of the data
// folder from the store (the server must be stopped: it holds the folder).
func runReindex(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("reindex", flag.ContinueOnError)
	resolve := configFlags(fs, `reindex [--data DIR] [--store embedded|neo4j]

Rebuilds the search index in the data folder from the store, and the vector
index when an embedding model is configured (vectors of unchanged texts are
reused). It works on the folder itself, not through a server: stop the server
that holds the folder first.`, storeSettings, modelSettings)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("reindex takes no arguments, got %q", fs.Args())
	}
	cfg, err := resolve()
	if err != nil {
		return err
	}
	store, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close()
	idx, err := search.Rebuild(ctx, filepath.Join(cfg.Data, "index"), store)
	if err != nil {
		return err
	}
	defer idx.Close()
	n, err := idx.DocCount()
	if err != nil {
		return err
	}
	fmt.Printf("reindexed: %d documents\n", n)
	emb, identity, err := newEmbedder(cfg)
	if err != nil || emb == nil {
		return err
	}
	vec, err := vector.Rebuild(ctx, filepath.Join(cfg.Data, "vectors"), store, emb, identity)
	if err != nil {
		return err
	}
	defer vec.Close()
	fmt.Printf("vectors: %d up to change %d, %d texts embedded\n", vec.Len(), vec.Seq(), vec.Embedded())
	return nil
}
