package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/entity"
)

// MCPPath is where MountMCP serves the Model Context Protocol endpoint.
const MCPPath = "/mcp"

type (
	scopeCtxKey struct{}
	actorCtxKey struct{}
)

// ScopeFrom returns the scope authenticated for the request ctx belongs
// to, for handlers mounted with MountMCP (which see a plain
// *http.Request, not the gin context).
func ScopeFrom(ctx context.Context) (entity.Scope, bool) {
	s, ok := ctx.Value(scopeCtxKey{}).(entity.Scope)
	return s, ok && s != ""
}

// ActorFrom returns who made the request ctx belongs to (see Actor), for
// handlers mounted with MountMCP.
func ActorFrom(ctx context.Context) string {
	a, _ := ctx.Value(actorCtxKey{}).(string)
	return a
}

// MountMCP serves h at /mcp behind the same authentication as /v1: the
// same keys, the same X-Graphmem-Scope rule, the same 401 and 403 in the
// one error shape. h finds the request's scope with ScopeFrom (and who asks with
// ActorFrom); it never reads a scope from the body. The api package does not speak MCP itself —
// cmd/graphmem passes the handler of package mcp — so the two adapters do
// not import each other.
func (s *Server) MountMCP(h http.Handler) {
	serve := func(c *gin.Context) {
		ctx := context.WithValue(c.Request.Context(), scopeCtxKey{}, Scope(c))
		ctx = context.WithValue(ctx, actorCtxKey{}, Actor(c))
		w := &errorShapeWriter{ResponseWriter: c.Writer}
		h.ServeHTTP(w, c.Request.WithContext(ctx))
		if w.buf != nil {
			// The transport refused the request in plain text: answer with
			// the same status in the one error shape.
			body, _ := json.Marshal(ErrorBody{Error: ErrorDetail{Code: wire.CodeOf(w.status), Message: strings.TrimSpace(w.buf.String())}})
			c.Header("Content-Type", "application/json")
			c.Writer.WriteHeader(w.status)
			_, _ = c.Writer.Write(body)
		}
	}
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		s.engine.Handle(method, MCPPath, s.authenticate, s.checkMediaType, serve)
	}
}

// errorShapeWriter holds back an error answer that is not JSON (the MCP
// transport's plain-text refusals) so it can be rewritten in the one error
// shape; anything else, streams included, passes straight through.
type errorShapeWriter struct {
	http.ResponseWriter
	status int
	buf    *bytes.Buffer
}

func (w *errorShapeWriter) WriteHeader(status int) {
	if status >= 400 && !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		w.status, w.buf = status, &bytes.Buffer{}
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *errorShapeWriter) Write(p []byte) (int, error) {
	if w.buf != nil {
		return w.buf.Write(p)
	}
	return w.ResponseWriter.Write(p)
}

// Flush lets streamed answers through as they are written.
func (w *errorShapeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && w.buf == nil {
		f.Flush()
	}
}

func (w *errorShapeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
