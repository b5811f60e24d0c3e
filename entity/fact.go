package entity

import (
	"maps"
	"slices"
	"time"
)

// Status is a fact's position on the two time axes at some instant, derived
// by Fact.Status.
type Status string

// Fact statuses.
const (
	StatusCurrent    Status = "current"
	StatusSuperseded        = "superseded"
	StatusEnded             = "ended"
	StatusRetracted         = "retracted"
	StatusExpired           = "expired"
	StatusForgotten         = "forgotten"
	StatusArchived          = "archived"
	StatusFuture            = "future"
)

// Fact is a directed, dated statement subject —predicate→ object, where the
// object is an entity (ObjectID) or a literal (Value).
//
// Valid time [ValidFrom, ValidTo) says when it was true in the world (a zero
// ValidFrom means "since an unknown time", a nil ValidTo "still true");
// transaction time [RecordedAt, ExpiredAt) says when graphmem believed it.
// When graphmem changes its mind about the interval or the links, the former
// belief is kept in Revisions so queries "as known at" an earlier time see
// exactly what was believed then.
type Fact struct {
	ID           string         `json:"id"`
	Scope        Scope          `json:"scope"`
	SubjectID    string         `json:"subject_id"`
	Subject      string         `json:"subject"`
	Predicate    string         `json:"predicate"`
	ObjectID     string         `json:"object_id,omitempty"`
	Object       string         `json:"object,omitempty"`
	Value        string         `json:"value,omitempty"`
	Text         string         `json:"text"`
	ValidFrom    time.Time      `json:"valid_from"`
	ValidTo      *time.Time     `json:"valid_to"`
	RecordedAt   time.Time      `json:"recorded_at"`
	ExpiredAt    *time.Time     `json:"expired_at"`
	Supersedes   string         `json:"supersedes,omitempty"`
	SupersededBy string         `json:"superseded_by,omitempty"`
	EpisodeIDs   []string       `json:"episode_ids,omitempty"`
	SourceKind   SourceKind     `json:"source_kind"`
	Confidence   float64        `json:"confidence"`
	Importance   int            `json:"importance"`
	Attributes   map[string]any `json:"attributes,omitempty"`

	Hits           int64      `json:"hits,omitempty"`
	LastAccessedAt *time.Time `json:"last_accessed_at,omitempty"`
	ExpiresAt      *time.Time `json:"expires_at,omitempty"`   // TTL: leaves recall after this instant
	ForgottenAt    *time.Time `json:"forgotten_at,omitempty"` // removed from every recall path
	ArchivedAt     *time.Time `json:"archived_at,omitempty"`  // cold and unimportant: left recall

	// Claims are the statements this fact was built from; the temporal rules
	// recompute intervals from them, which makes the outcome independent of
	// the order in which statements arrive.
	Claims []Claim `json:"claims,omitempty"`
	// Revisions hold earlier beliefs about the interval and links.
	Revisions []Revision `json:"revisions,omitempty"`
	// Conflicts are the other values of a cardinality-one predicate stated
	// for the same instant as this one, which lost the tie rule (see
	// package temporal): shown next to the fact, never silently dropped.
	Conflicts []string `json:"conflicts,omitempty"`
	// Waiting marks a record that only holds end statements still waiting
	// for their start: it was never believed (ExpiredAt = RecordedAt), so no
	// read path shows it, and it takes part in every recomputation.
	Waiting bool `json:"waiting,omitempty"`
	// UpdatedAt is when the current belief (interval and links) started.
	UpdatedAt time.Time `json:"updated_at"`
	Seq       uint64    `json:"seq,omitempty"`
}

// Claim is one statement backing a fact: "true from From (until To)" or, with
// End set, "no longer true from From". A zero From on a start claim means
// "since an unknown time".
type Claim struct {
	From       time.Time  `json:"from"`
	To         *time.Time `json:"to,omitempty"`
	End        bool       `json:"end,omitempty"`
	EpisodeID  string     `json:"episode_id,omitempty"`
	SourceKind SourceKind `json:"source_kind"`
	Confidence float64    `json:"confidence"`
	RecordedAt time.Time  `json:"recorded_at"`
	// Said is when the statement was made (its reference time); zero in
	// records written before it existed, read as RecordedAt.
	Said time.Time `json:"said,omitzero"`
	// Dated: the statement gave its start (a date, or "unknown") instead of
	// leaving it to default to when it was said.
	Dated bool `json:"dated,omitempty"`
	// Text, Importance and Attributes are what the statement said about
	// the fact; the fact's own are derived from its claims.
	Text       string         `json:"text,omitempty"`
	Importance int            `json:"importance,omitempty"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

// SaidAt is when the claim was made: Said, or RecordedAt for claims
// recorded without it.
func (c *Claim) SaidAt() time.Time {
	if c.Said.IsZero() {
		return c.RecordedAt
	}
	return c.Said
}

// Revision is a former belief about a fact, held until Until.
type Revision struct {
	Until        time.Time  `json:"until"`
	ValidFrom    time.Time  `json:"valid_from"`
	ValidTo      *time.Time `json:"valid_to"`
	Supersedes   string     `json:"supersedes,omitempty"`
	SupersededBy string     `json:"superseded_by,omitempty"`
}

// ObjectKey identifies the object of f for comparisons: the entity id or the
// normalised literal.
func (f *Fact) ObjectKey() string {
	if f.ObjectID != "" {
		return "e:" + f.ObjectID
	}
	return "v:" + Normalize(f.Value)
}

// ObjectText is the object's display text: the entity name or the value.
func (f *Fact) ObjectText() string {
	if f.ObjectID != "" {
		return f.Object
	}
	return f.Value
}

// KnownAt reports whether graphmem had recorded f and not retracted it at k.
func (f *Fact) KnownAt(k time.Time) bool {
	if f.RecordedAt.After(k) {
		return false
	}
	return f.ExpiredAt == nil || f.ExpiredAt.After(k)
}

// AsKnownAt returns f as graphmem believed it at k: the interval and links
// of the revision in force then. The result shares no slices with f that a
// caller would mutate.
func (f Fact) AsKnownAt(k time.Time) Fact {
	for _, r := range f.Revisions {
		if r.Until.After(k) {
			f.ValidFrom, f.ValidTo = r.ValidFrom, r.ValidTo
			f.Supersedes, f.SupersededBy = r.Supersedes, r.SupersededBy
			break
		}
	}
	if f.ExpiredAt != nil && f.ExpiredAt.After(k) {
		f.ExpiredAt = nil
	}
	return f
}

// ValidAt reports whether f was true in the world at t.
func (f *Fact) ValidAt(t time.Time) bool {
	if !f.ValidFrom.IsZero() && f.ValidFrom.After(t) {
		return false
	}
	return f.ValidTo == nil || f.ValidTo.After(t)
}

// Overlaps reports whether f's validity overlaps [from, to) (nil to = open).
func (f *Fact) Overlaps(from time.Time, to *time.Time) bool {
	if to != nil && !f.ValidFrom.IsZero() && !f.ValidFrom.Before(*to) {
		return false
	}
	return f.ValidTo == nil || f.ValidTo.After(from)
}

// Status is f's status now: StatusAt(now, now).
func (f *Fact) Status(now time.Time) Status { return f.StatusAt(now, now) }

// StatusAt derives f's status for a question about valid time asOf asked at
// transaction time now (a zero asOf means now). What happened to the record
// itself is judged at now and wins — retracted, forgotten, expired by TTL,
// archived — then f's position in valid time at asOf: future, ended or
// superseded (it stopped being true by asOf), else current. A value that was
// in force at asOf is therefore "current" in an as_of answer even if it has
// been superseded since. Every interface (REST, CLI, MCP, context) derives
// statuses here.
func (f *Fact) StatusAt(asOf, now time.Time) Status {
	if asOf.IsZero() {
		asOf = now
	}
	switch {
	case f.ExpiredAt != nil && !f.ExpiredAt.After(now):
		return StatusRetracted
	case f.ForgottenAt != nil:
		return StatusForgotten
	case f.ExpiresAt != nil && !f.ExpiresAt.After(now):
		return StatusExpired
	case f.ArchivedAt != nil:
		return StatusArchived
	case f.ValidTo != nil && !f.ValidTo.After(asOf):
		if f.SupersededBy != "" {
			return StatusSuperseded
		}
		return StatusEnded
	case !f.ValidFrom.IsZero() && f.ValidFrom.After(asOf):
		return StatusFuture
	}
	return StatusCurrent
}

// Recallable reports whether f may appear in recall (search and context) at
// now: not retracted, forgotten, expired by TTL or archived.
func (f *Fact) Recallable(now time.Time) bool {
	switch f.Status(now) {
	case StatusRetracted, StatusForgotten, StatusExpired, StatusArchived:
		return false
	}
	return true
}

// Touch records the current belief as a revision before it changes at now.
func (f *Fact) Touch(now time.Time) {
	f.Revisions = append(f.Revisions, Revision{
		Until: now, ValidFrom: f.ValidFrom, ValidTo: f.ValidTo,
		Supersedes: f.Supersedes, SupersededBy: f.SupersededBy,
	})
	f.UpdatedAt = now
}

// Clone returns a deep enough copy of f for the temporal rules to change.
func (f Fact) Clone() Fact {
	f.Claims = slices.Clone(f.Claims)
	f.Revisions = slices.Clone(f.Revisions)
	f.Conflicts = slices.Clone(f.Conflicts)
	f.EpisodeIDs = slices.Clone(f.EpisodeIDs)
	f.Attributes = maps.Clone(f.Attributes)
	return f
}

// Validate checks the domain rules every store enforces.
func (f *Fact) Validate() error {
	fe := FieldErrors{}
	CheckAttributes(fe, "attributes", f.Attributes)
	if f.SubjectID == "" && f.Subject == "" {
		fe.Add("subject", "required")
	}
	if f.Predicate == "" {
		fe.Add("predicate", "required")
	}
	if (f.ObjectID == "" && f.Object == "") == (f.Value == "") {
		fe.Add("object", "exactly one of object and value is required")
	}
	// An empty interval is legal in storage: two values of a "one"
	// predicate stated for the same instant leave one of them empty.
	if f.ValidTo != nil && !f.ValidFrom.IsZero() && f.ValidTo.Before(f.ValidFrom) {
		fe.Add("valid_to", "must not be before valid_from")
	}
	if f.Confidence < 0 || f.Confidence > 1 {
		fe.Add("confidence", "must be between 0 and 1")
	}
	if f.Importance < 0 || f.Importance > 10 {
		fe.Add("importance", "must be between 1 and 10")
	}
	if f.SourceKind != "" && !f.SourceKind.Valid() {
		fe.Add("source_kind", "unknown source kind")
	}
	return fe.Err()
}
