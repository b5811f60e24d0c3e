package api

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
)

func (s *Server) registerEntityRoutes() {
	g := s.v1
	g.GET("/entities", s.findEntities)
	g.GET("/entities/:id", s.getEntity)
	g.GET("/entities/:id/timeline", s.timeline)
	g.GET("/entities/:id/graph", s.entityGraph)
	s.Document(
		Endpoint{Method: "GET", Path: "/v1/entities", Tag: "entities", Summary: "Find entities by name: exact, alias, then fuzzy matches.",
			Query: entityQuery, Response: EntityMatchList{},
			Links: []Link{
				{Name: "entity", To: "GET /v1/entities/:id", Param: "id", From: "$response.body#/items/0/entity/id"},
				{Name: "timeline", To: "GET /v1/entities/:id/timeline", Param: "id", From: "$response.body#/items/0/entity/id"},
			}},
		Endpoint{Method: "GET", Path: "/v1/entities/:id", Tag: "entities", Summary: "One entity, by id, name or alias (a name several entities share is 409 listing their ids), with the facts about it valid now.",
			Response: EntityDetail{}, Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Endpoint{Method: "GET", Path: "/v1/entities/:id/timeline", Tag: "entities",
			Summary: "The entity, by id, name or alias (a name several entities share is 409 listing their ids), with every fact of it over time, ordered by valid time, with intervals and status.",
			Query:   timelineQuery, Response: Timeline{}, Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Endpoint{Method: "GET", Path: "/v1/entities/:id/graph", Tag: "entities",
			Summary: "The graph around an entity (by id, name or alias) as of a valid time: its relationships and its neighbours' (depth 2), ended ones included, and its literal values; bounded.",
			Query:   graphQuery, Response: EntityGraph{}, Errors: []int{http.StatusNotFound, http.StatusConflict}},
	)
}

var (
	entityQuery = []Param{
		{Name: "name", Required: true, Max: entity.MaxNameLen, Word: true},
		limitParam,
	}
	timelineQuery = []Param{
		{Name: "predicate", Max: entity.MaxPredicateLen},
		{Name: "known_at", Type: "date-time", Description: "transaction time (default now)"},
		{Name: "limit", Type: "integer", Min: 1, Max: entity.MaxPageSize, Description: "page size (default: every fact, up to 10,000)"},
		// The timeline pages by offset: its cursor is a number.
		{Name: "cursor", Description: "next_cursor of the previous page", Pattern: regexp.MustCompile(`^[0-9]{1,9}$`),
			PatternMessage: "not a cursor this endpoint returned"},
	}
	graphQuery = []Param{
		{Name: "as_of", Type: "date-time", Description: "valid time (default now); later facts are left out"},
		{Name: "depth", Type: "integer", Min: 1, Max: 2, Description: "hops from the entity (default 2)"},
		{Name: "limit", Type: "integer", Min: 1, Max: entity.MaxGraphNodes, Description: fmt.Sprintf("most entities returned, the centre included (default %d)", entity.DefaultGraphNodes)},
	}
)

func (s *Server) findEntities(c *gin.Context) {
	q, err := parseQuery(c, entityQuery...)
	if err != nil {
		Error(c, err)
		return
	}
	ms, err := s.svc.FindEntities(c.Request.Context(), Scope(c), q.str("name"), q.int("limit"))
	if err != nil {
		Error(c, err)
		return
	}
	out := EntityMatchList{Items: make([]EntityMatch, len(ms))}
	for i, m := range ms {
		out.Items[i] = EntityMatch{Entity: wire.NewEntity(m.Entity), Match: string(m.Match), Score: m.Score}
	}
	c.JSON(http.StatusOK, out)
}

func (s *Server) getEntity(c *gin.Context) {
	if _, err := parseQuery(c); err != nil {
		Error(c, err)
		return
	}
	d, err := s.svc.Entity(c.Request.Context(), Scope(c), c.Param("id"))
	if err != nil {
		Error(c, err)
		return
	}
	c.JSON(http.StatusOK, EntityDetail{Entity: wire.NewEntity(d.Entity), Facts: wire.NewFacts(d.Facts, time.Time{}, s.now())})
}

func (s *Server) timeline(c *gin.Context) {
	q, err := parseQuery(c, timelineQuery...)
	if err != nil {
		Error(c, err)
		return
	}
	limit, offset := q.int("limit"), q.int("cursor")
	d, err := s.svc.Timeline(c.Request.Context(), Scope(c), c.Param("id"), q.str("predicate"), q.time("known_at"))
	if err != nil {
		Error(c, err)
		return
	}
	// A page of the ordered timeline: the cursor is the offset of the next.
	fs := d.Facts[min(offset, len(d.Facts)):]
	var next *string
	if limit > 0 && len(fs) > limit {
		fs = fs[:limit]
		next = wire.Cursor(strconv.Itoa(offset + limit))
	}
	c.JSON(http.StatusOK, Timeline{Entity: wire.NewEntity(d.Entity), Items: wire.NewFacts(fs, time.Time{}, s.now()), NextCursor: next})
}

func (s *Server) entityGraph(c *gin.Context) {
	q, err := parseQuery(c, graphQuery...)
	if err != nil {
		Error(c, err)
		return
	}
	depth := q.int("depth")
	if depth == 0 {
		depth = 2
	}
	n, err := s.svc.Neighbourhood(c.Request.Context(), Scope(c), c.Param("id"),
		memory.NeighbourhoodQuery{AsOf: q.time("as_of"), Depth: depth, Nodes: q.int("limit")})
	if err != nil {
		Error(c, err)
		return
	}
	out := EntityGraph{AsOf: n.AsOf.UTC(), Nodes: make([]GraphNode, len(n.Nodes)), Edges: wire.NewFacts(n.Edges, n.AsOf, s.now()), Truncated: n.Truncated}
	for i, nd := range n.Nodes {
		out.Nodes[i] = GraphNode{ID: nd.Entity.ID, Name: nd.Entity.Name, Type: nd.Entity.Type, Depth: nd.Depth}
	}
	c.JSON(http.StatusOK, out)
}
