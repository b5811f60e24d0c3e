package api

import (
	"fmt"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/search"
)

var overviewQuery = []Param{{Name: "limit", Type: "integer", Min: 1, Max: entity.MaxRecent,
	Description: fmt.Sprintf("most changes listed (default %d)", entity.DefaultRecent)}}

// RegisterOverview adds GET /v1/overview, counted by idx, to the server
// and to its OpenAPI document.
func (s *Server) RegisterOverview(idx *search.Index) {
	s.v1.GET("/overview", s.overview(idx))
	s.Document(Endpoint{Method: "GET", Path: "/v1/overview", Tag: "operations",
		Summary: "What the scope holds (counts of facts, entities and episodes) and its latest changes, newest first.",
		Query:   overviewQuery, Response: Overview{}, Errors: []int{http.StatusBadRequest, http.StatusServiceUnavailable}})
}

func (s *Server) overview(idx *search.Index) gin.HandlerFunc {
	return func(c *gin.Context) {
		q, err := parseQuery(c, overviewQuery...)
		if err != nil {
			Error(c, err)
			return
		}
		limit := q.int("limit")
		if limit == 0 {
			limit = entity.DefaultRecent
		}
		ctx, scope := c.Request.Context(), Scope(c)
		// Read your writes: the counts and the feed's end include this
		// process's latest writes.
		if err := idx.CatchUp(ctx, s.svc.Store, scope); err != nil {
			Error(c, err)
			return
		}
		counts, err := idx.Counts(ctx, scope)
		if err != nil {
			Error(c, err)
			return
		}
		last := idx.Seq(scope)
		cs, err := s.svc.RecentChanges(ctx, scope, last-min(last, memory.RecentWindow), limit)
		if err != nil {
			Error(c, err)
			return
		}
		now := s.now()
		out := Overview{Counts: OverviewCounts{Facts: counts.Facts, Entities: counts.Entities, Episodes: counts.Episodes},
			Changes: make([]ChangeItem, len(cs))}
		for i, ch := range cs {
			item := ChangeItem{Kind: ch.Kind, ID: ch.ID, Deleted: ch.Deleted}
			switch {
			case ch.Fact != nil:
				f := wire.NewFact(*ch.Fact, now, now)
				item.Fact = &f
			case ch.Entity != nil:
				e := wire.NewEntity(*ch.Entity)
				item.Entity = &e
			case ch.Episode != nil:
				e := wire.NewEpisode(*ch.Episode)
				item.Episode = &e
			}
			out.Changes[i] = item
		}
		c.JSON(http.StatusOK, out)
	}
}
