package mcp

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/recall"
)

// The tools' arguments. Their JSON schemas are derived from these types
// (descriptions from the jsonschema tags, enums and bounds added in
// schemas.go from the limits of package entity). Times are strings so that a bad one is reported by name.

// RememberArgs are the arguments of the remember tool.
type RememberArgs struct {
	Content       string `json:"content" jsonschema:"what was said or what happened, verbatim: a message, a note, a document excerpt, a tool result"`
	Speaker       string `json:"speaker,omitempty" jsonschema:"who said or wrote it, e.g. the user's name"`
	Role          string `json:"role,omitempty" jsonschema:"the speaker's role: user (default), assistant, system or tool"`
	ReferenceTime string `json:"reference_time,omitempty" jsonschema:"when it happened, RFC 3339 (2024-03-01T09:30:00Z) or a date (2024-03-01); default now. Relative dates in the content ('last Tuesday') are read against it"`
	SourceKind    string `json:"source_kind,omitempty" jsonschema:"where it comes from: user_explicit (set it when the user said it in these words), user_implicit (default for role user), agent_inferred (default for assistant), tool, import"`
}

// FactArg is one fact of the add_facts tool, shaped like a fact of
// POST /v1/facts.
type FactArg struct {
	Subject      string               `json:"subject" jsonschema:"the entity the fact is about: a person, project, service, place… (its usual name)"`
	SubjectType  string               `json:"subject_type,omitempty" jsonschema:"the subject's type, e.g. person, project, service, organization"`
	Predicate    string               `json:"predicate" jsonschema:"the relation in snake_case, e.g. works_at, lives_in, port, prefers, decided"`
	Object       string               `json:"object,omitempty" jsonschema:"another entity, by name; give exactly one of object and value"`
	ObjectType   string               `json:"object_type,omitempty" jsonschema:"the object entity's type"`
	Value        string               `json:"value,omitempty" jsonschema:"a literal (number, version, date, free text); give exactly one of object and value"`
	Text         string               `json:"text,omitempty" jsonschema:"the fact as one natural sentence (default: generated)"`
	ValidFrom    string               `json:"valid_from,omitempty" jsonschema:"when it became true, RFC 3339 or YYYY-MM-DD; default now"`
	ValidTo      string               `json:"valid_to,omitempty" jsonschema:"when it stopped being true; alone (without a new value) it ends the matching fact"`
	StartUnknown bool                 `json:"start_unknown,omitempty" jsonschema:"true instead of valid_from when it has held since a time nobody knows"`
	SourceKind   string               `json:"source_kind,omitempty" jsonschema:"user_explicit when the user said it, user_implicit, agent_inferred (default), tool or import"`
	EpisodeID    string               `json:"episode_id,omitempty" jsonschema:"the id of the episode (from remember) the fact comes from"`
	Confidence   *float64             `json:"confidence,omitempty" jsonschema:"0 to 1"`
	Importance   int                  `json:"importance,omitempty" jsonschema:"1 (trivia) to 10 (must never be missed)"`
	Attributes   map[string]any       `json:"attributes,omitempty" jsonschema:"extra details; for a decision put the why in reason and the options not taken in alternatives"`
	Cardinality  ontology.Cardinality `json:"cardinality,omitempty" jsonschema:"for a predicate graphmem does not know: one (a single current value, a new one replaces the old) or many (values coexist)"`
}

// AddFactsArgs are the arguments of the add_facts tool.
type AddFactsArgs struct {
	Facts []FactArg `json:"facts" jsonschema:"the facts"`
}

// RecallArgs are the arguments of the recall tool.
type RecallArgs struct {
	Query string `json:"query" jsonschema:"the question or task, in natural language, in any language"`
	AsOf  string `json:"as_of,omitempty" jsonschema:"answer as things were at this time (RFC 3339 or YYYY-MM-DD); default now, or the time the question names (in March 2025, before Bob, 去年)"`
	// ReferenceTime anchors relative times in the question.
	ReferenceTime string      `json:"reference_time,omitempty" jsonschema:"when the question is asked (RFC 3339 or YYYY-MM-DD): last March or two years ago are read against it; default as_of, else now"`
	Mode          recall.Mode `json:"mode,omitempty" jsonschema:"auto (default: history for when/before/why/changed questions), current (only what holds now) or history (with superseded values and reasons)"`
	MaxTokens     int         `json:"max_tokens,omitempty" jsonschema:"size budget of the block, in tokens"`
	Format        string      `json:"format,omitempty" jsonschema:"text (default), markdown or json"`
	Focus         []string    `json:"focus,omitempty" jsonschema:"entity names the question is about, if the query does not name them"`
}

// SearchArgs are the arguments of the search tool.
type SearchArgs struct {
	Query          string   `json:"query" jsonschema:"words or names to look for"`
	Limit          int      `json:"limit,omitempty" jsonschema:"how many hits"`
	AsOf           string   `json:"as_of,omitempty" jsonschema:"facts valid at this time (RFC 3339 or YYYY-MM-DD); default now"`
	IncludeHistory bool     `json:"include_history,omitempty" jsonschema:"also return superseded and ended facts"`
	Types          []string `json:"types,omitempty" jsonschema:"only these kinds of hits: fact, entity, episode (default all)"`
}

// TimelineArgs are the arguments of the timeline tool.
type TimelineArgs struct {
	Entity    string `json:"entity" jsonschema:"the entity's name, an alias, or its id (a name several entities share needs the id; a misspelling gets suggestions)"`
	Predicate string `json:"predicate,omitempty" jsonschema:"only facts with this predicate, e.g. port or works_at"`
}

// ForgetArgs are the arguments of the forget tool.
type ForgetArgs struct {
	FactIDs   []string          `json:"fact_ids,omitempty" jsonschema:"ids of the facts to forget (from search, recall with format json, or timeline)"`
	Entity    string            `json:"entity,omitempty" jsonschema:"forget everything about this entity (name or id)"`
	Query     string            `json:"query,omitempty" jsonschema:"forget the facts best matching this text, superseded values included; use dry_run first"`
	EpisodeID string            `json:"episode_id,omitempty" jsonschema:"forget what came from this episode"`
	Mode      memory.ForgetMode `json:"mode,omitempty" jsonschema:"forget (default: hidden from recall, never learned again) or purge (deleted for good with its source episodes)"`
	Reason    string            `json:"reason,omitempty" jsonschema:"why, in the user's words; kept in the audit log"`
	DryRun    bool              `json:"dry_run,omitempty" jsonschema:"only report what would be removed"`
}

// Limits on arguments the service does not bound itself.
const (
	maxReasonLen = entity.MaxReasonLen
	maxIDLen     = 128
)

// parseTime reads a time (entity.ParseTime); "" is the zero time. A bad
// value is reported under field.
func parseTime(fe entity.FieldErrors, field, s string) time.Time {
	if strings.TrimSpace(s) == "" {
		return time.Time{}
	}
	t, err := entity.ParseTime(s)
	if err != nil {
		fe.Add(field, entity.TimeMessage)
	}
	return t
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// episode turns remember's arguments into an episode, or EINVALID naming
// the fields.
func (a *RememberArgs) episode() (memory.EpisodeInput, error) {
	fe := entity.FieldErrors{}
	in := memory.EpisodeInput{
		Content: a.Content, Speaker: a.Speaker, Role: a.Role, SourceKind: entity.SourceKind(a.SourceKind),
		ReferenceTime: timePtr(parseTime(fe, "reference_time", a.ReferenceTime)),
	}
	if err := memory.ValidateEpisode(&in); err != nil {
		merge(fe, err)
	}
	return in, fe.Err()
}

// facts turns add_facts' arguments into statements, or EINVALID naming
// the fields by JSON path (facts[2].valid_from).
func (a *AddFactsArgs) facts() ([]memory.FactInput, error) {
	fe := entity.FieldErrors{}
	out := make([]memory.FactInput, len(a.Facts))
	for i, f := range a.Facts {
		p := fmt.Sprintf("facts[%d].", i)
		out[i] = memory.FactInput{
			Subject: f.Subject, SubjectType: f.SubjectType, Predicate: f.Predicate, Object: f.Object,
			ObjectType: f.ObjectType, Value: f.Value, Text: f.Text, SourceKind: entity.SourceKind(f.SourceKind),
			EpisodeID: f.EpisodeID, Confidence: f.Confidence, Importance: f.Importance,
			Attributes: f.Attributes, Cardinality: f.Cardinality, StartUnknown: f.StartUnknown,
			ValidFrom: timePtr(parseTime(fe, p+"valid_from", f.ValidFrom)),
			ValidTo:   timePtr(parseTime(fe, p+"valid_to", f.ValidTo)),
		}
		if len(f.EpisodeID) > maxIDLen {
			fe.Add(p+"episode_id", fmt.Sprintf("at most %d characters", maxIDLen))
		}
	}
	if err := memory.ValidateFacts(out); err != nil {
		merge(fe, err)
	}
	return out, fe.Err()
}

func (a *RecallArgs) request() (recall.ContextRequest, error) {
	fe := entity.FieldErrors{}
	req := recall.ContextRequest{Query: a.Query, AsOf: parseTime(fe, "as_of", a.AsOf), MaxTokens: a.MaxTokens,
		ReferenceTime: parseTime(fe, "reference_time", a.ReferenceTime), Mode: a.Mode, Format: a.Format, Focus: a.Focus}
	if err := req.Validate(); err != nil {
		merge(fe, err)
	}
	return req, fe.Err()
}

func (a *SearchArgs) request() (recall.SearchRequest, error) {
	fe := entity.FieldErrors{}
	req := recall.SearchRequest{Query: a.Query, Limit: a.Limit, AsOf: parseTime(fe, "as_of", a.AsOf),
		IncludeHistory: a.IncludeHistory, Types: a.Types}
	if err := req.Validate(); err != nil {
		merge(fe, err)
	}
	return req, fe.Err()
}

func (a *TimelineArgs) request() (TimelineRequest, error) {
	fe := entity.FieldErrors{}
	name := strings.TrimSpace(a.Entity)
	switch {
	case name == "":
		fe.Add("entity", "required: the entity's name")
	case len(name) > entity.MaxNameLen:
		fe.Add("entity", fmt.Sprintf("at most %d characters", entity.MaxNameLen))
	}
	if len(a.Predicate) > entity.MaxPredicateLen {
		fe.Add("predicate", fmt.Sprintf("at most %d characters", entity.MaxPredicateLen))
	}
	return TimelineRequest{Entity: name, Predicate: strings.TrimSpace(a.Predicate)}, fe.Err()
}

func (a *ForgetArgs) request() (ForgetRequest, error) {
	fe := entity.FieldErrors{}
	req := ForgetRequest{FactIDs: a.FactIDs, Entity: strings.TrimSpace(a.Entity), Query: strings.TrimSpace(a.Query),
		EpisodeID: strings.TrimSpace(a.EpisodeID), Mode: a.Mode, Reason: a.Reason, DryRun: a.DryRun}
	switch req.Mode {
	case "":
		req.Mode = memory.ModeForget
	case memory.ModeForget, memory.ModePurge:
	default:
		fe.Add("mode", "must be forget or purge")
	}
	if len(req.FactIDs) == 0 && req.Entity == "" && req.Query == "" && req.EpisodeID == "" {
		fe.Add("fact_ids", "say what to forget: give fact_ids, entity, query or episode_id")
	}
	if len(req.FactIDs) > entity.MaxBatch {
		fe.Add("fact_ids", fmt.Sprintf("at most %d ids", entity.MaxBatch))
	}
	for i, id := range req.FactIDs {
		if strings.TrimSpace(id) == "" || len(id) > maxIDLen {
			fe.Add(fmt.Sprintf("fact_ids[%d]", i), "not a fact id")
		}
	}
	if len(req.Entity) > entity.MaxNameLen {
		fe.Add("entity", fmt.Sprintf("at most %d characters", entity.MaxNameLen))
	}
	if len(req.Query) > entity.MaxQueryBytes {
		fe.Add("query", fmt.Sprintf("at most %d bytes", entity.MaxQueryBytes))
	}
	if len(req.EpisodeID) > maxIDLen {
		fe.Add("episode_id", "not an episode id")
	}
	if len(req.Reason) > maxReasonLen {
		fe.Add("reason", fmt.Sprintf("at most %d characters", maxReasonLen))
	}
	return req, fe.Err()
}

// merge adds the field errors of err (an EINVALID) to fe, or its message
// under "arguments".
func merge(fe entity.FieldErrors, err error) {
	var e *entity.Error
	if errors.As(err, &e) && len(e.Fields) > 0 {
		for k, v := range e.Fields {
			fe.Add(k, v)
		}
		return
	}
	fe.Add("arguments", entity.ErrorMessage(err))
}
