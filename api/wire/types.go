package wire

import (
	"time"

	"github.com/graphmem/graphmem/entity"
)

// Fact is a fact as the API shows it (docs/design.md §6): subject and object are
// entity names, open intervals are null, and status is derived at the time
// of the request. Claims and revisions stay internal (export has them).
type Fact struct {
	ID           string            `json:"id"`
	Scope        string            `json:"scope"`
	Subject      string            `json:"subject"`
	SubjectID    string            `json:"subject_id"`
	Predicate    string            `json:"predicate"`
	Object       string            `json:"object,omitempty"`
	ObjectID     string            `json:"object_id,omitempty"`
	Value        string            `json:"value,omitempty"`
	Text         string            `json:"text"`
	ValidFrom    *time.Time        `json:"valid_from" doc:"null: since an unknown time"`
	ValidTo      *time.Time        `json:"valid_to" doc:"null: still true"`
	RecordedAt   time.Time         `json:"recorded_at"`
	ExpiredAt    *time.Time        `json:"expired_at" doc:"when it was retracted; null if it never was"`
	Status       entity.Status     `json:"status" doc:"current, superseded, ended, retracted, expired, archived or future"`
	Supersedes   *string           `json:"supersedes"`
	SupersededBy *string           `json:"superseded_by"`
	EpisodeIDs   []string          `json:"episode_ids"`
	SourceKind   entity.SourceKind `json:"source_kind"`
	Confidence   float64           `json:"confidence"`
	Importance   int               `json:"importance"`
	Attributes   map[string]any    `json:"attributes"`
	ExpiresAt    *time.Time        `json:"expires_at,omitempty" doc:"TTL: when it leaves recall"`
}

// FactList is a page of facts.
type FactList struct {
	Items      []Fact  `json:"items"`
	NextCursor *string `json:"next_cursor" doc:"pass as cursor for the next page; null on the last"`
}

// FactDetail is one fact with its supersession chain (ordered by valid
// time) and the episodes it came from.
type FactDetail struct {
	Fact     Fact      `json:"fact"`
	Chain    []Fact    `json:"chain"`
	Episodes []Episode `json:"episodes"`
}

// Entity is an entity as the API shows it.
type Entity struct {
	ID         string         `json:"id"`
	Scope      string         `json:"scope"`
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Aliases    []string       `json:"aliases"`
	Summary    string         `json:"summary"`
	Attributes map[string]any `json:"attributes"`
	CreatedAt  time.Time      `json:"created_at"`
	UpdatedAt  time.Time      `json:"updated_at"`
}

// EntityMatch is an entity found by name.
type EntityMatch struct {
	Entity Entity  `json:"entity"`
	Match  string  `json:"match" doc:"exact, alias or fuzzy"`
	Score  float64 `json:"score"`
}

// EntityMatchList is a page of entity matches.
type EntityMatchList struct {
	Items      []EntityMatch `json:"items"`
	NextCursor *string       `json:"next_cursor"`
}

// EntityDetail is an entity with the facts about it valid now.
type EntityDetail struct {
	Entity Entity `json:"entity"`
	Facts  []Fact `json:"facts"`
}

// Timeline is an entity with every fact of it over time, ordered by valid
// time.
type Timeline struct {
	Entity     Entity  `json:"entity"`
	Items      []Fact  `json:"items"`
	NextCursor *string `json:"next_cursor" doc:"pass as cursor for the next page; null on the last"`
}

// Episode is an episode as the API shows it.
type Episode struct {
	ID             string            `json:"id"`
	Scope          string            `json:"scope"`
	Kind           string            `json:"kind"`
	Content        string            `json:"content"`
	Speaker        string            `json:"speaker"`
	Role           string            `json:"role"`
	ReferenceTime  time.Time         `json:"reference_time"`
	RecordedAt     time.Time         `json:"recorded_at"`
	SourceKind     entity.SourceKind `json:"source_kind"`
	Status         string            `json:"status" doc:"queued, processing, done or failed"`
	Error          string            `json:"error,omitempty"`
	Attempts       int               `json:"attempts"`
	NextAttemptAt  *time.Time        `json:"next_attempt_at,omitempty"`
	Metadata       map[string]any    `json:"metadata"`
	IdempotencyKey string            `json:"idempotency_key,omitempty"`
	FactIDs        []string          `json:"fact_ids"`
	// Tokens the extraction model reported, summed over the attempts.
	PromptTokens     int64 `json:"prompt_tokens" doc:"prompt tokens the extraction model reported for this episode, over all attempts"`
	CompletionTokens int64 `json:"completion_tokens" doc:"completion tokens the extraction model reported for this episode, over all attempts"`
	// Extraction is the report of the last extraction; nil while none
	// has ended.
	Extraction *Extraction `json:"extraction" doc:"what the last extraction proposed, kept and dropped, and why; null until one has ended"`
}

// Extraction is an episode's extraction report.
type Extraction struct {
	Summary  string        `json:"summary" doc:"one sentence: how many facts were proposed, kept and dropped, and why; says why an episode has no facts"`
	Prompt   string        `json:"prompt" doc:"prompt style, full or compact; empty when no model was asked"`
	Mode     string        `json:"mode" doc:"response format the answer came in: json_schema, json_object_schema, json_object or text"`
	Repaired bool          `json:"repaired" doc:"the first answer was unusable and a repair call's answer was used"`
	Proposed int           `json:"proposed" doc:"facts in the model's answer"`
	Kept     int           `json:"kept" doc:"facts stored: created, corroborating or changing a fact"`
	Dropped  []DroppedFact `json:"dropped" doc:"each proposed fact left out, with its reason"`
	Warnings []string      `json:"warnings" doc:"notes on kept facts, e.g. a predicate the ontology does not define"`
	Calls    int           `json:"calls" doc:"model requests of this extraction, failed ones included"`
	// Tokens of this extraction (the episode's own fields sum every attempt).
	PromptTokens     int64  `json:"prompt_tokens"`
	CompletionTokens int64  `json:"completion_tokens"`
	Skipped          string `json:"skipped" doc:"why no model was asked, e.g. none is configured; empty otherwise"`
	Error            string `json:"error" doc:"why the extraction failed (the episode is retried); empty otherwise"`
}

// DroppedFact is a fact the model proposed that was left out.
type DroppedFact struct {
	Subject   string `json:"subject"`
	Predicate string `json:"predicate"`
	Object    string `json:"object" doc:"object or value, as the model wrote it"`
	Reason    string `json:"reason" enum:"not_grounded permission bad_date malformed duplicate forgotten"`
	Detail    string `json:"detail" doc:"what exactly is wrong"`
}

// NewExtraction returns x as the API shows it; nil for nil.
func NewExtraction(x *entity.Extraction) *Extraction {
	if x == nil {
		return nil
	}
	out := &Extraction{Summary: x.Summary(), Prompt: x.Prompt, Mode: x.Mode, Repaired: x.Repaired,
		Proposed: x.Proposed, Kept: x.Kept, Dropped: make([]DroppedFact, len(x.Dropped)), Warnings: nonNil(x.Warnings),
		Calls: x.Calls, PromptTokens: x.PromptTokens, CompletionTokens: x.CompletionTokens, Skipped: x.Skipped, Error: x.Error}
	for i, d := range x.Dropped {
		out.Dropped[i] = DroppedFact(d)
	}
	return out
}

// EpisodeList is a page of episodes.
type EpisodeList struct {
	Items      []Episode `json:"items"`
	NextCursor *string   `json:"next_cursor"`
}

// NewFact returns f as the API shows it, its status derived for valid time
// asOf (zero: now) at now, as every interface derives it.
func NewFact(f entity.Fact, asOf, now time.Time) Fact {
	out := Fact{
		ID: f.ID, Scope: f.Scope, Subject: f.Subject, SubjectID: f.SubjectID, Predicate: f.Predicate,
		Object: f.Object, ObjectID: f.ObjectID, Value: f.Value, Text: f.Text,
		ValidTo: utc(f.ValidTo), RecordedAt: f.RecordedAt.UTC(), ExpiredAt: utc(f.ExpiredAt),
		Status: f.StatusAt(asOf, now), Supersedes: optional(f.Supersedes), SupersededBy: optional(f.SupersededBy),
		EpisodeIDs: nonNil(f.EpisodeIDs), SourceKind: f.SourceKind, Confidence: f.Confidence,
		Importance: f.Importance, Attributes: f.Attributes, ExpiresAt: utc(f.ExpiresAt),
	}
	if !f.ValidFrom.IsZero() {
		out.ValidFrom = utc(&f.ValidFrom)
	}
	if out.Attributes == nil {
		out.Attributes = map[string]any{}
	}
	return out
}

// NewFacts converts a list with NewFact.
func NewFacts(fs []entity.Fact, asOf, now time.Time) []Fact {
	out := make([]Fact, len(fs))
	for i := range fs {
		out[i] = NewFact(fs[i], asOf, now)
	}
	return out
}

// NewEntity returns e as the API shows it.
func NewEntity(e entity.Entity) Entity {
	out := Entity{
		ID: e.ID, Scope: e.Scope, Name: e.Name, Type: e.Type, Aliases: nonNil(e.Aliases), Summary: e.Summary,
		Attributes: e.Attributes, CreatedAt: e.CreatedAt.UTC(), UpdatedAt: e.UpdatedAt.UTC(),
	}
	if out.Attributes == nil {
		out.Attributes = map[string]any{}
	}
	return out
}

// NewEpisode returns e as the API shows it.
func NewEpisode(e entity.Episode) Episode {
	out := Episode{
		ID: e.ID, Scope: e.Scope, Kind: e.Kind, Content: e.Content, Speaker: e.Speaker, Role: e.Role,
		ReferenceTime: e.ReferenceTime.UTC(), RecordedAt: e.RecordedAt.UTC(), SourceKind: e.SourceKind,
		Status: e.Status, Error: e.Error, Attempts: e.Attempts, NextAttemptAt: utc(e.NextAttemptAt),
		Metadata: e.Metadata, IdempotencyKey: e.IdempotencyKey, FactIDs: nonNil(e.FactIDs),
		PromptTokens: e.PromptTokens, CompletionTokens: e.CompletionTokens, Extraction: NewExtraction(e.Extraction),
	}
	if out.Metadata == nil {
		out.Metadata = map[string]any{}
	}
	return out
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Cursor is the next_cursor of a page: null on the last (next is "").
func Cursor(next string) *string { return optional(next) }
