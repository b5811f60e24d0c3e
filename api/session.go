package api

import (
	"net/http"
	"slices"

	"github.com/gin-gonic/gin"

	"github.com/graphmem/graphmem/entity"
)

// maxSessionScopes bounds the scopes listed in development mode.
const maxSessionScopes = 200

func (s *Server) registerSessionRoutes() {
	s.v1.GET("/session", s.session)
	s.Document(Endpoint{Method: "GET", Path: "/v1/session", Tag: "operations",
		Summary:  "The scope of this request and the scopes the caller may pick with X-Graphmem-Scope.",
		Response: Session{}})
}

func (s *Server) session(c *gin.Context) {
	if _, err := parseQuery(c); err != nil {
		Error(c, err)
		return
	}
	out := Session{Scope: Scope(c), DevelopmentMode: s.DevelopmentMode()}
	if out.DevelopmentMode {
		held, err := s.svc.Store.Scopes(c.Request.Context())
		if err != nil {
			Error(c, err)
			return
		}
		// The request's scope and "default" are always offered.
		slices.Sort(held)
		held = held[:min(len(held), maxSessionScopes)]
		out.Scopes = append(held, entity.DefaultScope, out.Scope)
		slices.Sort(out.Scopes)
		out.Scopes = slices.Compact(out.Scopes)
	} else {
		out.Scopes = slices.Clone(c.GetStringSlice(ctxScopes))
	}
	c.JSON(http.StatusOK, out)
}
