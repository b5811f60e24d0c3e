package mcp

import (
	"context"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/recall"
)

// Backend is what the tools call. Every method works in the backend's one
// scope; implementations must be safe for concurrent use. Errors are
// *entity.Error: EINVALID (with the offending fields named), ENOTFOUND,
// EUNAVAILABLE…; the tools turn them into tool errors a model can act on.
type Backend interface {
	// Remember stores an episode verbatim; facts are extracted from it in
	// the background when an extraction model is configured.
	Remember(ctx context.Context, in memory.EpisodeInput) (RememberResult, error)
	// AddFacts applies structured facts, as POST /v1/facts does.
	AddFacts(ctx context.Context, facts []memory.FactInput) ([]memory.FactResult, error)
	// Recall builds the context block for a question.
	Recall(ctx context.Context, req recall.ContextRequest) (RecallResult, error)
	// Search ranks facts, entities and episodes for a query.
	Search(ctx context.Context, req recall.SearchRequest) (SearchResult, error)
	// Timeline returns every fact of the entity best matching a name, over
	// time. Returns ENOTFOUND when no entity matches.
	Timeline(ctx context.Context, req TimelineRequest) (TimelineResult, error)
	// Forget forgets (tombstones) or purges facts, chosen by ids, entity,
	// episode or a search query.
	Forget(ctx context.Context, req ForgetRequest) (memory.ForgetResult, error)
	// Ontology describes the entity types and predicates the server knows.
	Ontology(ctx context.Context) (ontology.Description, error)
}

// RememberResult says what became of an episode.
type RememberResult struct {
	EpisodeID string   `json:"episode_id"`
	Status    string   `json:"status"`
	Created   bool     `json:"created"`
	Error     string   `json:"error,omitempty"`
	FactIDs   []string `json:"fact_ids,omitempty"`
	// Extraction says what extraction made of the episode, once it ended
	// (entity.Extraction.Summary): why it has no facts, when it has none.
	Extraction string `json:"extraction,omitempty"`
}

// RecallResult is a context block and what went into it.
type RecallResult struct {
	Context string      `json:"context"`
	Tokens  int         `json:"tokens"`
	Mode    recall.Mode `json:"mode,omitempty"`
	FactIDs []string    `json:"fact_ids"`
	// Unresolved are the names the question mentions that memory knows
	// nothing about, with the closest known names.
	Unresolved []recall.NameLink `json:"unresolved"`
	// Paths are the chains of facts the answer crosses when the question
	// joins facts through an entity it does not name.
	Paths []recall.Path `json:"paths"`
	// Vectors says whether the vector list was used (used, skipped, off)
	// and VectorsSkipped why it was skipped, as the HTTP API does.
	Vectors        string `json:"vectors,omitempty"`
	VectorsSkipped string `json:"vectors_skipped,omitempty"`
}

// Hit is one search result as a model needs it.
type Hit struct {
	Type   string        `json:"type"`
	ID     string        `json:"id"`
	Text   string        `json:"text"`
	Score  float64       `json:"score"`
	Status entity.Status `json:"status,omitempty"`
}

// SearchResult is a ranked list of hits.
type SearchResult struct {
	Hits           []Hit             `json:"hits"`
	Unresolved     []recall.NameLink `json:"unresolved"`
	Vectors        string            `json:"vectors,omitempty"`
	VectorsSkipped string            `json:"vectors_skipped,omitempty"`
}

// TimelineRequest names an entity (by name, alias or id) and optionally
// one predicate.
type TimelineRequest struct {
	Entity    string
	Predicate string
	// KnownAt is the transaction time (zero: now).
	KnownAt time.Time
}

// EntityRef names an entity.
type EntityRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type,omitempty"`
}

// Fact is a fact as the tools show it: both time axes' key dates, the
// status derived now, the supersession links and the attributes (where a
// decision's reason lives).
type Fact struct {
	ID           string         `json:"id"`
	Subject      string         `json:"subject"`
	Predicate    string         `json:"predicate"`
	Object       string         `json:"object,omitempty"`
	Value        string         `json:"value,omitempty"`
	Text         string         `json:"text,omitempty"`
	ValidFrom    *time.Time     `json:"valid_from"`
	ValidTo      *time.Time     `json:"valid_to"`
	Status       entity.Status  `json:"status"`
	Supersedes   *string        `json:"supersedes"`
	SupersededBy *string        `json:"superseded_by"`
	SourceKind   string         `json:"source_kind,omitempty"`
	Attributes   map[string]any `json:"attributes,omitempty"`
}

// TimelineResult is an entity's facts ordered by valid time.
type TimelineResult struct {
	Entity EntityRef `json:"entity"`
	Facts  []Fact    `json:"facts"`
}

// ForgetRequest selects what to forget; at least one of FactIDs, Entity,
// Query and EpisodeID is required.
type ForgetRequest struct {
	FactIDs   []string
	Entity    string
	Query     string
	EpisodeID string
	Mode      memory.ForgetMode // memory.ModeForget (default) or memory.ModePurge
	Reason    string
	DryRun    bool
}
