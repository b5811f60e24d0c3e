package api

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/recall"
)

// searchRequest is the body of POST /v1/search.
type searchRequest struct {
	Query          string   `json:"query" validate:"required,notblank,max=4000"`
	Limit          *Int     `json:"limit,omitempty" validate:"omitempty,min=1,max=100" doc:"default 10"`
	AsOf           *string  `json:"as_of,omitempty" validate:"omitempty,time" doc:"valid time (default now)"`
	KnownAt        *string  `json:"known_at,omitempty" validate:"omitempty,time" doc:"transaction time (default now)"`
	IncludeHistory bool     `json:"include_history,omitempty" doc:"keep facts not valid at as_of (superseded, ended)"`
	Types          []string `json:"types,omitempty" validate:"max=3,dive,oneof=fact entity episode"`
}

// contextRequest is the body of POST /v1/context.
type contextRequest struct {
	Query   string  `json:"query" validate:"required,notblank,max=4000"`
	AsOf    *string `json:"as_of,omitempty" validate:"omitempty,time" doc:"valid time (default now)"`
	KnownAt *string `json:"known_at,omitempty" validate:"omitempty,time" doc:"transaction time (default now)"`
	// ReferenceTime is when the question is asked.
	ReferenceTime *string      `json:"reference_time,omitempty" validate:"omitempty,time" doc:"when the question is asked: relative times in it (last March, two years ago, 去年) are read against it (default as_of, else now)"`
	MaxTokens     *Int         `json:"max_tokens,omitempty" validate:"omitempty,min=50,max=32000" doc:"default 1500"`
	Mode          *recall.Mode `json:"mode,omitempty" validate:"omitempty,oneof=auto current history" doc:"default auto: history for when / before / changed / why questions, and a time named in the question (a date, month, season, year, last March, before Bob, 2025年3月) sets as_of or a period unless as_of is given"`
	Format        *string      `json:"format,omitempty" validate:"omitempty,oneof=text markdown json" doc:"default text"`
	Focus         []string     `json:"focus,omitempty" validate:"max=20,dive,required,notblank,max=256" doc:"entity names the answer is about"`
}

func nameLinks(ns []recall.NameLink) []NameLink {
	out := make([]NameLink, 0, len(ns))
	for _, n := range ns {
		out = append(out, NameLink{Name: n.Name, Candidates: append([]string{}, n.Candidates...)})
	}
	return out
}

// RegisterRecall adds POST /v1/search and POST /v1/context, answered by
// eng, to the server and to its OpenAPI document.
func (s *Server) RegisterRecall(eng *recall.Engine) {
	s.v1.POST("/search", s.postSearch(eng))
	s.v1.POST("/context", s.postContext(eng))
	bad := []int{http.StatusServiceUnavailable}
	s.Document(
		Endpoint{Method: "POST", Path: "/v1/search", Tag: "recall",
			Summary: "Ranked facts, entities and episodes for a query (BM25, entity linking, graph walk, fused ranking), each with the signals behind its score.",
			Body:    searchRequest{}, Response: SearchResponse{}, Errors: bad,
			Example: map[string]any{"query": "production database port", "limit": 5}},
		Endpoint{Method: "POST", Path: "/v1/context", Tag: "recall",
			Summary: "What to put in the prompt: dated, sourced facts (current ones, and for questions about time, change or causes their history, decisions and quotes), packed into max_tokens.",
			Body:    contextRequest{}, Response: ContextResponse{}, Errors: bad,
			Example: map[string]any{"query": "which port does the production database use?", "max_tokens": 800, "mode": "auto"}},
	)
}

// timeOrZero returns a validated optional time, zero when absent.
func timeOrZero(s *string) time.Time {
	if t := optTime(s); t != nil {
		return *t
	}
	return time.Time{}
}

func (s *Server) postSearch(eng *recall.Engine) gin.HandlerFunc {
	return func(c *gin.Context) {
		var req searchRequest
		if err := s.DecodeJSON(c, &req); err != nil {
			Error(c, err)
			return
		}
		res, err := eng.Search(c.Request.Context(), Scope(c), recall.SearchRequest{
			Query: req.Query, Limit: intOf(req.Limit), AsOf: timeOrZero(req.AsOf), KnownAt: timeOrZero(req.KnownAt),
			IncludeHistory: req.IncludeHistory, Types: req.Types,
		})
		if err != nil {
			Error(c, err)
			return
		}
		now := s.now()
		out := SearchResponse{Hits: make([]SearchHit, 0, len(res.Hits)), Unresolved: nameLinks(res.Unresolved),
			Ambiguous: nameLinks(res.Ambiguous), Vectors: res.Vectors,
			VectorsSkipped: res.VectorsSkipped}
		for _, h := range res.Hits {
			hit := SearchHit{Type: h.Type, ID: h.ID, Text: h.Text, Score: h.Score, Signals: h.Signals, Explanation: explanation(h.Explanation)}
			if hit.Signals == nil {
				hit.Signals = map[string]float64{}
			}
			switch {
			case h.Fact != nil:
				f := wire.NewFact(*h.Fact, timeOrZero(req.AsOf), now)
				hit.Fact = &f
			case h.Entity != nil:
				e := wire.NewEntity(*h.Entity)
				hit.Entity = &e
			case h.Episode != nil:
				e := wire.NewEpisode(*h.Episode)
				hit.Episode = &e
			}
			out.Hits = append(out.Hits, hit)
		}
		c.JSON(http.StatusOK, out)
	}
}

func (s *Server) postContext(eng *recall.Engine) gin.HandlerFunc {
	return func(c *gin.Context) {
		var req contextRequest
		if err := s.DecodeJSON(c, &req); err != nil {
			Error(c, err)
			return
		}
		res, err := eng.Context(c.Request.Context(), Scope(c), recall.ContextRequest{
			Query: req.Query, AsOf: timeOrZero(req.AsOf), KnownAt: timeOrZero(req.KnownAt), ReferenceTime: timeOrZero(req.ReferenceTime),
			MaxTokens: intOf(req.MaxTokens), Mode: deref(req.Mode), Format: deref(req.Format), Focus: req.Focus,
		})
		if err != nil {
			Error(c, err)
			return
		}
		now := s.now()
		out := ContextResponse{Context: res.Context, Tokens: res.Tokens, Mode: string(res.Mode), AsOf: res.AsOf,
			TimeNamed: res.TimeNamed, Period: (*wire.Period)(res.Period), Unresolved: nameLinks(res.Unresolved), Ambiguous: nameLinks(res.Ambiguous),
			Vectors: res.Vectors, VectorsSkipped: res.VectorsSkipped, Paths: paths(res.Paths),
			Facts: make([]ContextFact, 0, len(res.Facts)), Entities: make([]Entity, 0, len(res.Entities)),
			Episodes: make([]ContextEpisode, 0, len(res.Episodes))}
		for _, f := range res.Facts {
			cf := ContextFact{Fact: wire.NewFact(f.Fact, res.AsOf, now), Role: f.Role, Score: f.Score}
			out.Facts = append(out.Facts, cf)
		}
		for _, e := range res.Entities {
			out.Entities = append(out.Entities, wire.NewEntity(e))
		}
		for _, e := range res.Episodes {
			out.Episodes = append(out.Episodes, ContextEpisode{Episode: wire.NewEpisode(e.Episode), Quote: e.Quote})
		}
		c.JSON(http.StatusOK, out)
	}
}

// paths are the walked paths of a context on the wire.
func paths(ps []recall.Path) []wire.Path {
	out := make([]wire.Path, 0, len(ps))
	for _, p := range ps {
		w := wire.Path{Complete: p.Complete, Missing: p.Missing, Text: p.Text, Hops: make([]wire.PathHop, 0, len(p.Hops))}
		for _, h := range p.Hops {
			w.Hops = append(w.Hops, wire.PathHop{Entity: h.Entity, EntityID: h.EntityID, Predicate: h.Predicate, Inverse: h.Inverse,
				To: h.To, ToID: h.ToID, FactID: h.FactID, Status: string(h.Status)})
		}
		out = append(out, w)
	}
	return out
}

// explanation is a score's explanation on the wire.
func explanation(x *recall.Explanation) Explanation {
	if x == nil {
		return Explanation{}
	}
	out := Explanation{Name: x.Name, Value: x.Value, Effect: x.Effect, Combine: x.Combine}
	if len(x.Inputs) > 0 {
		out.Inputs = make(map[string]float64, len(x.Inputs))
		for _, in := range x.Inputs {
			out.Inputs[in.Name] = in.Value
		}
	}
	for _, c := range x.Children {
		out.Children = append(out.Children, explanation(c))
	}
	if x.Was != nil {
		was := explanation(x.Was)
		out.Was = &was
	}
	return out
}
