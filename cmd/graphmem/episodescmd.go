package main

import (
	"context"
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
)

// runEpisodes is `graphmem episodes show ID` and `graphmem episodes list`:
// episodes with their status and what extraction made of them.
func runEpisodes(ctx context.Context, args []string) error {
	cf := newClientFlags("episodes", `episodes show ID [--json] | episodes list [--status S] [--limit N] [--json]

show prints one episode: its status, content, the facts derived from it and the
extraction report (facts proposed, kept, each dropped one with its reason, the
response format, calls and tokens), so an episode with no facts says why. list
prints the episodes, newest id last, one line each with that report's summary.`, true)
	status := cf.fs.String("status", "", "list: only episodes of this status (queued, processing, done, failed)")
	limit := cf.fs.Int("limit", 50, "list: most episodes to print")
	pos, err := cf.parse(args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || (pos[0] == "show" && len(pos) != 2) || (pos[0] == "list" && len(pos) != 1) || (pos[0] != "show" && pos[0] != "list") {
		cf.fs.Usage()
		return fmt.Errorf("episodes: want show ID or list")
	}
	if *limit < 1 {
		return fmt.Errorf("--limit must be positive")
	}
	r, err := cf.reader(ctx)
	if err != nil {
		return err
	}
	defer r.close()
	if pos[0] == "show" {
		ep, err := r.episode(ctx, pos[1])
		if err != nil {
			return err
		}
		if *cf.json {
			return printJSON(os.Stdout, ep)
		}
		printEpisode(os.Stdout, ep)
		return nil
	}
	list, err := r.episodes(ctx, *status, *limit)
	if err != nil {
		return err
	}
	if *cf.json {
		return printJSON(os.Stdout, list)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tWHEN\tSTATUS\tFACTS\tEXTRACTION\tCONTENT")
	for _, ep := range list.Items {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", ep.ID, ep.ReferenceTime.Format(time.DateOnly), ep.Status, len(ep.FactIDs),
			extractionLine(ep), clipLine(ep.Content, 60))
	}
	return tw.Flush()
}

// extractionLine is the one-line account of an episode's extraction.
func extractionLine(ep api.Episode) string {
	switch {
	case ep.Extraction != nil && ep.Status != entity.EpisodeQueued && ep.Status != entity.EpisodeProcessing:
		return ep.Extraction.Summary
	case ep.Status == entity.EpisodeQueued || ep.Status == entity.EpisodeProcessing:
		return "not extracted yet"
	}
	return "-"
}

// printEpisode prints one episode and its extraction report.
func printEpisode(w io.Writer, ep api.Episode) {
	fmt.Fprintf(w, "episode %s: %s", ep.ID, ep.Status)
	if ep.Attempts > 0 {
		fmt.Fprintf(w, " after %d attempt(s)", ep.Attempts)
	}
	fmt.Fprintln(w)
	who := ep.Speaker
	if ep.Role != "" {
		who = strings.TrimSpace(who + " (" + ep.Role + ")")
	}
	fmt.Fprintf(w, "  when:    %s\n  by:      %s\n  source:  %s\n", ep.ReferenceTime.Format(time.RFC3339), who, ep.SourceKind)
	fmt.Fprintf(w, "  content: %s\n", clipLine(ep.Content, 400))
	if ep.Error != "" {
		fmt.Fprintf(w, "  error:   %s\n", ep.Error)
	}
	fmt.Fprintf(w, "  facts:   %d %s\n", len(ep.FactIDs), strings.Join(ep.FactIDs, " "))
	x := ep.Extraction
	fmt.Fprintf(w, "extraction: %s\n", extractionLine(ep))
	if x == nil || x.Skipped != "" {
		return
	}
	var how []string
	if x.Prompt != "" {
		how = append(how, "prompt "+x.Prompt)
	}
	if x.Mode != "" {
		how = append(how, "response format "+x.Mode)
	}
	if x.Repaired {
		how = append(how, "repaired")
	}
	how = append(how, fmt.Sprintf("%d call(s), %d prompt and %d completion tokens", x.Calls, x.PromptTokens, x.CompletionTokens))
	fmt.Fprintf(w, "  %s\n", strings.Join(how, ", "))
	for _, d := range x.Dropped {
		fmt.Fprintf(w, "  dropped (%s): %s\n", d.Reason, strings.Join(nonEmpty(d.Subject, d.Predicate, d.Object), " · "))
		if d.Detail != "" {
			fmt.Fprintf(w, "    %s\n", d.Detail)
		}
	}
	for _, warn := range x.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// clipLine flattens s to one line of at most n runes.
func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func (r *remoteReader) episode(ctx context.Context, id string) (api.Episode, error) {
	return r.c.Episode(ctx, id)
}

func (r *remoteReader) episodes(ctx context.Context, status string, limit int) (api.EpisodeList, error) {
	var out api.EpisodeList
	for ep, err := range r.c.Episodes(ctx, gmclient.EpisodeQuery{Status: status, Limit: min(limit, entity.MaxPageSize)}) {
		if err != nil {
			return out, err
		}
		if out.Items = append(out.Items, ep); len(out.Items) >= limit {
			break
		}
	}
	return out, nil
}

func (r *localReader) episode(ctx context.Context, id string) (api.Episode, error) {
	ep, err := r.svc.Episode(ctx, r.scope, id)
	return wire.NewEpisode(ep), err
}

func (r *localReader) episodes(ctx context.Context, status string, limit int) (api.EpisodeList, error) {
	var out api.EpisodeList
	cursor := ""
	for {
		eps, next, err := r.svc.Episodes(ctx, r.scope, status, cursor, min(limit-len(out.Items), 100))
		if err != nil {
			return out, err
		}
		for _, e := range eps {
			out.Items = append(out.Items, wire.NewEpisode(e))
		}
		out.NextCursor = nil
		if next != "" {
			out.NextCursor = &next
		}
		if next == "" || len(out.Items) >= limit {
			return out, nil
		}
		cursor = next
	}
}
