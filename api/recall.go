package api

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

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

// SearchHit is one ranked result of POST /v1/search; Signals are the
// inputs of its score.
type SearchHit struct {
	Type    string             `json:"type" doc:"fact, entity or episode"`
	ID      string             `json:"id"`
	Text    string             `json:"text"`
	Score   float64            `json:"score"`
	Signals map[string]float64 `json:"signals"`
	Fact    *Fact              `json:"fact,omitempty"`
	Entity  *Entity            `json:"entity,omitempty"`
	Episode *Episode           `json:"episode,omitempty"`
}

// SearchResponse answers POST /v1/search.
type SearchResponse struct {
	Hits []SearchHit `json:"hits"`
	// Unresolved and Ambiguous are the names the query mentions that
	// resolved to no entity, or to several.
	Unresolved []NameLink `json:"unresolved" doc:"names the query mentions that memory knows nothing about (no entity, no record holding them): none of their words' matches answers for them"`
	Ambiguous  []NameLink `json:"ambiguous" doc:"names the query mentions that denote several entities; all are used"`
	// Vectors and VectorsSkipped say whether the vector list was used.
	Vectors        string `json:"vectors" enum:"used skipped off" doc:"whether the answer was built with the vector list (embeddings): used, skipped (embeddings are on but the question's vector was not there in time: see vectors_skipped) or off (no embedding model configured)"`
	VectorsSkipped string `json:"vectors_skipped,omitempty" enum:"timeout busy failed" doc:"why the vector list was skipped: timeout (the question's vector came after the wait, GRAPHMEM_EMBED_QUERY_WAIT or sized to the embedder; it serves the question's next asking), busy (too many questions being embedded at once) or failed (the embedder failed)"`
}

// NameLink is a name a query mentions that did not resolve to exactly one
// entity.
type NameLink struct {
	Name       string   `json:"name" doc:"the name as the query writes it"`
	Candidates []string `json:"candidates" doc:"unresolved: the closest known names (did you mean), none of them used; ambiguous: the entities it may denote"`
}

func nameLinks(ns []recall.NameLink) []NameLink {
	out := make([]NameLink, 0, len(ns))
	for _, n := range ns {
		out = append(out, NameLink{Name: n.Name, Candidates: append([]string{}, n.Candidates...)})
	}
	return out
}

// ContextFact is a fact in a context, its status derived at as_of.
type ContextFact struct {
	Fact  Fact    `json:"fact"`
	Role  string  `json:"role" doc:"pinned, fact, history or decision"`
	Score float64 `json:"score"`
}

// ContextEpisode is an episode quoted in a context.
type ContextEpisode struct {
	Episode Episode `json:"episode"`
	Quote   string  `json:"quote"`
}

// ContextResponse answers POST /v1/context: the block to put in the
// prompt and the items in it, with ids for citation. The whole answer is
// bounded by max_tokens: context takes at most max_tokens estimated tokens
// and facts, entities and episodes together at most recall.ItemsPerToken ×
// max_tokens (attributes and quotes clipped), so the body is at most about
// (1 + recall.ItemsPerToken) × max_tokens × 4 bytes.
type ContextResponse struct {
	Context  string           `json:"context"`
	Facts    []ContextFact    `json:"facts"`
	Entities []Entity         `json:"entities"`
	Episodes []ContextEpisode `json:"episodes"`
	Tokens   int              `json:"tokens" doc:"estimated size of context"`
	Mode     recall.Mode      `json:"mode" doc:"the mode used: current or history"`
	AsOf     time.Time        `json:"as_of" doc:"the time whose status the facts show"`
	// TimeNamed and Period say which time a question answered for.
	TimeNamed string         `json:"time_named,omitempty" doc:"the phrase of the question that set the time of the answer (mode auto, no as_of)"`
	Period    *recall.Period `json:"period,omitempty" doc:"the range the question names; every fact valid in it is shown"`
	// Unresolved and Ambiguous: as in SearchResponse.
	Unresolved []NameLink `json:"unresolved" doc:"names the question mentions that memory knows nothing about; the context says so in one line each, and holds no other subject's facts of the asked property"`
	Ambiguous  []NameLink `json:"ambiguous" doc:"names the question mentions that denote several entities; all are used"`
	// Vectors and VectorsSkipped: as in SearchResponse.
	Vectors        string `json:"vectors" enum:"used skipped off" doc:"whether the block was built with the vector list (embeddings): used, skipped (see vectors_skipped) or off (no embedding model configured)"`
	VectorsSkipped string `json:"vectors_skipped,omitempty" enum:"timeout busy failed" doc:"why the vector list was skipped: timeout (the question's vector came after the wait), busy (too many questions being embedded at once) or failed (the embedder failed)"`
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
			hit := SearchHit{Type: h.Type, ID: h.ID, Text: h.Text, Score: h.Score, Signals: h.Signals}
			if hit.Signals == nil {
				hit.Signals = map[string]float64{}
			}
			switch {
			case h.Fact != nil:
				f := NewFact(*h.Fact, timeOrZero(req.AsOf), now)
				hit.Fact = &f
			case h.Entity != nil:
				e := NewEntity(*h.Entity)
				hit.Entity = &e
			case h.Episode != nil:
				e := NewEpisode(*h.Episode)
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
		out := ContextResponse{Context: res.Context, Tokens: res.Tokens, Mode: res.Mode, AsOf: res.AsOf,
			TimeNamed: res.TimeNamed, Period: res.Period, Unresolved: nameLinks(res.Unresolved), Ambiguous: nameLinks(res.Ambiguous),
			Vectors: res.Vectors, VectorsSkipped: res.VectorsSkipped,
			Facts: make([]ContextFact, 0, len(res.Facts)), Entities: make([]Entity, 0, len(res.Entities)),
			Episodes: make([]ContextEpisode, 0, len(res.Episodes))}
		for _, f := range res.Facts {
			cf := ContextFact{Fact: NewFact(f.Fact, res.AsOf, now), Role: f.Role, Score: f.Score}
			out.Facts = append(out.Facts, cf)
		}
		for _, e := range res.Entities {
			out.Entities = append(out.Entities, NewEntity(e))
		}
		for _, e := range res.Episodes {
			out.Episodes = append(out.Episodes, ContextEpisode{Episode: NewEpisode(e.Episode), Quote: e.Quote})
		}
		c.JSON(http.StatusOK, out)
	}
}
