package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

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
		h.ServeHTTP(c.Writer, c.Request.WithContext(ctx))
	}
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		s.engine.Handle(method, MCPPath, s.authenticate, serve)
	}
}
