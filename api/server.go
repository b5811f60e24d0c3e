package api

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/memory"
)

// Defaults for Options left zero.
const (
	DefaultMaxBodyBytes   = 4 << 20
	DefaultMaxImportBytes = 1 << 30
	DefaultWaitTimeout    = 60 * time.Second
	DefaultBodyTimeout    = 30 * time.Second
	DefaultImportTimeout  = 30 * time.Minute
	// DefaultAuthFailures failed authentications a client address may make
	// at once; it regains one every DefaultAuthFailureEvery.
	DefaultAuthFailures     = 20
	DefaultAuthFailureEvery = 3 * time.Second
)

// Options configure a Server.
type Options struct {
	// Service answers every /v1 request.
	Service *memory.Service
	// Keys maps each API key to the scopes it may use, the first being the
	// default. Empty means development mode: no authentication, scope
	// "default" or the one named by the X-Graphmem-Scope header.
	Keys map[string][]string
	// KeyNames names keys (key → name) for audit records: the actor of a
	// named key is "key:<name>". An unnamed key's actor is "key:" and the
	// first 12 hex digits of HMAC-SHA256(ActorSecret, key): stable for a
	// secret, and telling nothing about the key without it. ActorSecret is
	// random for the process when empty.
	KeyNames    map[string]string
	ActorSecret []byte
	// BodyTimeout bounds the time to read a request body (DefaultBodyTimeout
	// when 0), ImportTimeout that of POST /v1/import (DefaultImportTimeout):
	// a body that trickles in does not hold a connection forever (408).
	BodyTimeout   time.Duration
	ImportTimeout time.Duration
	// AuthFailures wrong API keys a client address may send at once; it
	// regains one every AuthFailureEvery. Past that, its wrong keys are
	// answered 429; a valid key is served all the same (defaults
	// DefaultAuthFailures, DefaultAuthFailureEvery).
	AuthFailures     int
	AuthFailureEvery time.Duration
	// Logger receives one line per request and every internal error;
	// slog.Default() when nil.
	Logger *slog.Logger
	// Registry receives the HTTP and ingestion metrics and is served at
	// /metrics; a new registry when nil.
	Registry *prometheus.Registry
	// MaxBodyBytes bounds JSON request bodies (DefaultMaxBodyBytes when 0);
	// MaxImportBytes bounds POST /v1/import (DefaultMaxImportBytes when 0).
	MaxBodyBytes   int64
	MaxImportBytes int64
	// WaitTimeout bounds POST /v1/episodes?wait=true; past it the episode is
	// answered as it stands (DefaultWaitTimeout when 0).
	WaitTimeout time.Duration
	// Ready reports whether the server can serve (GET /readyz); the store's
	// Ping when nil.
	Ready func(ctx context.Context) error
	// Now is the clock used to derive fact statuses; time.Now when nil.
	Now func() time.Time
	// AllowedOrigins lists the web origins ("https://app.example.com",
	// scheme, host and port as a browser sends them in Origin) whose pages
	// may call /v1 and /mcp: they are answered with CORS headers. A
	// browser's request from any other origin than the server's own is
	// refused (see checkOrigin). Each must be a well-formed origin
	// (ParseOrigin).
	AllowedOrigins []string
	// Followers name the store's followers (search_index, vector_index)
	// and tell how far each is behind it: /readyz shows it, and /metrics
	// as graphmem_<name>_lag_changes and graphmem_<name>_lag_seconds.
	Followers map[string]func() graph.Lag
}

// Server is graphmem's HTTP API.
type Server struct {
	svc     *memory.Service
	keys    map[[sha256.Size]byte]apiKey
	origins map[string]bool
	limiter *failureLimiter
	log     *slog.Logger
	reg     *prometheus.Registry
	metrics *metrics
	opts    Options

	engine *gin.Engine
	v1     *gin.RouterGroup
	docs   []Endpoint
	// heldScopes are the scopes seen holding records (warnEmptyScope).
	heldScopes sync.Map
}

func init() { gin.SetMode(gin.ReleaseMode) }

// New returns a Server with every route of this package registered.
func New(o Options) *Server {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Registry == nil {
		o.Registry = prometheus.NewRegistry()
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxImportBytes <= 0 {
		o.MaxImportBytes = DefaultMaxImportBytes
	}
	if o.WaitTimeout <= 0 {
		o.WaitTimeout = DefaultWaitTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultBodyTimeout
	}
	if o.ImportTimeout <= 0 {
		o.ImportTimeout = DefaultImportTimeout
	}
	if o.AuthFailures <= 0 {
		o.AuthFailures = DefaultAuthFailures
	}
	if o.AuthFailureEvery <= 0 {
		o.AuthFailureEvery = DefaultAuthFailureEvery
	}
	if len(o.ActorSecret) == 0 {
		o.ActorSecret = make([]byte, 32)
		_, _ = rand.Read(o.ActorSecret)
	}
	s := &Server{svc: o.Service, log: o.Logger, reg: o.Registry, opts: o, keys: map[[sha256.Size]byte]apiKey{},
		limiter: newFailureLimiter(o.AuthFailures, o.AuthFailureEvery)}
	s.origins = map[string]bool{}
	for _, o := range o.AllowedOrigins {
		s.origins[o] = true
	}
	for k, scopes := range o.Keys {
		s.keys[sha256.Sum256([]byte(k))] = apiKey{scopes: scopes, actor: keyActor(k, o.KeyNames[k], o.ActorSecret)}
	}
	s.metrics = newMetrics(o.Registry)
	registerLags(o.Registry, o.Followers)

	e := gin.New()
	// Route on the escaped path so a name with a slash can be a path
	// parameter (/v1/entities/a%2Fb/timeline).
	e.UseRawPath = true
	// Predictable routing: no redirects a client has to follow, and 404 in
	// the one error shape for anything unknown.
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	// A known path with another method answers 405 with Allow (gin sets
	// the header), in the one error shape.
	e.HandleMethodNotAllowed = true
	e.ContextWithFallback = true
	e.Use(s.observe, s.recover, s.checkHost, s.checkOrigin, s.bodyDeadline)
	e.NoRoute(func(c *gin.Context) {
		Error(c, entity.Errorf(entity.ENOTFOUND, "no route %s %s", c.Request.Method, c.Request.URL.Path))
	})
	e.NoMethod(func(c *gin.Context) {
		Error(c, entity.Errorf(entity.EMETHOD, "%s does not answer %s (Allow: %s)", c.Request.URL.Path, c.Request.Method, c.Writer.Header().Get("Allow")))
	})
	s.engine = e
	s.v1 = e.Group("/v1", s.authenticate, s.checkMediaType, s.warnEmptyScope)

	s.registerOpsRoutes()
	s.registerFactRoutes()
	s.registerEntityRoutes()
	s.registerEpisodeRoutes()
	s.registerExportRoutes()
	s.registerForgetRoutes()
	s.registerSessionRoutes()
	s.registerOntologyRoutes()
	return s
}

// Handler returns the HTTP handler serving every route.
func (s *Server) Handler() http.Handler { return s.engine }

// Group returns the authenticated /v1 route group: handlers registered on
// it find the request's scope with Scope(c). Every route added must also be
// described with Document.
func (s *Server) Group() *gin.RouterGroup { return s.v1 }

// Mount serves h for GET and HEAD requests to prefix without its final
// slash and to every path under prefix (e.g. "/ui/"), outside the /v1
// group: h needs no API key, so it must serve nothing from the store.
func (s *Server) Mount(prefix string, h http.Handler) {
	wrapped := gin.WrapH(h)
	for _, p := range []string{strings.TrimSuffix(prefix, "/"), prefix + "*path"} {
		s.engine.GET(p, wrapped)
		s.engine.HEAD(p, wrapped)
	}
}

// Redirect answers GET and HEAD requests to path with a 302 to target,
// outside the /v1 group like Mount: the address a newcomer types ("/")
// leads to the web view.
func (s *Server) Redirect(path, target string) {
	h := func(c *gin.Context) { c.Redirect(http.StatusFound, target) }
	s.engine.GET(path, h)
	s.engine.HEAD(path, h)
}

// Service returns the memory service the server calls.
func (s *Server) Service() *memory.Service { return s.svc }

// Registry returns the metrics registry served at /metrics.
func (s *Server) Registry() *prometheus.Registry { return s.reg }

// DevelopmentMode reports whether the server runs without API keys.
func (s *Server) DevelopmentMode() bool { return len(s.keys) == 0 }

func (s *Server) now() time.Time { return s.opts.Now().UTC() }
