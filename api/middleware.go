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
	"net"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/graphmem/graphmem/entity"
)

// Headers graphmem reads or writes.
const (
	// RequestIDHeader carries the request id: the client's if it sent a
	// well-formed one, else a generated one; echoed in every answer.
	RequestIDHeader = "X-Request-Id"
	// ScopeHeader picks one of the scopes the caller's key may use.
	ScopeHeader = "X-Graphmem-Scope"
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
	client := c.RemoteIP()
	if wait := s.limiter.blocked(client, time.Now()); wait > 0 {
		secs := int(math.Ceil(wait.Seconds()))
		c.Header("Retry-After", strconv.Itoa(secs))
		Error(c, entity.Errorf(entity.ERATELIMIT, "too many wrong API keys from this address; retry in %ds", secs))
		return
	}
	key, given := bearer(c.GetHeader("Authorization"))
	k, ok := s.keys[sha256.Sum256([]byte(key))]
	scopes := k.scopes
	if !given || !ok || len(scopes) == 0 {
		if given {
			// Only a wrong key counts: a request without one guesses
			// nothing.
			s.limiter.fail(client, time.Now())
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
