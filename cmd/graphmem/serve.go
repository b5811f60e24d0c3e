package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/recall"
	"github.com/graphmem/graphmem/search"
	"github.com/graphmem/graphmem/ui"
)

// Main is the server program: it wires the store, the memory service and
// the HTTP API from a Config. Tests run it in-process on 127.0.0.1:0.
type Main struct {
	Config Config
	// Logger receives structured logs; JSON on stderr when nil.
	Logger *slog.Logger

	// Setup hooks run in Run once the service and the API exist and before
	// the server listens: the place to attach the search index, an
	// extractor (Service.Extract), more routes (API.Group, API.Document) or
	// background tasks. A failing hook stops Run.
	Setup []func(ctx context.Context, m *Main) error
	// Background tasks start when the server listens and are cancelled by
	// Close, after in-flight requests have finished and before the store
	// closes. Close waits for them to return.
	Background []func(ctx context.Context)
	// Closers run in Close after the background tasks, before the store
	// closes (e.g. the search index).
	Closers []func() error

	// Set by Run.
	Store    graph.Store
	Index    *search.Index
	Recall   *recall.Engine
	Service  *memory.Service
	Registry *prometheus.Registry
	API      *api.Server

	ln        net.Listener
	srv       *http.Server
	serveErr  chan error
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// NewMain returns a Main with the default configuration of docs/design.md §7
// (flags and environment are not read: runServe does that).
func NewMain() *Main {
	return &Main{Config: Config{
		Addr: "127.0.0.1:8080", Data: "./graphmem-data", Store: "embedded",
		MaxBodyBytes: api.DefaultMaxBodyBytes, ShutdownWait: 10 * time.Second,
	}}
}

// Run opens the store, builds the service and the API and starts serving.
// It returns once the server listens; Close stops it. In development mode
// (no API keys) it refuses to listen on anything but a loopback address.
func (m *Main) Run(ctx context.Context) (err error) {
	if m.Logger == nil {
		m.Logger = slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	cfg := m.Config
	keys, names, err := parseAPIKeys(cfg.APIKeys)
	if err != nil {
		return err
	}
	if len(keys) == 0 {
		if err := checkOpenAddr(cfg, m.Logger); err != nil {
			return err
		}
		m.Logger.Warn("development mode: no API keys configured; every request is accepted, in scope \"default\" or the X-Graphmem-Scope header")
	}
	origins, err := parseOrigins(cfg.Origins)
	if err != nil {
		return err
	}
	wait, err := positiveDuration("episode-wait", cfg.EpisodeWait)
	if err != nil {
		return err
	}
	onto, err := ontology.Load(cfg.Ontology)
	if err != nil {
		return err
	}

	store, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	m.Registry = prometheus.NewRegistry()
	m.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.Store = api.InstrumentStore(m.Registry, store)
	if c, ok := store.(cacheStats); ok {
		api.RegisterWriteCache(m.Registry, c.CacheStats)
	}
	m.Service = memory.New(m.Store, onto)
	m.Service.Journal = filepath.Join(cfg.Data, "imports")
	if m.Index, m.Recall, err = openRecall(ctx, cfg, m.Service, m.Logger); err != nil {
		return err
	}
	m.Closers = append(m.Closers, m.Index.Close, m.Recall.Close)
	m.Service.FindFacts = m.Recall.FindFacts
	m.Service.Purged = purged(store, m.Index, m.Recall)
	if _, err := m.Service.ResumeImports(ctx, m.Logger); err != nil {
		return fmt.Errorf("finishing an interrupted import: %w", err)
	}
	m.Background = append(m.Background, func(ctx context.Context) { followIndex(ctx, m.Index, m.Store, m.Logger) })
	if vec := m.Recall.Vectors; vec != nil {
		m.Closers = append(m.Closers, vec.Close)
		m.Background = append(m.Background, func(ctx context.Context) { followVectors(ctx, vec, m.Store, m.Logger) })
	}
	var secret []byte
	if len(keys) > len(names) {
		if secret, err = actorSecret(cfg.Data); err != nil {
			return err
		}
	}
	followers := map[string]func() graph.Lag{"search_index": m.Index.Lag}
	if vec := m.Recall.Vectors; vec != nil {
		followers["vector_index"] = vec.Lag
	}
	m.API = api.New(api.Options{
		Service: m.Service, Keys: keys, KeyNames: names, ActorSecret: secret, AllowedOrigins: origins,
		Logger: m.Logger, Registry: m.Registry, MaxBodyBytes: cfg.MaxBodyBytes, WaitTimeout: wait, Followers: followers,
	})
	m.API.RegisterRecall(m.Recall)
	m.API.RegisterOverview(m.Index)
	m.API.Mount(ui.Prefix, ui.Handler())
	m.API.Redirect("/", ui.Prefix)
	mountMCP(m, m.Recall)
	if m.Service.Extract, err = newEpisodeExtractor(cfg, onto, m.Logger, llmUsageMetrics(m.Registry)); err != nil {
		return fmt.Errorf("extraction model: %w", err)
	}
	for _, setup := range m.Setup {
		if err := setup(ctx, m); err != nil {
			return err
		}
	}
	m.Background = append(m.Background, func(ctx context.Context) {
		m.Service.RunSweeper(ctx, time.Hour, memory.DefaultDecay, func(err error) { m.Logger.Warn("decay sweep failed", "err", err) })
	})
	if m.Service.Extract == nil {
		m.Logger.Warn("extraction is off: no model is configured (GRAPHMEM_LLM_BASE_URL, GRAPHMEM_LLM_MODEL); " +
			"episodes are stored and searchable, but no facts are extracted from them")
	} else {
		m.Logger.Info("extraction is on", "model", cfg.LLMModel, "base_url", cfg.LLMBaseURL, "workers", max(cfg.Workers, 1))
	}
	if m.Service.Extract != nil {
		workers := int(max(cfg.Workers, 1))
		m.Background = append(m.Background, func(ctx context.Context) { m.Service.RunWorkers(ctx, workers, m.Logger) })
	}

	m.ln, err = net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	m.srv = &http.Server{
		Handler:           m.API.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(m.Logger.Handler(), slog.LevelWarn),
	}
	m.serveErr = make(chan error, 1)
	go func() { m.serveErr <- m.srv.Serve(m.ln) }()

	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m.cancel = cancel
	for _, task := range m.Background {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			task(bg)
		}()
	}
	m.Logger.Info("listening", "addr", m.Addr(), "web_view", webViewURL(m.Addr()), "store", cfg.Store, "data", cfg.Data, "development_mode", len(keys) == 0)
	return nil
}

// checkOpenAddr lets development mode (no API keys) listen only on a
// loopback address, unless open mode is on: inside a container the
// loopback address cannot be reached from outside, so there the choice is
// keys, or open mode with the port published to this machine only.
func checkOpenAddr(cfg Config, log *slog.Logger) error {
	switch cfg.OpenMode {
	case "", "off":
		if loopback(cfg.Addr) {
			return nil
		}
		return fmt.Errorf("no API keys are configured (development mode), and %q is not a loopback address: "+
			"set GRAPHMEM_API_KEYS (name:key-of-16-or-more-chars=scopeA,scopeB;key2=scopeC) to serve it with keys, "+
			"or listen on 127.0.0.1:8080 (--addr), or, in a container whose port is published only to this machine "+
			"(docker run -p 127.0.0.1:8080:8080), set GRAPHMEM_OPEN_MODE=on to serve it without keys", cfg.Addr)
	case "on":
		if !loopback(cfg.Addr) {
			log.Warn("OPEN MODE: no API keys, listening on "+cfg.Addr+": anyone who reaches this port can read, write and purge every scope. "+
				"Publish it only to this machine (docker run -p 127.0.0.1:8080:8080) or set GRAPHMEM_API_KEYS", "addr", cfg.Addr)
		}
		return nil
	default:
		return fmt.Errorf("open_mode: must be on or off, got %q", cfg.OpenMode)
	}
}

// webViewURL is where a browser on this machine finds the web view of a
// server listening on addr (a wildcard address is reached on loopback).
func webViewURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr + ui.Prefix
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + ui.Prefix
}

// openRecall opens the search index of the data folder, catches it up with
// whatever it missed (a crash, writes made while it was closed, another
// replica's writes) before anything is answered, opens the vector index
// when embeddings are configured (the engine's Vectors, caught up in the
// background) and builds the recall engine; the service's writes notify
// the indexes from then on.
func openRecall(ctx context.Context, cfg Config, svc *memory.Service, log *slog.Logger) (*search.Index, *recall.Engine, error) {
	wait, err := positiveDuration("embed-query-wait", cfg.EmbedWait)
	if err != nil {
		return nil, nil, err
	}
	var weights *recall.Weights
	if cfg.RecallWeights != "" {
		w, err := recall.LoadWeights(cfg.RecallWeights)
		if err != nil {
			return nil, nil, fmt.Errorf("recall-weights: %w", err)
		}
		weights = &w
	}
	idx, err := search.Open(filepath.Join(cfg.Data, "index"))
	if err != nil {
		return nil, nil, err
	}
	if _, err := idx.Sync(ctx, svc.Store); err != nil {
		idx.Close()
		return nil, nil, fmt.Errorf("search index catch-up: %w", err)
	}
	vec, err := openVectors(cfg, log)
	if err != nil {
		idx.Close()
		return nil, nil, err
	}
	svc.Changed = idx.Notify
	if vec != nil {
		vec.SetPredicates(svc.Ontology)
		svc.Changed = func(scope entity.Scope) {
			idx.Notify(scope)
			vec.Notify()
		}
	}
	return idx, &recall.Engine{Store: svc.Store, Index: idx, Vectors: vec, VectorWait: wait, Ontology: svc.Ontology, Logger: log,
		Weights: weights}, nil
}

// followIndex keeps the index following the store's change sequence until
// ctx ends.
func followIndex(ctx context.Context, idx *search.Index, store graph.Store, log *slog.Logger) {
	idx.Follow(ctx, store, followInterval, func(err error) { log.Warn("search index sync failed", "err", err) })
}

// purged is what a purge runs once committed (memory.Service.Purged): it
// leaves no copy of the purged text in the data folder. The index applies
// the deletions now and merges the segments that held the text, the
// vector file is written without the purged vectors, and the store
// overwrites its free pages, which still hold the records' old bytes.
func purged(store graph.Store, idx *search.Index, eng *recall.Engine) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if _, err := idx.Sync(ctx, store); err != nil {
			return err
		}
		if vec := eng.Vectors; vec != nil {
			if err := vec.Prune(ctx, store); err != nil {
				return err
			}
		}
		if err := idx.Compact(ctx); err != nil {
			return err
		}
		if sc, ok := store.(graph.Scrubber); ok {
			return sc.Scrub(ctx)
		}
		return nil
	}
}

// followInterval bounds how stale the index may be with respect to writes
// made elsewhere (other replicas on a shared Neo4j); local writes nudge it
// at once.
const followInterval = 500 * time.Millisecond

// Addr returns the address the server listens on ("" before Run).
func (m *Main) Addr() string {
	if m.ln == nil {
		return ""
	}
	return m.ln.Addr().String()
}

// Err reports a server that stopped on its own (nil channel before Run).
func (m *Main) Err() <-chan error { return m.serveErr }

// Close stops the server gracefully: it stops accepting connections,
// lets in-flight requests finish (up to Config.ShutdownWait), stops the
// background tasks and closes the store. Calling it again is harmless.
func (m *Main) Close() error {
	m.closeOnce.Do(func() {
		var errs []error
		if m.srv != nil {
			ctx, cancel := context.WithTimeout(context.Background(), max(m.Config.ShutdownWait, time.Second))
			if err := m.srv.Shutdown(ctx); err != nil {
				errs = append(errs, fmt.Errorf("shutdown: %w", err))
				m.srv.Close()
			}
			cancel()
		}
		if m.cancel != nil {
			m.cancel()
		}
		m.wg.Wait()
		for i := len(m.Closers) - 1; i >= 0; i-- {
			if err := m.Closers[i](); err != nil {
				errs = append(errs, err)
			}
		}
		if m.Store != nil {
			if err := m.Store.Close(); err != nil {
				errs = append(errs, fmt.Errorf("store: %w", err))
			}
		}
		m.closeErr = errors.Join(errs...)
	})
	return m.closeErr
}

// runServe is `graphmem serve`: run until SIGINT or SIGTERM, then shut
// down gracefully.
func runServe(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	resolve := configFlags(fs, `serve [flags]

Runs the HTTP API (/v1, /openapi.json, /metrics), the MCP tools at /mcp and the
extraction workers until SIGINT or SIGTERM. Without API keys it listens on
loopback only (development mode, scope "default").`, storeSettings, serverSettings, modelSettings)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve takes no arguments, got %q", fs.Args())
	}
	cfg, err := resolve()
	if err != nil {
		return err
	}
	m := NewMain()
	m.Config = cfg
	if err := m.Run(ctx); err != nil {
		return err
	}
	// One plain line a script (or the crash test) can read the port from.
	fmt.Fprintf(os.Stdout, "graphmem: listening on http://%s\n", m.Addr())
	var serveErr error
	select {
	case <-ctx.Done():
		m.Logger.Info("shutting down")
	case serveErr = <-m.Err():
	}
	return errors.Join(serveErr, m.Close())
}

// parseOrigins reads the comma-separated allowed origins, each as a
// browser sends it (api.ParseOrigin).
func parseOrigins(s string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		o, err := api.ParseOrigin(part)
		if err != nil {
			return nil, fmt.Errorf("allowed origins: %w", err)
		}
		out = append(out, o)
	}
	return out, nil
}

// MinKeyLen is the shortest API key graphmem accepts: a short key can be
// guessed.
const MinKeyLen = 16

var keyNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// parseAPIKeys reads "key1=scopeA,scopeB;name:key2=scopeC": each key, the
// scopes it may use (the first being its default) and, when given, the
// name audit records use for it.
func parseAPIKeys(s string) (keys map[string][]string, names map[string]string, err error) {
	keys, names = map[string][]string{}, map[string]string{}
	for i, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, list, ok := strings.Cut(part, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return nil, nil, fmt.Errorf("api keys: entry %d is not [name:]key=scope[,scope…]", i+1)
		}
		name := ""
		if n, k, named := strings.Cut(key, ":"); named && keyNameRE.MatchString(n) {
			name, key = n, k
		}
		if len(key) < MinKeyLen {
			return nil, nil, fmt.Errorf("api keys: entry %d: a key needs at least %d characters (a random one, e.g. from `openssl rand -hex 16`)", i+1, MinKeyLen)
		}
		if _, dup := keys[key]; dup {
			return nil, nil, fmt.Errorf("api keys: entry %d repeats a key", i+1)
		}
		if name != "" {
			for _, other := range names {
				if other == name {
					return nil, nil, fmt.Errorf("api keys: entry %d repeats the name %q", i+1, name)
				}
			}
			names[key] = name
		}
		var scopes []string
		for _, sc := range strings.Split(list, ",") {
			sc = strings.TrimSpace(sc)
			if sc == "" {
				continue
			}
			if !entity.ValidScope(sc) {
				return nil, nil, fmt.Errorf("api keys: entry %d: %q is not a valid scope name", i+1, sc)
			}
			scopes = append(scopes, sc)
		}
		if len(scopes) == 0 {
			return nil, nil, fmt.Errorf("api keys: entry %d has no scope", i+1)
		}
		keys[key] = scopes
	}
	return keys, names, nil
}

// actorSecret returns the secret that names unnamed API keys in audit
// records, kept in the data folder so the names last across restarts.
// (Replicas sharing a Neo4j each have their own: name the keys there.)
func actorSecret(dir string) ([]byte, error) {
	path := filepath.Join(dir, "actor-secret")
	if b, err := os.ReadFile(path); err == nil && len(b) >= 32 {
		return b, nil
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return nil, fmt.Errorf("actor secret: %w", err)
	}
	return b, nil
}

// loopback reports whether addr (host:port) names only a loopback
// interface.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
