package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

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
				{Name: "limit", Type: "integer", Description: "page size (default: every fact, up to 10,000)"},
				{Name: "cursor", Type: "string"},
			},
			Response: FactList{}, Errors: []int{http.StatusBadRequest, http.StatusNotFound}},
		Endpoint{Method: "GET", Path: "/v1/entities/:id/graph", Tag: "entities",
			Summary: "The graph around an entity as of a valid time: its relationships and its neighbours' (depth 2), ended ones included, and its literal values; bounded.",
			Query: []Param{
				{Name: "as_of", Type: "date-time", Description: "valid time (default now); later facts are left out"},
				{Name: "depth", Type: "integer", Enum: []string{"1", "2"}, Description: "hops from the entity (default 2)"},
				{Name: "limit", Type: "integer", Description: "most entities returned, the centre included (default 60, at most 200)"},
			},
			Response: EntityGraph{}, Errors: []int{http.StatusBadRequest, http.StatusNotFound}},
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
	q := newQuery(c, "predicate", "known_at", "limit", "cursor")
	pred := q.str("predicate", memory.MaxPredLen)
	knownAt := q.time("known_at")
	limit := q.limit()
	offset := 0
	if cur := q.get("cursor"); cur != "" {
		n, err := strconv.Atoi(cur)
		if err != nil || n < 0 {
			q.fe.Add("cursor", "not a cursor this endpoint returned")
		}
		offset = n
	}
	if err := q.err(); err != nil {
		Error(c, err)
		return
	}
	fs, err := s.svc.Timeline(c.Request.Context(), Scope(c), c.Param("id"), pred, knownAt)
	if err != nil {
		Error(c, err)
		return
	}
	// A page of the ordered timeline: the cursor is the offset of the next.
	fs = fs[min(offset, len(fs)):]
	var next *string
	if limit > 0 && len(fs) > limit {
		fs = fs[:limit]
		next = optional(strconv.Itoa(offset + limit))
	}
	c.JSON(http.StatusOK, FactList{Items: NewFacts(fs, time.Time{}, s.now()), NextCursor: next})
}

// GraphNode is an entity of an EntityGraph.
type GraphNode struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Type  string `json:"type"`
	Depth int    `json:"depth" doc:"hops from the centre (0 for the centre)"`
}

// EntityGraph answers GET /v1/entities/{id}/graph.
type EntityGraph struct {
	AsOf      time.Time   `json:"as_of"`
	Nodes     []GraphNode `json:"nodes" doc:"the centre first"`
	Edges     []Fact      `json:"edges" doc:"facts between the nodes and the centre's literal values, status derived at as_of"`
	Truncated bool        `json:"truncated" doc:"a bound left some entities or facts out"`
}

func (s *Server) entityGraph(c *gin.Context) {
	q := newQuery(c, "as_of", "depth", "limit")
	asOf := q.time("as_of")
	depth := 2
	if q.enum("depth", "1", "2") == "1" {
		depth = 1
	}
	limit := q.limit()
	if err := q.err(); err != nil {
		Error(c, err)
		return
	}
	n, err := s.svc.Neighbourhood(c.Request.Context(), Scope(c), c.Param("id"),
		memory.NeighbourhoodQuery{AsOf: asOf, Depth: depth, Nodes: limit})
	if err != nil {
		Error(c, err)
		return
	}
	out := EntityGraph{AsOf: n.AsOf.UTC(), Nodes: make([]GraphNode, len(n.Nodes)), Edges: NewFacts(n.Edges, n.AsOf, s.now()), Truncated: n.Truncated}
	for i, nd := range n.Nodes {
		out.Nodes[i] = GraphNode{ID: nd.Entity.ID, Name: nd.Entity.Name, Type: nd.Entity.Type, Depth: nd.Depth}
	}
	c.JSON(http.StatusOK, out)
}
