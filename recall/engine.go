package recall

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/search"
	"github.com/graphmem/graphmem/vector"
)

// Engine answers search and context requests over a store and its index.
// It is safe for concurrent use. Set the exported fields, then use it;
// Close stops the background writer of hit counts.
type Engine struct {
	Store graph.Store
	Index *search.Index
	// Vectors, when set, adds the records nearest to the question in
	// meaning as one more ranked list (embeddings; nil: off).
	Vectors *vector.Index
	// VectorTimeout bounds the embedding of a question (2 s when zero);
	// a vector that comes after its answer is kept for the question's next
	// asking.
	VectorTimeout time.Duration
	// VectorWait is how long after a request begins its answer waits for
	// the question's vector: the question is embedded while the BM25
	// search, linking and walk run, and an answer whose vector is not
	// there by then is built without the vector list (and says so). Zero:
	// sized to the embedder's measured latency (QueryVectorWait).
	// Evaluations that judge the ranking with vectors set it to
	// VectorTimeout.
	VectorWait time.Duration
	Ontology   *ontology.Ontology // ontology.Default() when nil
	Now        func() time.Time   // time.Now when nil
	// Weights weigh every score of recall, episodes' and the vector
	// list's included; DefaultWeights when nil.
	Weights *Weights
	// Logger receives failures of the background hit-count writer;
	// slog.Default() when nil.
	Logger *slog.Logger
	// NoRelevanceFloor turns the relevance floor off (floor.go): what
	// evaluation compares against.
	NoRelevanceFloor bool
	// NoUnknownNames turns off the judging of names the question mentions
	// (linking.go): an unknown name is then answered with whatever matches
	// its words, what evaluation compares against.
	NoUnknownNames bool
	// NoHits leaves hit counts alone (touch.go): an evaluation that asks
	// for the same fact several times sets it, so that one asking does
	// not rank the fact higher for the next.
	NoHits bool

	once    sync.Once
	touches chan touch
	done    chan struct{}
	closed  atomic.Bool
	dropped atomic.Uint64

	slotsOnce     sync.Once
	slots         chan struct{} // questions being embedded
	vectorsUsed   atomic.Uint64
	vectorsMissed atomic.Uint64
	latency       latencies // of the question embeddings
}

// Mode says which facts a context answer draws on: the ones in force
// (current), their whole chains (history), or either, chosen from the
// question (auto).
type Mode string

// Context modes and formats.
const (
	ModeAuto    Mode = "auto"
	ModeCurrent      = "current"
	ModeHistory      = "history"

	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatJSON     = "json"
)

// SearchRequest is the body of POST /v1/search.
type SearchRequest struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
	// AsOf is the valid time (zero: now); KnownAt the transaction time
	// (zero: now).
	AsOf           time.Time `json:"as_of,omitzero"`
	KnownAt        time.Time `json:"known_at,omitzero"`
	IncludeHistory bool      `json:"include_history,omitempty"`
	// Types restricts hits to "fact", "entity" and/or "episode".
	Types []string `json:"types,omitempty"`
}

// SearchHit is one ranked result. Explanation is how its score was made
// (see the package documentation for the formula), its value the score
// before rounding; Signals are the explanation flattened
// (Explanation.Signals).
type SearchHit struct {
	Type        string             `json:"type"`
	ID          string             `json:"id"`
	Text        string             `json:"text"`
	Score       float64            `json:"score"`
	Signals     map[string]float64 `json:"signals"`
	Explanation *Explanation       `json:"explanation"`
	Fact        *entity.Fact       `json:"fact,omitempty"`
	Entity      *entity.Entity     `json:"entity,omitempty"`
	Episode     *entity.Episode    `json:"episode,omitempty"`
}

// SearchResult answers a SearchRequest.
type SearchResult struct {
	Hits []SearchHit `json:"hits"`
	// Unresolved are the names the query mentions that memory knows
	// nothing about, each with the closest known names; Ambiguous those
	// that name several entities (linking.go).
	Unresolved []NameLink `json:"unresolved"`
	Ambiguous  []NameLink `json:"ambiguous"`
	VectorState
}

// VectorState says whether an answer was built with the vector list.
type VectorState struct {
	// Vectors is VectorsUsed, VectorsSkipped or VectorsOff.
	Vectors string `json:"vectors"`
	// VectorsSkipped says why when skipped: SkippedTimeout, SkippedBusy or
	// SkippedFailed.
	VectorsSkipped string `json:"vectors_skipped,omitempty"`
}

// ContextRequest is the body of POST /v1/context.
type ContextRequest struct {
	Query   string    `json:"query"`
	AsOf    time.Time `json:"as_of,omitzero"`
	KnownAt time.Time `json:"known_at,omitzero"`
	// ReferenceTime is when the question is asked (zero: as_of, else
	// now): relative times in it ("last March") are read against it.
	ReferenceTime time.Time `json:"reference_time,omitzero"`
	MaxTokens     int       `json:"max_tokens,omitempty"`
	Mode          Mode      `json:"mode,omitempty"`
	Format        string    `json:"format,omitempty"`
	// Focus names entities the answer is about; they seed the walk as if
	// the query named them.
	Focus []string `json:"focus,omitempty"`
}

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now().UTC()
	}
	return time.Now().UTC()
}

var defaultOntology = sync.OnceValue(ontology.Default)

func (e *Engine) ontology() *ontology.Ontology {
	if e.Ontology == nil {
		return defaultOntology()
	}
	return e.Ontology
}

func validTypes(ts []string) bool {
	for _, t := range ts {
		switch t {
		case search.TypeFact, search.TypeEntity, search.TypeEpisode:
		default:
			return false
		}
	}
	return true
}

func validateQuery(fe entity.FieldErrors, q string) {
	switch {
	case strings.TrimSpace(q) == "":
		fe.Add("query", "required")
	case len(q) > entity.MaxQueryBytes:
		fe.Add("query", fmt.Sprintf("at most %d bytes", entity.MaxQueryBytes))
	case !utf8.ValidString(q):
		fe.Add("query", "must be valid UTF-8")
	}
}

func validateScope(scope entity.Scope) error {
	if !entity.ValidScope(scope) {
		return entity.Errorf(entity.EINVALID, "invalid scope %q", scope)
	}
	return nil
}

// Validate checks a search request and fills in defaults.
func (r *SearchRequest) Validate() error {
	fe := entity.FieldErrors{}
	validateQuery(fe, r.Query)
	switch {
	case r.Limit == 0:
		r.Limit = entity.DefaultSearchLimit
	case r.Limit < 0 || r.Limit > entity.MaxSearchLimit:
		fe.Add("limit", fmt.Sprintf("must be between 1 and %d", entity.MaxSearchLimit))
	}
	if !validTypes(r.Types) {
		fe.Add("types", "each must be fact, entity or episode")
	}
	return fe.Err()
}

// Validate checks a context request and fills in defaults.
func (r *ContextRequest) Validate() error {
	fe := entity.FieldErrors{}
	validateQuery(fe, r.Query)
	switch {
	case r.MaxTokens == 0:
		r.MaxTokens = entity.DefaultMaxTokens
	case r.MaxTokens < entity.MinMaxTokens || r.MaxTokens > entity.MaxMaxTokens:
		fe.Add("max_tokens", fmt.Sprintf("must be between %d and %d", entity.MinMaxTokens, entity.MaxMaxTokens))
	}
	switch r.Mode {
	case "":
		r.Mode = ModeAuto
	case ModeAuto, ModeCurrent, ModeHistory:
	default:
		fe.Add("mode", "must be auto, current or history")
	}
	switch r.Format {
	case "":
		r.Format = FormatText
	case FormatText, FormatMarkdown, FormatJSON:
	default:
		fe.Add("format", "must be text, markdown or json")
	}
	if len(r.Focus) > entity.MaxFocus {
		fe.Add("focus", fmt.Sprintf("at most %d names", entity.MaxFocus))
	}
	for _, f := range r.Focus {
		if strings.TrimSpace(f) == "" || utf8.RuneCountInString(f) > entity.MaxNameLen {
			fe.Add("focus", fmt.Sprintf("names must be 1 to %d characters", entity.MaxNameLen))
		}
	}
	return fe.Err()
}

// Search ranks facts, entities and episodes for a query (docs/design.md
// §4 steps 1–4): BM25 seeds, entity linking, a one-hop walk and fused
// ranking.
// Returns EINVALID for a bad request.
func (e *Engine) Search(ctx context.Context, scope entity.Scope, req SearchRequest) (SearchResult, error) {
	if err := validateScope(scope); err != nil {
		return SearchResult{}, err
	}
	if err := req.Validate(); err != nil {
		return SearchResult{}, err
	}
	vec := e.embedQuestion(ctx, scope, req.Query)
	if err := e.Index.CatchUp(ctx, e.Store, scope); err != nil {
		return SearchResult{}, err
	}
	defer e.Index.Querying()() // a running sync yields to it
	now := e.now()
	p := params{
		scope: scope, now: now, asOf: orNow(req.AsOf, now), knownAt: req.KnownAt,
		history: req.IncludeHistory, types: req.Types, limit: req.Limit, hops: 1,
	}
	p.a = analyze(req.Query, p.asOf)
	p.pending = vec
	var items []*item
	var names [2][]NameLink
	var use VectorState
	err := e.Store.View(ctx, scope, func(tx graph.Tx) error {
		c, err := e.retrieve(ctx, tx, p)
		if err != nil {
			return err
		}
		names = [2][]NameLink{c.unresolved, c.ambiguous}
		use = c.vectorUse()
		items = c.ranked()
		if !e.NoRelevanceFloor {
			items = c.floorFacts(items, 3*req.Limit)
		}
		if len(items) > req.Limit {
			items = items[:req.Limit]
		}
		return loadEpisodes(tx, items)
	})
	if err != nil {
		return SearchResult{}, err
	}
	res := SearchResult{Hits: make([]SearchHit, 0, len(items)), Unresolved: nonNil(names[0]), Ambiguous: nonNil(names[1]),
		VectorState: use}
	var touched []string
	for _, it := range items {
		if it.typ == search.TypeEpisode && it.episode == nil {
			continue // deleted since it was indexed
		}
		x := it.explain.finish()
		h := SearchHit{Type: it.typ, ID: it.id, Score: round(it.score), Signals: x.Signals(), Explanation: x}
		switch it.typ {
		case search.TypeFact:
			f := boundedFact(*it.fact)
			h.Fact, h.Text = &f, flatten(factSentence(it.fact))
			touched = append(touched, it.id)
		case search.TypeEntity:
			en := boundedEntity(*it.entity)
			h.Entity, h.Text = &en, clip(entityLine(it.entity), summaryRunes)
		case search.TypeEpisode:
			h.Episode, h.Text = it.episode, flatten(episodeText(it.episode))
		}
		res.Hits = append(res.Hits, h)
	}
	e.touch(scope, touched)
	return res, nil
}

func orNow(t, now time.Time) time.Time {
	if t.IsZero() {
		return now
	}
	return t.UTC()
}
