package api

import (
	"time"

	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/graphmem/graphmem/memory"
)

func (s *Server) registerEntityRoutes() {
	g := s.v1
	g.GET("/entities", s.findEntities)
	g.GET("/entities/:id", s.getEntity)
	g.GET("/entities/:id/timeline", s.timeline)
	s.Document(
		Endpoint{Method: "GET", Path: "/v1/entities", Tag: "entities", Summary: "Find entities by name: exact, alias, then fuzzy matches.",
			Query: []Param{
				{Name: "name", Type: "string", Required: true},
				{Name: "limit", Type: "integer"},
			},
			Response: EntityMatchList{}, Errors: []int{http.StatusBadRequest}},
		Endpoint{Method: "GET", Path: "/v1/entities/:id", Tag: "entities", Summary: "One entity with the facts about it valid now.",
			Response: EntityDetail{}, Errors: []int{http.StatusNotFound}},
		Endpoint{Method: "GET", Path: "/v1/entities/:id/timeline", Tag: "entities",
			Summary: "Every fact of the entity over time, ordered by valid time, with intervals and status.",
			Query: []Param{
				{Name: "predicate", Type: "string"},
				{Name: "known_at", Type: "date-time", Description: "transaction time (default now)"},
			},
			Response: FactList{}, Errors: []int{http.StatusBadRequest, http.StatusNotFound}},
	)
}

func (s *Server) findEntities(c *gin.Context) {
	q := newQuery(c, "name", "limit")
	name := q.str("name", memory.MaxNameLen)
	limit := q.limit()
	if q.get("name") == "" {
		q.fe.Add("name", "required")
	}
	if err := q.err(); err != nil {
		Error(c, err)
		return
	}
	ms, err := s.svc.FindEntities(c.Request.Context(), Scope(c), name, limit)
	if err != nil {
		Error(c, err)
		return
	}
	out := EntityMatchList{Items: make([]EntityMatch, len(ms))}
	for i, m := range ms {
		out.Items[i] = EntityMatch{Entity: NewEntity(m.Entity), Match: string(m.Match), Score: m.Score}
	}
	c.JSON(http.StatusOK, out)
}

func (s *Server) getEntity(c *gin.Context) {
	if err := newQuery(c).err(); err != nil {
		Error(c, err)
		return
	}
	d, err := s.svc.Entity(c.Request.Context(), Scope(c), c.Param("id"))
	if err != nil {
		Error(c, err)
		return
	}
	c.JSON(http.StatusOK, EntityDetail{Entity: NewEntity(d.Entity), Facts: NewFacts(d.Facts, time.Time{}, s.now())})
}

func (s *Server) timeline(c *gin.Context) {
	q := newQuery(c, "predicate", "known_at")
	pred := q.str("predicate", memory.MaxPredLen)
	knownAt := q.time("known_at")
	if err := q.err(); err != nil {
		Error(c, err)
		return
	}
	fs, err := s.svc.Timeline(c.Request.Context(), Scope(c), c.Param("id"), pred, knownAt)
	if err != nil {
		Error(c, err)
		return
	}
	c.JSON(http.StatusOK, FactList{Items: NewFacts(fs, time.Time{}, s.now())})
}
