package api

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"mime"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/graphmem/graphmem/entity"
)

// Keys of values kept in the gin context.
const (
	ctxScope     = "graphmem.scope"
	ctxScopes    = "graphmem.scopes"
	ctxActor     = "graphmem.actor"
	ctxLogger    = "graphmem.logger"
	ctxErrorCode = "graphmem.error_code"
)

type requestIDKey struct{}

// RequestID returns the id of the request ctx belongs to, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// Scope returns the scope the request was authenticated for. It is set by
// the authentication middleware of the /v1 group and is the only source of
// a request's scope.
func Scope(c *gin.Context) entity.Scope { return c.GetString(ctxScope) }

func logger(c *gin.Context) *slog.Logger {
	if l, ok := c.Get(ctxLogger); ok {
		return l.(*slog.Logger)
	}
	return slog.Default()
}

// observe gives the request an id, then logs and measures it once it is
// answered.
func (s *Server) observe(c *gin.Context) {
	start := time.Now()
	id := c.GetHeader(RequestIDHeader)
	if !wellFormedID(id) {
		id = newRequestID()
	}
	c.Header(RequestIDHeader, id)
	l := s.log.With(slog.String("request_id", id))
	c.Set(ctxLogger, l)
	c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), requestIDKey{}, id))
	s.metrics.inflight.Inc()
	defer s.metrics.inflight.Dec()

	c.Next()

	elapsed := time.Since(start)
	route := c.FullPath()
	if route == "" {
		route = "unmatched"
	}
	status := c.Writer.Status()
	s.metrics.requests.WithLabelValues(c.Request.Method, route, strconv.Itoa(status)).Inc()
	s.metrics.latency.WithLabelValues(c.Request.Method, route).Observe(elapsed.Seconds())
	attrs := []slog.Attr{
		slog.String("method", c.Request.Method),
		slog.String("route", route),
		slog.Int("status", status),
		slog.Float64("ms", float64(elapsed.Microseconds())/1000),
		slog.Int("bytes", c.Writer.Size()),
	}
	if sc := Scope(c); sc != "" {
		attrs = append(attrs, slog.String("scope", sc))
	}
	if code := c.GetString(ctxErrorCode); code != "" {
		attrs = append(attrs, slog.String("error", code))
	}
	level := slog.LevelInfo
	if route == "/healthz" || route == "/readyz" || route == "/metrics" {
		level = slog.LevelDebug
	}
	l.LogAttrs(c.Request.Context(), level, "request", attrs...)
}

func wellFormedID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r == ':') {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// recover turns a panic — always a bug — into a logged 500 in the one error
// shape. http.ErrAbortHandler is let through: it is how a handler that has
// already started a streamed answer signals a truncated body.
func (s *Server) recover(c *gin.Context) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
			panic(v)
		}
		logger(c).LogAttrs(c.Request.Context(), slog.LevelError, "panic",
			slog.String("panic", fmt.Sprint(v)), slog.String("stack", string(debug.Stack())))
		if c.Writer.Written() {
			c.Abort()
			panic(http.ErrAbortHandler)
		}
		Error(c, &entity.Error{Code: entity.EINTERNAL, Message: fmt.Sprint(v)})
	}()
	c.Next()
}

// checkHost refuses, in development mode, a request whose Host header is
// not a loopback name. Development mode trusts every local request; a web
// page on another site could otherwise reach it by rebinding its own name
// to 127.0.0.1 (DNS rebinding) and read, write or purge memory.
func (s *Server) checkHost(c *gin.Context) {
	if s.DevelopmentMode() && !loopbackHost(c.Request.Host) {
		Error(c, entity.Errorf(entity.EPERMISSION,
			"development mode answers only requests for a loopback host (localhost, 127.0.0.1, [::1]), not %q; configure API keys to serve other names", c.Request.Host))
		return
	}
	c.Next()
}

// checkOrigin refuses a browser's request to /v1 or /mcp made by a page of
// another origin than the server's own, in development mode and with keys
// alike. A page may send a "simple" request (a POST of text or of a Blob,
// with no preflight) to any site: the answer is hidden from it, but the
// write or the purge is done. Browsers say where a request comes from in
// Sec-Fetch-Site and, for anything but a plain GET, in Origin, and a page
// can set neither; clients that are not browsers (curl, the SDKs, MCP
// hosts) send neither and are not concerned. Pages of the allowed origins
// are served, with the CORS headers their requests need.
func (s *Server) checkOrigin(c *gin.Context) {
	p := c.Request.URL.Path
	if p != MCPPath && p != "/v1" && !strings.HasPrefix(p, "/v1/") {
		c.Next()
		return
	}
	origin := c.GetHeader("Origin")
	if o, err := ParseOrigin(origin); err == nil && s.origins[o] {
		s.cors(c, origin)
		return
	}
	if header := crossOrigin(c.Request); header != "" {
		Error(c, &entity.Error{Code: entity.EPERMISSION,
			Message: "a web page of another origin may not call this server; add that origin to the allowed origins (GRAPHMEM_ALLOWED_ORIGINS) to let it",
			Fields:  map[string]string{header: "says the request comes from another site: " + c.GetHeader(header)}})
		return
	}
	c.Next()
}

// crossOrigin returns the header by which a browser says that r comes from
// a page of another origin, or "". Sec-Fetch-Site is the browser's own
// word; an older browser sends only Origin, compared with Host.
func crossOrigin(r *http.Request) string {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		// Another port of the same host is the same site, not the same
		// origin.
		return "Sec-Fetch-Site"
	case "same-origin", "none":
		return ""
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	if o, err := ParseOrigin(origin); err == nil {
		scheme, host, _ := strings.Cut(o, "://")
		if host == withoutDefaultPort(scheme, strings.ToLower(r.Host)) {
			return ""
		}
	}
	return "Origin"
}

// withoutDefaultPort drops from host the port that scheme implies, as an
// origin does.
func withoutDefaultPort(scheme, host string) string {
	return strings.TrimSuffix(host, map[string]string{"http": ":80", "https": ":443"}[scheme])
}

// ParseOrigin checks a web origin — http or https, a host, an optional
// port and nothing else — and returns it as a browser sends it in Origin:
// in lower case, without the scheme's default port.
func ParseOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("%q is not a web origin (http or https, a host and an optional port: https://app.example.com)", s)
	}
	return u.Scheme + "://" + withoutDefaultPort(u.Scheme, strings.ToLower(u.Host)), nil
}

// corsHeaders are the request headers a page of an allowed origin may send.
const corsHeaders = "Authorization, Content-Type, " + ScopeHeader + ", " + RequestIDHeader + ", Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID"

// cors lets a page of an allowed origin read the answer, and answers its
// browser's preflight (OPTIONS) itself.
func (s *Server) cors(c *gin.Context, origin string) {
	h := c.Writer.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", RequestIDHeader+", "+WarningHeader+", Retry-After, WWW-Authenticate, Mcp-Session-Id")
	if c.Request.Method == http.MethodOptions && c.GetHeader("Access-Control-Request-Method") != "" {
		h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
		h.Set("Access-Control-Allow-Headers", corsHeaders)
		h.Set("Access-Control-Max-Age", "600")
		c.AbortWithStatus(http.StatusNoContent)
		return
	}
	c.Next()
}

// checkMediaType refuses a request body that does not say it is JSON (JSON
// Lines or JSON for POST /v1/import) with 415 naming Content-Type, before
// anything is read or written. A browser lets any page send a body of
// text, of a form or of no stated type to any site without asking it
// first; one said to be JSON it does not.
func (s *Server) checkMediaType(c *gin.Context) {
	if c.Request.ContentLength == 0 {
		c.Next()
		return
	}
	want, ok := "application/json", jsonMediaType
	if c.FullPath() == "/v1/import" {
		want, ok = NDJSON, func(mt string) bool { return mt == NDJSON || mt == "application/jsonl" || jsonMediaType(mt) }
	}
	if mt, _, err := mime.ParseMediaType(c.GetHeader("Content-Type")); err != nil || !ok(mt) {
		Error(c, mediaTypeError(want))
		return
	}
	c.Next()
}

func jsonMediaType(mt string) bool { return mt == "application/json" || strings.HasSuffix(mt, "+json") }

// loopbackHost reports whether a Host header (name or address, with or
// without a port) names this machine's loopback interface.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// authenticate derives the request's scope from its credentials: an API key
// names the scopes it may use and X-Graphmem-Scope picks one (default the
// key's first). In development mode the header, or "default", is used.
func (s *Server) authenticate(c *gin.Context) {
	requested := c.GetHeader(ScopeHeader)
	if s.DevelopmentMode() {
		scope := requested
		if scope == "" {
			scope = entity.DefaultScope
		}
		if !entity.ValidScope(scope) {
			Error(c, invalid(ScopeHeader, "not a valid scope name"))
			return
		}
		c.Set(ctxScope, scope)
		c.Set(ctxActor, "development")
		c.Next()
		return
	}
	key, given := bearer(c.GetHeader("Authorization"))
	k, ok := s.keys[sha256.Sum256([]byte(key))]
	scopes := k.scopes
	if !given || !ok || len(scopes) == 0 {
		// Only a wrong key counts, and only wrong keys are held back: a
		// request without one guesses nothing, and a valid key from the
		// same address (a proxy, a NAT) is served whatever the others
		// sent.
		if given {
			client, now := c.RemoteIP(), time.Now()
			if wait := s.limiter.blocked(client, now); wait > 0 {
				secs := int(math.Ceil(wait.Seconds()))
				c.Header("Retry-After", strconv.Itoa(secs))
				Error(c, entity.Errorf(entity.ERATELIMIT, "too many wrong API keys from this address; retry in %ds", secs))
				return
			}
			s.limiter.fail(client, now)
		}
		Error(c, entity.Errorf(entity.EUNAUTHENTICATED, "a valid API key is required (Authorization: Bearer <key>)"))
		return
	}
	scope := scopes[0]
	if requested != "" {
		if !slices.Contains(scopes, requested) {
			Error(c, entity.Errorf(entity.EPERMISSION, "this API key may not use scope %q", requested))
			return
		}
		scope = requested
	}
	c.Set(ctxScope, scope)
	c.Set(ctxScopes, scopes)
	c.Set(ctxActor, k.actor)
	c.Next()
}

// apiKey is what a configured key allows and how audit records name it.
type apiKey struct {
	scopes []string
	actor  string
}

// keyActor names a key in audit records: by the name it was given, or by
// a keyed digest that cannot be reversed or recomputed without the secret
// (an unsalted hash of a short key could be).
func keyActor(key, name string, secret []byte) string {
	if name != "" {
		return "key:" + name
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(key))
	return "key:" + hex.EncodeToString(m.Sum(nil))[:12]
}

// bodyDeadline bounds the time to read a request's body, so a client that
// sends it slowly (or never) cannot hold a connection. Requests without a
// body get no deadline: the server is then already watching the connection
// for a hang-up, and a deadline would end long answers (streams, waits).
func (s *Server) bodyDeadline(c *gin.Context) {
	if c.Request.ContentLength != 0 {
		d := s.opts.BodyTimeout
		if c.FullPath() == "/v1/import" {
			d = s.opts.ImportTimeout
		}
		// Not every ResponseWriter can (a test recorder cannot); the
		// server's can.
		_ = http.NewResponseController(c.Writer).SetReadDeadline(time.Now().Add(d))
	}
	c.Next()
}

// failureLimiter counts failed authentications per client address in a
// token bucket: burst at once, then one more every interval.
type failureLimiter struct {
	mu       sync.Mutex
	burst    float64
	interval time.Duration
	clients  map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// maxLimiterClients bounds the addresses remembered; past it, those that
// have regained every token are forgotten.
const maxLimiterClients = 10000

func newFailureLimiter(burst int, interval time.Duration) *failureLimiter {
	return &failureLimiter{burst: float64(burst), interval: interval, clients: map[string]*bucket{}}
}

// refill brings b up to date at now; the caller holds the lock.
func (l *failureLimiter) refill(b *bucket, now time.Time) {
	b.tokens = min(l.burst, b.tokens+float64(now.Sub(b.at))/float64(l.interval))
	b.at = now
}

// blocked returns how long client must wait before it may try again (0:
// it may now).
func (l *failureLimiter) blocked(client string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.clients[client]
	if b == nil {
		return 0
	}
	l.refill(b, now)
	if b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) * float64(l.interval))
}

// fail records a failed authentication by client.
func (l *failureLimiter) fail(client string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.clients[client]
	if b == nil {
		if len(l.clients) >= maxLimiterClients {
			for c, old := range l.clients {
				if l.refill(old, now); old.tokens >= l.burst {
					delete(l.clients, c)
				}
			}
		}
		b = &bucket{tokens: l.burst, at: now}
		l.clients[client] = b
	}
	l.refill(b, now)
	b.tokens = max(b.tokens-1, 0)
}

// Actor names who made the request, for audit records: the API key's name
// or keyed digest (never the key), or "development".
func Actor(c *gin.Context) string { return c.GetString(ctxActor) }

func bearer(h string) (string, bool) {
	const p = "bearer "
	if len(h) <= len(p) || !strings.EqualFold(h[:len(p)], p) {
		return "", false
	}
	k := strings.TrimSpace(h[len(p):])
	return k, k != ""
}
