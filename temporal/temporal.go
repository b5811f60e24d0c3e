package temporal

import (
	"fmt"
	"slices"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/ontology"
)

// Action says what happened to one incoming statement.
type Action string

// Actions reported for each incoming statement.
const (
	Created            Action = "created"
	Corroborated       Action = "corroborated"
	Corrected          Action = "corrected"
	SupersededPrevious Action = "superseded_previous"
	Historical         Action = "historical"
	Ended              Action = "ended"
	BlockedByTombstone Action = "blocked_by_tombstone"
)

// WaitingForStart is the warning of an end that matches nothing yet.
const WaitingForStart = "nothing to end yet: the end is kept and takes effect when its start arrives"

// Statement is one incoming statement about a chain. Fact carries the
// payload (subject, object or value, text, source, importance, attributes,
// episode) and the stated interval. With End set it says "no longer true
// from *Fact.ValidTo" (rule 4) instead of asserting the fact.
type Statement struct {
	Fact entity.Fact
	End  bool
	// Said is when the statement was made (the episode's reference time,
	// or when it was sent); zero means now. Corrections and same-instant
	// ties are judged by it.
	Said time.Time
	// Dated says the statement gave its start: a date in Fact.ValidFrom, or
	// "unknown" (a zero ValidFrom). An undated statement's start is when it
	// was said; it may corroborate or widen a fact but never correct one.
	Dated bool
}

// Outcome says what happened to one statement.
type Outcome struct {
	Action     Action
	FactID     string
	Superseded []string
	Warning    string
}

// Result lists the facts to write (changed or new, complete records) and one
// outcome per statement, in order.
type Result struct {
	Writes   []entity.Fact
	Outcomes []Outcome
}

// Rules are what a chain's predicate brings to the computation.
type Rules struct {
	Cardinality ontology.Cardinality
	// TTL, when positive, gives every fact created in the chain an
	// expiry (ExpiresAt) that long after it was recorded.
	TTL time.Duration
}

// Apply applies statements to a chain at transaction time now. Chain must
// hold every stored fact of the chain, history, retracted and waiting
// records included. newID names new facts.
//
// Statements of one batch are applied one after the other, so the action
// reported for each is the one it would get in a batch of its own: the
// outcome never depends on how statements were grouped into requests.
func Apply(chain []entity.Fact, in []Statement, r Rules, now time.Time, newID func() string) Result {
	if len(in) <= 1 {
		return rebuild(chain, in, "", r, now, newID)
	}
	work := slices.Clone(chain)
	written := map[string]bool{}
	var res Result
	for i := range in {
		step := rebuild(work, in[i:i+1], "", r, now, newID)
		res.Outcomes = append(res.Outcomes, step.Outcomes...)
		work = merge(work, step.Writes)
		for _, w := range step.Writes {
			written[w.ID] = true
		}
	}
	for _, f := range work {
		if written[f.ID] {
			res.Writes = append(res.Writes, f)
		}
	}
	return res
}

// Recompute recomputes a chain from its claims without a new statement,
// after claims were removed (a purge) or added by KeepEnded.
func Recompute(chain []entity.Fact, r Rules, now time.Time, newID func() string) []entity.Fact {
	return rebuild(chain, nil, "", r, now, newID).Writes
}

// merge replaces facts of chain by id with writes and appends new ones.
func merge(chain, writes []entity.Fact) []entity.Fact {
	for _, w := range writes {
		if j := slices.IndexFunc(chain, func(f entity.Fact) bool { return f.ID == w.ID }); j >= 0 {
			chain[j] = w
		} else {
			chain = append(chain, w)
		}
	}
	return chain
}

// Retract marks the fact id as never having been true (rule 5): its
// expired_at becomes now, valid time is untouched, and the rest of the chain
// is recomputed without it. Queries known at an earlier time still see it.
// It returns ENOTFOUND if the chain has no live fact id.
func Retract(chain []entity.Fact, id string, r Rules, now time.Time, newID func() string) (Result, error) {
	i := slices.IndexFunc(chain, func(f entity.Fact) bool { return f.ID == id && f.ExpiredAt == nil })
	if i < 0 {
		return Result{}, entity.Errorf(entity.ENOTFOUND, "fact %s not found", id)
	}
	return rebuild(chain, nil, id, r, now, newID), nil
}

// KeepEnded adds to g a claim that it ended at at — what a purge of the
// value that superseded g leaves behind, so g does not silently become
// current again. Recompute the chain afterwards.
func KeepEnded(g *entity.Fact, at, now time.Time) {
	g.Claims = append(g.Claims, entity.Claim{From: at, End: true, SourceKind: g.SourceKind, RecordedAt: now, Said: now})
}

func claimOf(st *Statement, now time.Time) entity.Claim {
	f := &st.Fact
	c := entity.Claim{From: f.ValidFrom, To: f.ValidTo, SourceKind: f.SourceKind, Confidence: f.Confidence,
		RecordedAt: now, Said: st.Said, Dated: st.Dated}
	if c.Said.IsZero() {
		c.Said = now
	}
	if st.End && f.ValidTo != nil {
		c.From, c.To, c.End, c.Dated = *f.ValidTo, nil, true, false
	} else {
		c.Text, c.Importance, c.Attributes = f.Text, f.Importance, f.Attributes
	}
	if len(f.EpisodeIDs) > 0 {
		c.EpisodeID = f.EpisodeIDs[0]
	}
	if c.Confidence == 0 {
		c.Confidence = defaultConfidence
	}
	return c
}

// defaultConfidence is given to claims that state none.
const defaultConfidence = 0.8

// sameClaim: the same statement (its reference time aside: a repetition
// keeps the latest one).
func sameClaim(a, b entity.Claim) bool {
	return a.From.Equal(b.From) && a.End == b.End && a.EpisodeID == b.EpisodeID &&
		a.SourceKind == b.SourceKind && eqTime(a.To, b.To) && a.Dated == b.Dated &&
		a.Text == b.Text && a.Importance == b.Importance && sameAttributes(a.Attributes, b.Attributes)
}

// sameAttributes compares attribute maps as their printed form (values
// are JSON-like: maps, slices, numbers of any type), without printing
// when either is empty.
func sameAttributes(a, b map[string]any) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return fmt.Sprint(a) == fmt.Sprint(b)
}

func eqTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}
