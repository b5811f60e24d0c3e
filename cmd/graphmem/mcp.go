package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/mcp"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/recall"
)

// runMCP is `graphmem mcp`: the memory tools as an MCP server on stdin and
// stdout, for a desktop client or an agent that starts graphmem as a
// subprocess. Like the other client commands it talks to the server at
// --url / GRAPHMEM_URL (default http://127.0.0.1:8080), whose key decides
// the scope; given --data or --store it works on that data folder or store
// itself instead, in the scope given by --scope. Logs go to stderr: stdout
// carries only the protocol.
func runMCP(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	resolve := configFlags(fs, `mcp [--url URL]    or    mcp --data DIR [--scope SCOPE]

An MCP server on stdio with the tools remember, add_facts, context, search,
timeline and forget (recall, the old name of context, too, for this release). Like the other client commands, every call goes to the
server at --url (GRAPHMEM_URL, default http://127.0.0.1:8080), whose API key
(GRAPHMEM_API_KEY) decides the scope. With --data (or --store) it works on that
data folder (or store) itself, without a server, in the scope given by --scope.`, storeSettings, modelSettings, clientSettings)
	scopeFlag := fs.String("scope", "", `scope of a local data folder (env GRAPHMEM_SCOPE, default "default"); with --url, which of the key's scopes to use`)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("mcp takes no arguments, got %q", fs.Args())
	}
	cfg, err := resolve()
	if err != nil {
		return err
	}
	scope := *scopeFlag
	if scope == "" {
		scope = os.Getenv("GRAPHMEM_SCOPE")
	}
	if scope != "" && !entity.ValidScope(scope) {
		return fmt.Errorf("scope: %q is not a valid scope name", scope)
	}
	// The rule of facts, timeline and ingest: a data folder or store named
	// on the command line is used directly, else the server.
	direct := false
	fs.Visit(func(f *flag.Flag) { direct = direct || f.Name == "data" || f.Name == "store" })

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts := &mcp.Options{Logger: logger, Version: version()}
	if !direct {
		// The server derives the scope from the key; --scope only picks
		// one of the key's scopes.
		if err := probeServer(ctx, cfg.URL); err != nil {
			logger.Warn(fmt.Sprintf("mcp: cannot reach graphmem at %s (%v); is `graphmem serve` running there? "+
				"Set GRAPHMEM_URL (or --url) to its address, or give --data DIR to work on a data folder without a server; "+
				"every tool call fails until it answers", cfg.URL, err))
		}
		srv := mcp.NewServer(mcp.NewRemote(cfg.URL, cfg.APIKey, scope), opts)
		return quiet(ctx, srv.Run(ctx, &sdk.StdioTransport{}))
	}
	if scope == "" {
		scope = entity.DefaultScope
	}
	local, closeLocal, err := openLocalMCP(ctx, cfg, scope, logger)
	if err != nil {
		return err
	}
	defer closeLocal()
	return quiet(ctx, mcp.NewServer(local, opts).Run(ctx, &sdk.StdioTransport{}))
}

// probeServer asks the server at url for /healthz, so that `graphmem mcp`
// says at once when nothing answers there.
func probeServer(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(url, "/")+"/healthz", nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /healthz answered %s", res.Status)
	}
	return nil
}

// quiet treats the end of the session (the client closed stdin, or a
// signal) as a normal exit.
func quiet(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil || errors.Is(err, sdk.ErrConnectionClosed) {
		return nil
	}
	return err
}

// openLocalMCP opens the store and the search index of the data folder as
// serve does, keeps the index following the store, runs extraction workers
// when a model is configured, and returns a Local backend for scope with
// the function that closes it all.
func openLocalMCP(ctx context.Context, cfg Config, scope entity.Scope, logger *slog.Logger) (*mcp.Local, func(), error) {
	onto, err := ontology.Load(cfg.Ontology)
	if err != nil {
		return nil, nil, err
	}
	store, err := openStore(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	svc := memory.New(store, onto)
	x, err := newEpisodeExtractor(cfg, onto, logger, nil)
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	idx, eng, err := openRecall(ctx, cfg, svc, logger)
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	svc.Purged = purged(store, idx, eng)
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { followIndex(bg, idx, store, logger) })
	if eng.Vectors != nil {
		wg.Go(func() { followVectors(bg, eng.Vectors, store, logger) })
	}
	if x != nil {
		svc.Extract = x
		wg.Go(func() { svc.RunWorkers(bg, int(max(cfg.Workers, 1)), logger) })
	}
	closeAll := func() {
		cancel()
		wg.Wait()
		eng.Close()
		idx.Close()
		if eng.Vectors != nil {
			eng.Vectors.Close()
		}
		store.Close()
	}
	return mcp.NewLocal(svc, eng, scope), closeAll, nil
}

// mountMCP serves the MCP tools over streamable HTTP at /mcp on m's API,
// behind the API keys: the scope the authentication middleware derives
// for each request feeds a Local backend on m's service and eng, so a
// session can never reach beyond its key's scopes.
func mountMCP(m *Main, eng *recall.Engine) {
	// With keys, every request is authenticated, so a proxy's Host header
	// is no sign of DNS rebinding; in development mode it may be.
	opts := &mcp.Options{Logger: m.Logger, Version: version(), MaxBodyBytes: m.Config.MaxBodyBytes, AnyHost: !m.API.DevelopmentMode()}
	keyOf := func(r *http.Request) (string, bool) {
		scope, ok := api.ScopeFrom(r.Context())
		return api.ActorFrom(r.Context()) + "\x00" + scope, ok
	}
	backendFor := func(r *http.Request) mcp.Backend {
		scope, ok := api.ScopeFrom(r.Context())
		if !ok {
			return nil
		}
		l := mcp.NewLocal(m.Service, eng, scope)
		l.Actor = api.ActorFrom(r.Context()) + " via mcp"
		return l
	}
	m.API.MountMCP(mcp.Handler(keyOf, backendFor, opts))
}
