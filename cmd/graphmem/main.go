// Command graphmem is graphmem's single binary: the server (serve), its
// client commands, and the benchmark and evaluation tools.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"syscall"
)

// command is one subcommand: it parses its own flags from args.
type command struct {
	summary string
	run     func(ctx context.Context, args []string) error
}

var commands = map[string]command{
	"serve":    {"run the HTTP server (the API, /mcp, extraction workers)", runServe},
	"facts":    {"list facts (as of a time, as known at a time, with history), from the server or --data", runFacts},
	"timeline": {"every fact of an entity (id, name or alias) over time, from the server or --data", runTimeline},
	"episodes": {"episodes show ID | list: an episode's status and extraction report (what was proposed, kept, dropped and why)", runEpisodes},
	"ingest":   {"load a JSON Lines file of facts and episodes into the server, or into --data", runIngest},
	"search":   {"ranked facts, entities and episodes for a query, from the server", runSearch},
	"context":  {"the context block for a question, as an agent gets it, from the server", runContext},
	"forget":   {"forget or purge facts (by id, entity, query or episode) on the server", runForget},
	"reindex":  {"rebuild the search index of a data folder from the store (server stopped)", runReindex},
	"mcp":      {"MCP server on stdio: memory tools for agents (the server at GRAPHMEM_URL, or --data)", runMCP},
	"bench":    {"generate a synthetic workload and measure ingestion, recall and episodes through extraction", runBench},
	"eval":     {"eval locomo|catalog|scenarios|extract: recall, context and extraction quality, each next to a baseline", runEval},
	"version":  {"release (VERSION), commit and Go version of this binary", runVersion},
}

// gcPercent is the collector's target unless GOGC says otherwise. The live
// heap is small (tens of MB at 100k facts) while the write path allocates
// about 30 KB per fact, so Go's default of 100 collects every few batches;
// 200 halves the collections for at most one more live heap of memory.
const gcPercent = 200

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "graphmem:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(os.Stdout)
		return nil
	}
	if args[0] == "--version" || args[0] == "-version" {
		return runVersion(ctx, nil)
	}
	c, ok := commands[args[0]]
	if !ok {
		usage(os.Stderr)
		return fmt.Errorf("unknown command %q", args[0])
	}
	return c.run(ctx, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: graphmem <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, `
Client commands (facts, timeline, ingest, search, context, forget and mcp) talk
to the server at GRAPHMEM_URL (default http://127.0.0.1:8080; --url) and send
GRAPHMEM_API_KEY (--api-key). facts, timeline, ingest and mcp work on a data
folder directly with --data. Times are RFC 3339 or plain dates (2024-03-01).

Run 'graphmem <command> -h' for what a command does and its flags.`)
}
