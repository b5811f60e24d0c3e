package api

import (
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"
)

// WarningHeader carries a warning about a request that was answered: in
// development mode, a read of a scope that holds nothing yet.
const WarningHeader = "X-Graphmem-Warning"

// warnEmptyScope, in development mode (where any scope name is accepted),
// marks a read of a scope that holds nothing yet with WarningHeader: a
// mistyped X-Graphmem-Scope ("team:nonexistant") would otherwise answer
// an empty memory as if it were the real one. Writes are never refused or
// warned: the first write to a scope is how it comes to exist. A scope
// once seen holding something is remembered, so the store is asked only
// while a scope is still empty.
func (s *Server) warnEmptyScope(c *gin.Context) {
	if !s.DevelopmentMode() || !scopedRead(c.Request) {
		c.Next()
		return
	}
	scope := Scope(c)
	if _, ok := s.heldScopes.Load(scope); !ok {
		held, err := s.svc.Store.Scopes(c.Request.Context())
		if err != nil {
			s.log.Warn("api: listing scopes", "error", err)
			c.Next()
			return
		}
		for _, h := range held {
			s.heldScopes.Store(h, true)
		}
		if !slices.Contains(held, scope) {
			c.Header(WarningHeader, `scope "`+scope+`" holds nothing yet, so this answer is empty: check the `+ScopeHeader+
				` header for a typing error (GET /v1/session lists the scopes that hold records); a write to the scope creates it`)
		}
	}
	c.Next()
}

// scopedRead reports whether r reads the records of its scope: a GET of
// facts, entities, episodes, the overview, the audit log or an export, or a
// search or context question.
func scopedRead(r *http.Request) bool {
	p := strings.TrimPrefix(r.URL.Path, "/v1/")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return p != "ontology" && p != "session"
	case http.MethodPost:
		return p == "search" || p == "context"
	}
	return false
}
