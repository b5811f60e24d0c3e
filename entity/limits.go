package entity

import (
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// Limits on what a record may hold. They are defined here once: the memory
// service enforces them on every write path (REST, JSON Lines, MCP,
// extraction, import) and the HTTP API's validate tags are checked against
// them by a test. Lengths count characters, not bytes.
const (
	MaxNameLen      = 256  // an entity name: subject, object, speaker, focus
	MaxPredicateLen = 64   // a predicate, an entity type
	MaxValueLen     = 2000 // a literal value
	MaxTextLen      = 4000 // a fact's sentence, a question
	MaxKeyLen       = 256  // an idempotency key
	MaxReasonLen    = 1000 // why something was forgotten
	MaxEpisodeBytes = 256 << 10
	// MaxIDBytes bounds what the stores keep in their keys: an id, an
	// idempotency key, a fingerprint.
	MaxIDBytes = 1024
	// MaxAttributes bounds the attributes of a fact or an entity and the
	// metadata of an episode; MaxAttributeKeyLen the length of a name and
	// MaxAttributeBytes the JSON size of one value.
	MaxAttributes      = 64
	MaxAttributeKeyLen = 64
	MaxAttributeBytes  = 8 << 10
)

// Request limits: what one call may ask for, through any interface (REST,
// MCP, the CLI, the clients). They are defined here once; where a copy
// cannot refer to them (the HTTP API's validate tags, the MCP tools'
// argument descriptions, the Python and TypeScript clients, the web view),
// TestLimits_EveryCopyAgrees in package api fails when it drifts.
const (
	// MaxBatch bounds the facts of one write, the fact ids of one forget
	// and the facts a forget by query may select.
	MaxBatch = 1000
	// DefaultForgetLimit is how many facts a forget by query selects when
	// the request does not say.
	DefaultForgetLimit = 50
	// DefaultPageSize and MaxPageSize bound a page of a list (facts,
	// episodes, entities found by name, audit records).
	DefaultPageSize = 50
	MaxPageSize     = 1000
	// DefaultSearchLimit and MaxSearchLimit bound the hits of a search.
	DefaultSearchLimit = 10
	MaxSearchLimit     = 100
	// DefaultMaxTokens, MinMaxTokens and MaxMaxTokens bound the token
	// budget of a context answer.
	DefaultMaxTokens = 1500
	MinMaxTokens     = 50
	MaxMaxTokens     = 32000
	// MaxQueryBytes bounds a search query or a question.
	MaxQueryBytes = 4000
	// MaxForgetQueryLen bounds the query of a forget, in characters.
	MaxForgetQueryLen = 2000
	// MaxFocus bounds the entity names a context request focuses on.
	MaxFocus = 20
	// DefaultGraphNodes and MaxGraphNodes bound the entities of the graph
	// around an entity, the centre included.
	DefaultGraphNodes = 60
	MaxGraphNodes     = 200
	// DefaultRecent and MaxRecent bound the changes an overview lists.
	DefaultRecent = 20
	MaxRecent     = 100
)

// CheckLen adds to fe a field error if s is longer than max characters.
func CheckLen(fe FieldErrors, field, s string, max int) {
	if utf8.RuneCountInString(s) > max {
		fe.Add(field, fmt.Sprintf("at most %d characters", max))
	}
}

// StatedIntervalProblem says what is wrong with the interval a statement
// gives (valid_from, valid_to), or "" when nothing is: a statement's end
// comes after its start. A stored fact may hold an empty interval (the
// loser of a same-instant tie, see Fact.Validate); a statement never
// says one. Every path that takes statements (REST, JSON Lines, MCP,
// extraction) judges them by this rule.
func StatedIntervalProblem(from, to *time.Time) string {
	if from != nil && to != nil && !to.After(*from) {
		return "must be after valid_from"
	}
	return ""
}

// CheckAttributes adds to fe what is wrong with attrs, the attributes (or
// metadata) named field: too many, a name too long, a value too large or
// not JSON. Each problem is named by its path ("facts[0].attributes.reason").
func CheckAttributes(fe FieldErrors, field string, attrs map[string]any) {
	if len(attrs) > MaxAttributes {
		fe.Add(field, fmt.Sprintf("at most %d entries", MaxAttributes))
		return
	}
	for k, v := range attrs {
		path := field + "." + k
		if k == "" || utf8.RuneCountInString(k) > MaxAttributeKeyLen {
			fe.Add(path, fmt.Sprintf("names must be 1 to %d characters", MaxAttributeKeyLen))
			continue
		}
		b, err := json.Marshal(v)
		switch {
		case err != nil:
			fe.Add(path, "must be a JSON value")
		case len(b) > MaxAttributeBytes:
			fe.Add(path, fmt.Sprintf("at most %d bytes of JSON (this one has %d)", MaxAttributeBytes, len(b)))
		}
	}
}
