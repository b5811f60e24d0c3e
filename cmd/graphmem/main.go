// Command graphmem is graphmem's single binary: the server (serve), its
// client commands, and the benchmark and evaluation tools.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// command is one subcommand: it parses its own flags from args.
type command struct {
	summary string
	run     func(ctx context.Context, args []string) error
}

var commands = map[string]command{
	"serve":    {"run the HTTP server", runServe},
	"facts":    {"list facts (as of a time, as known at a time, with history) from the server or --data", runFacts},
	"timeline": {"every fact of an entity over time, from the server or --data", runTimeline},
	"ingest":   {"load a JSON Lines file of facts (offline with --data, else into the server)", runIngest},
	"bench":    {"generate a synthetic workload and measure ingestion and recall", runBench},
	"mcp":      {"MCP server on stdio: memory tools for agents (--data DIR, or GRAPHMEM_URL)", runMCP},
	"search":   {"ranked facts, entities and episodes for a query, from the server", runSearch},
	"context":  {"the context block for a question, as an agent gets it, from the server", runContext},
	"forget":   {"forget or purge facts (by id, entity, query or episode) on the server", runForget},
	"reindex":  {"rebuild the search index of a data folder from the store (server stopped)", runReindex},
	"eval":     {"eval locomo: evidence recall@k on LoCoMo next to a BM25 baseline", runEval},
}

func main() {
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
		usage()
		return nil
	}
	c, ok := commands[args[0]]
	if !ok {
		usage()
		return fmt.Errorf("unknown command %q", args[0])
	}
	return c.run(ctx, args[1:])
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: graphmem <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun 'graphmem <command> -h' for a command's flags.")
}
