package wire

import (
	"time"

	"github.com/graphmem/graphmem/entity"
)

// The types below mirror, field for field and in the same JSON, the
// server's own (memory.FactInput, memory.EpisodeInput, memory.ForgetResult,
// memory.AuditRecord, memory.ImportResult, graph.Lag and
// ontology.Description), so a client need not import the server. A test in
// package api holds each pair to one JSON shape.

// FactInput is one structured statement sent to POST /v1/facts.
type FactInput struct {
	Subject     string     `json:"subject"`
	SubjectType string     `json:"subject_type,omitempty"`
	Predicate   string     `json:"predicate"`
	Object      string     `json:"object,omitempty"`
	ObjectType  string     `json:"object_type,omitempty"`
	Value       string     `json:"value,omitempty"`
	Text        string     `json:"text,omitempty"`
	ValidFrom   *time.Time `json:"valid_from,omitempty"`
	ValidTo     *time.Time `json:"valid_to,omitempty"`
	// StartUnknown says the fact has held since an unknown time (instead
	// of valid_from).
	StartUnknown bool              `json:"start_unknown,omitempty"`
	SourceKind   entity.SourceKind `json:"source_kind,omitempty"`
	EpisodeID    string            `json:"episode_id,omitempty"`
	Confidence   *float64          `json:"confidence,omitempty"`
	Importance   int               `json:"importance,omitempty"`
	Attributes   map[string]any    `json:"attributes,omitempty"`
	// Cardinality is a hint for a predicate the ontology does not
	// define: "one" or "many".
	Cardinality    string   `json:"cardinality,omitempty"`
	SubjectAliases []string `json:"subject_aliases,omitempty"`
	ObjectAliases  []string `json:"object_aliases,omitempty"`
}

// EpisodeInput is something that happened, sent to POST /v1/episodes.
type EpisodeInput struct {
	Content        string            `json:"content"`
	Kind           string            `json:"kind,omitempty"`
	Speaker        string            `json:"speaker,omitempty"`
	Role           string            `json:"role,omitempty"`
	ReferenceTime  *time.Time        `json:"reference_time,omitempty"`
	SourceKind     entity.SourceKind `json:"source_kind,omitempty"`
	IdempotencyKey string            `json:"idempotency_key,omitempty"`
	Metadata       map[string]any    `json:"metadata,omitempty"`
}

// Forget modes (ForgetResult.Mode): forget hides and tombstones, purge
// deletes.
const (
	ModeForget = "forget"
	ModePurge  = "purge"
)

// ForgetResult counts what a forget or purge removed (or, for a dry run,
// would remove).
type ForgetResult struct {
	Mode       string   `json:"mode"`
	DryRun     bool     `json:"dry_run,omitempty"`
	Facts      int      `json:"facts"`
	Episodes   int      `json:"episodes"`
	Entities   int      `json:"entities"`
	Tombstones int      `json:"tombstones"`
	FactIDs    []string `json:"fact_ids,omitempty"`
	// Resolved: which entity each name of a query was taken for.
	Resolved []entity.NameMatch `json:"resolved,omitempty" doc:"for a request by query, the entity each name it mentions resolved to; a query naming what memory does not know, or several entities, is refused (404 unknown, 409 several) with its candidates"`
	Items    []ForgetItem       `json:"items,omitempty"`
}

// ForgetItem is one record a forget or purge removes.
type ForgetItem struct {
	Type string `json:"type"` // fact, entity or episode
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// AuditRecord notes a forget or purge: ids, time, actor and counts.
type AuditRecord struct {
	ID        string       `json:"id"`
	At        time.Time    `json:"at"`
	Actor     string       `json:"actor,omitempty"`
	Action    string       `json:"action"`
	Reason    string       `json:"reason,omitempty"`
	FactIDs   []string     `json:"fact_ids,omitempty"`
	EpisodeID string       `json:"episode_id,omitempty"`
	EntityID  string       `json:"entity_id,omitempty"`
	Result    ForgetResult `json:"result"`
}

// ImportResult counts what POST /v1/import wrote.
type ImportResult struct {
	Tombstones int `json:"tombstones"`
	Entities   int `json:"entities"`
	Episodes   int `json:"episodes"`
	Facts      int `json:"facts"`
	Blocked    int `json:"blocked_by_tombstone"`
}

// Lag is how far a follower of the store (the search index, the vector
// index) is behind it.
type Lag struct {
	Changes uint64  `json:"changes"`
	Seconds float64 `json:"seconds"`
}

// Ontology answers GET /v1/ontology.
type Ontology struct {
	EntityTypes []EntityType `json:"entity_types"`
	Predicates  []Predicate  `json:"predicates"`
	Unknown     string       `json:"unknown_predicates"`
}

// EntityType describes an entity type of the ontology.
type EntityType struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	TTL         *string `json:"ttl"`
}

// Predicate describes a predicate of the ontology.
type Predicate struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Cardinality string   `json:"cardinality"`
	Synonyms    []string `json:"synonyms"`
	Inverse     string   `json:"inverse,omitempty"`
	Symmetric   bool     `json:"symmetric"`
	Decision    bool     `json:"decision"`
	Reverses    []string `json:"reverses"`
	TTL         *string  `json:"ttl"`
}
