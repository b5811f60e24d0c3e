package entity

import (
	"strings"
	"time"
)

// Episode kinds, roles and statuses.
const (
	KindMessage = "message"
	KindText    = "text"
	KindJSON    = "json"

	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleSystem    = "system"
	RoleTool      = "tool"

	EpisodeQueued     = "queued"
	EpisodeProcessing = "processing"
	EpisodeDone       = "done"
	EpisodeFailed     = "failed"
)

// Episode is something that happened — a message, a document, a tool result —
// stored verbatim as the provenance of the facts derived from it.
type Episode struct {
	ID             string         `json:"id"`
	Scope          Scope          `json:"scope"`
	Kind           string         `json:"kind"`
	Content        string         `json:"content"`
	Speaker        string         `json:"speaker,omitempty"`
	Role           string         `json:"role,omitempty"`
	ReferenceTime  time.Time      `json:"reference_time"`
	RecordedAt     time.Time      `json:"recorded_at"`
	SourceKind     SourceKind     `json:"source_kind"`
	Status         string         `json:"status"`
	Error          string         `json:"error,omitempty"`
	Attempts       int            `json:"attempts,omitempty"`
	NextAttemptAt  *time.Time     `json:"next_attempt_at,omitempty"`
	Metadata       map[string]any `json:"metadata,omitempty"`
	IdempotencyKey string         `json:"idempotency_key,omitempty"`
	FactIDs        []string       `json:"fact_ids,omitempty"`
	// PromptTokens and CompletionTokens are what the extraction model
	// reported for this episode, summed over its attempts.
	PromptTokens     int64 `json:"prompt_tokens,omitempty"`
	CompletionTokens int64 `json:"completion_tokens,omitempty"`
	// ForgottenAt is set when a fact derived from the episode was
	// forgotten: the episode leaves recall (its text would tell the fact
	// again) and stays stored as provenance until purged.
	ForgottenAt *time.Time `json:"forgotten_at,omitempty"`
	// Extraction reports the last extraction: what the model proposed,
	// kept and dropped, and why. Nil until one has ended.
	Extraction *Extraction `json:"extraction,omitempty"`
	Seq        uint64      `json:"seq,omitempty"`
}

// Words is the episode's content without a leading "Speaker:" that only
// repeats the speaker (transcripts often carry both).
func (e *Episode) Words() string {
	if e.Speaker == "" {
		return e.Content
	}
	head, rest, ok := strings.Cut(e.Content, ":")
	if ok && Normalize(head) == Normalize(e.Speaker) {
		return strings.TrimLeft(rest, " \t")
	}
	return e.Content
}

// Said is the episode as a line of conversation, "Speaker: words", the
// speaker named once.
func (e *Episode) Said() string {
	if e.Speaker == "" {
		return e.Content
	}
	return e.Speaker + ": " + e.Words()
}
