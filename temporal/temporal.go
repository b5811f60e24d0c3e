package temporal

import (
	"cmp"
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
	Corroborated              = "corroborated"
	SupersededPrevious        = "superseded_previous"
	Historical                = "historical"
	Ended                     = "ended"
	NothingToEnd              = "nothing_to_end"
	BlockedByTombstone        = "blocked_by_tombstone"
)

// Statement is one incoming statement about a chain. Fact carries the
// payload (subject, object or value, text, source, importance, attributes,
// episode) and the stated interval. With End set it says "no longer true
// from *Fact.ValidTo" (rule 4) instead of asserting the fact.
type Statement struct {
	Fact entity.Fact
	End  bool
}

// Outcome says what happened to one statement.
type Outcome struct {
	Action     Action
	FactID     string
	Superseded []string
}

// Result lists the facts to write (changed or new, complete records) and one
// outcome per statement, in order.
type Result struct {
	Writes   []entity.Fact
	Outcomes []Outcome
}

type ref struct {
	c     entity.Claim
	obj   string
	owner int // index into the chain, -1 for an incoming statement
	in    int // index of the incoming statement, -1 for a stored claim
}

type segment struct {
	obj        string
	from       time.Time
	to         *time.Time
	ended      bool // closed by an explicit end (rule 4)
	refs       []int
	pred, succ *segment
	fact       int // index into the working fact list
}

// Apply applies statements to the chain of facts with the given cardinality
// (ontology.One or ontology.Many) at transaction time now. Chain must hold
// every stored fact of the chain, history and retracted ones included.
// newID names new facts.
//
// Statements of one batch are applied one after the other, so the action
// reported for each is the one it would get in a batch of its own: the
// outcome never depends on how statements were grouped into requests.
func Apply(chain []entity.Fact, in []Statement, card ontology.Cardinality, now time.Time, newID func() string) Result {
	if len(in) <= 1 {
		return rebuild(chain, in, "", card, now, newID)
	}
	work := slices.Clone(chain)
	written := map[string]bool{}
	var res Result
	for i := range in {
		r := rebuild(work, in[i:i+1], "", card, now, newID)
		res.Outcomes = append(res.Outcomes, r.Outcomes...)
		for _, w := range r.Writes {
			written[w.ID] = true
			if j := slices.IndexFunc(work, func(f entity.Fact) bool { return f.ID == w.ID }); j >= 0 {
				work[j] = w
			} else {
				work = append(work, w)
			}
		}
	}
	for _, f := range work {
		if written[f.ID] {
			res.Writes = append(res.Writes, f)
		}
	}
	return res
}

// Retract marks the fact id as never having been true (rule 5): its
// expired_at becomes now, valid time is untouched, and the rest of the chain
// is recomputed without it. Queries known at an earlier time still see it.
// It returns ENOTFOUND if the chain has no live fact id.
func Retract(chain []entity.Fact, id string, card ontology.Cardinality, now time.Time, newID func() string) (Result, error) {
	i := slices.IndexFunc(chain, func(f entity.Fact) bool { return f.ID == id && f.ExpiredAt == nil })
	if i < 0 {
		return Result{}, entity.Errorf(entity.ENOTFOUND, "fact %s not found", id)
	}
	return rebuild(chain, nil, id, card, now, newID), nil
}

func claimOf(st *Statement, now time.Time) entity.Claim {
	f := &st.Fact
	c := entity.Claim{From: f.ValidFrom, To: f.ValidTo, SourceKind: f.SourceKind, Confidence: f.Confidence, RecordedAt: now}
	if st.End && f.ValidTo != nil {
		c.From, c.To, c.End = *f.ValidTo, nil, true
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

func sameClaim(a, b entity.Claim) bool {
	return a.From.Equal(b.From) && a.End == b.End && a.EpisodeID == b.EpisodeID &&
		a.SourceKind == b.SourceKind && eqTime(a.To, b.To)
}

func eqTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// compareRefs orders claims within a lane: by time, ends before starts at
// the same instant, then by object, end of interval (open last), and
// finally by provenance so that the order is total and deterministic.
func compareRefs(a, b *ref) int {
	if c := a.c.From.Compare(b.c.From); c != 0 {
		return c
	}
	if a.c.End != b.c.End {
		if a.c.End {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(a.obj, b.obj); c != 0 {
		return c
	}
	switch {
	case a.c.To == nil && b.c.To != nil:
		return 1
	case a.c.To != nil && b.c.To == nil:
		return -1
	case a.c.To != nil:
		if c := a.c.To.Compare(*b.c.To); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(a.c.EpisodeID, b.c.EpisodeID); c != 0 {
		return c
	}
	if c := cmp.Compare(a.c.SourceKind, b.c.SourceKind); c != 0 {
		return c
	}
	return a.c.RecordedAt.Compare(b.c.RecordedAt)
}

func rebuild(chain []entity.Fact, in []Statement, retract string, card ontology.Cardinality, now time.Time, newID func() string) Result {
	facts := make([]entity.Fact, len(chain))
	dirty := make([]bool, len(chain), len(chain)+len(in))
	existing := len(chain)
	for i := range chain {
		facts[i] = chain[i].Clone()
	}
	outcomes := make([]Outcome, len(in))

	var refs []ref
	for i := range facts {
		f := &facts[i]
		if f.ID == retract {
			t := now
			f.ExpiredAt = &t
			f.UpdatedAt = now
			dirty[i] = true
		}
		if f.ExpiredAt != nil {
			continue
		}
		for _, c := range f.Claims {
			refs = append(refs, ref{c: c, obj: f.ObjectKey(), owner: i, in: -1})
		}
	}
	dup := make([]int, len(in)) // index into refs of the claim an incoming statement repeats, or -1
	for j := range in {
		dup[j] = -1
		c := claimOf(&in[j], now)
		obj := in[j].Fact.ObjectKey()
		for k := range refs {
			if refs[k].obj == obj && sameClaim(refs[k].c, c) {
				dup[j] = k
				break
			}
		}
		if dup[j] < 0 {
			refs = append(refs, ref{c: c, obj: obj, owner: -1, in: j})
		}
	}

	// Build segments lane by lane: one lane for a cardinality-one chain,
	// one lane per object otherwise (rule 6).
	lanes := map[string][]int{}
	var laneKeys []string
	for k := range refs {
		key := ""
		if card != ontology.One {
			key = refs[k].obj
		}
		if _, ok := lanes[key]; !ok {
			laneKeys = append(laneKeys, key)
		}
		lanes[key] = append(lanes[key], k)
	}
	slices.Sort(laneKeys)
	var segs []*segment
	segOf := make([]*segment, len(refs))
	for _, key := range laneKeys {
		lane := lanes[key]
		slices.SortFunc(lane, func(a, b int) int { return compareRefs(&refs[a], &refs[b]) })
		segs = append(segs, buildLane(refs, lane, segOf, card)...)
	}

	// Reconcile segments with stored facts: a segment keeps the stored fact
	// that owns its earliest claim; the others become new facts.
	used := make([]bool, len(facts))
	for _, s := range segs {
		s.fact = -1
		for _, k := range s.refs {
			if o := refs[k].owner; o >= 0 && !used[o] {
				s.fact = o
				used[o] = true
				break
			}
		}
		if s.fact >= 0 {
			continue
		}
		var f entity.Fact
		if j := firstIncoming(refs, s); j >= 0 {
			f = in[j].Fact.Clone()
		} else {
			f = facts[refs[s.refs[0]].owner].Clone()
		}
		f.ID, f.RecordedAt, f.UpdatedAt, f.ExpiredAt = newID(), now, now, nil
		f.Revisions, f.Supersedes, f.SupersededBy = nil, "", ""
		f.Hits, f.LastAccessedAt, f.Seq = 0, nil, 0
		facts = append(facts, f)
		dirty = append(dirty, true)
		s.fact = len(facts) - 1
	}
	for _, s := range segs {
		f := &facts[s.fact]
		st := state{from: s.from, to: s.to}
		if s.pred != nil {
			st.supersedes = facts[s.pred.fact].ID
		}
		if s.succ != nil {
			st.supersededBy = facts[s.succ.fact].ID
		}
		claims := make([]entity.Claim, len(s.refs))
		for i, k := range s.refs {
			claims[i] = refs[k].c
		}
		if setState(f, st, claims, now, s.fact < existing) {
			dirty[s.fact] = true
		}
	}
	// A stored fact whose claims all joined other facts' segments has been
	// merged into them: it stops being believed now.
	for i := range existing {
		f := &facts[i]
		if f.ExpiredAt != nil || used[i] {
			continue
		}
		t := now
		f.ExpiredAt = &t
		if len(f.Claims) > 0 {
			if s := segOf[firstRefOf(refs, i)]; s != nil {
				if f.Attributes == nil {
					f.Attributes = map[string]any{}
				}
				f.Attributes["merged_into"] = facts[s.fact].ID
			}
		}
		dirty[i] = true
	}

	// Outcomes and payload updates from incoming statements.
	firstSeen := map[*segment]bool{}
	for k := range refs {
		r := &refs[k]
		if r.in < 0 {
			continue
		}
		s := segOf[k]
		if s == nil {
			outcomes[r.in] = Outcome{Action: NothingToEnd}
			continue
		}
		f := &facts[s.fact]
		o := Outcome{FactID: f.ID}
		switch {
		case r.c.End:
			o.Action = Ended
		case s.fact < existing || firstSeen[s]:
			o.Action = Corroborated
			if updatePayload(f, &in[r.in].Fact) {
				dirty[s.fact] = true
			}
		case s.succ != nil:
			o.Action = Historical
		case s.pred != nil:
			o.Action = SupersededPrevious
		default:
			o.Action = Created
		}
		if !r.c.End {
			firstSeen[s] = true
		}
		if s.pred != nil && (o.Action == SupersededPrevious || o.Action == Historical) {
			o.Superseded = []string{facts[s.pred.fact].ID}
		}
		outcomes[r.in] = o
	}
	for j, k := range dup {
		if k < 0 {
			continue
		}
		if refs[k].owner < 0 {
			// The same statement twice in one batch.
			outcomes[j] = Outcome{Action: Corroborated, FactID: outcomes[refs[k].in].FactID}
			continue
		}
		if o := refs[k].owner; o >= 0 {
			// A repeated statement: nothing new to learn but its payload.
			s := segOf[k]
			fi := o
			if s != nil {
				fi = s.fact
			}
			if updatePayload(&facts[fi], &in[j].Fact) {
				dirty[fi] = true
			}
			outcomes[j] = Outcome{Action: Corroborated, FactID: facts[fi].ID}
		}
	}

	var res Result
	res.Outcomes = outcomes
	for i := range facts {
		if dirty[i] {
			res.Writes = append(res.Writes, facts[i])
		}
	}
	return res
}

func firstIncoming(refs []ref, s *segment) int {
	for _, k := range s.refs {
		if refs[k].in >= 0 && !refs[k].c.End {
			return refs[k].in
		}
	}
	for _, k := range s.refs {
		if refs[k].in >= 0 {
			return refs[k].in
		}
	}
	return -1
}

func firstRefOf(refs []ref, owner int) int {
	for k := range refs {
		if refs[k].owner == owner {
			return k
		}
	}
	return -1
}

// buildLane turns one lane's sorted claims into segments of constant value.
func buildLane(refs []ref, lane []int, segOf []*segment, card ontology.Cardinality) []*segment {
	var segs []*segment
	lastOf := map[string]*segment{}
	for _, k := range lane {
		r := &refs[k]
		c := r.c
		if c.End {
			s := lastOf[r.obj]
			if s == nil {
				continue // nothing to end
			}
			if c.From.After(s.from) && (s.to == nil || s.to.After(c.From)) {
				t := c.From
				s.to, s.ended = &t, true
			}
			s.refs = append(s.refs, k)
			segOf[k] = s
			continue
		}
		var cur *segment
		if len(segs) > 0 {
			cur = segs[len(segs)-1]
		}
		if cur != nil && cur.obj == r.obj && continues(cur, c) {
			cur.refs = append(cur.refs, k)
			segOf[k] = cur
			if !cur.ended {
				switch {
				case c.To == nil:
					cur.to = nil
				case cur.to == nil || c.To.After(*cur.to):
					t := *c.To
					cur.to = &t
				}
			}
			continue
		}
		s := &segment{obj: r.obj, from: c.From, refs: []int{k}}
		if c.To != nil {
			t := *c.To
			s.to = &t
		}
		if cur != nil && card == ontology.One && (cur.to == nil || !cur.to.Before(c.From)) {
			// Rule 2: the value in force when this one starts ends here.
			// A value that ended exactly then was replaced by this one too.
			t := c.From
			cur.to = &t
			cur.succ, s.pred = s, cur
		}
		segs = append(segs, s)
		lastOf[r.obj] = s
		segOf[k] = s
	}
	return segs
}

// continues reports whether claim c (same object) extends segment s: it
// overlaps s or starts where s ends. An explicitly ended segment is not
// extended by a claim starting at or after its end.
func continues(s *segment, c entity.Claim) bool {
	if s.to == nil {
		return true
	}
	if s.ended {
		return c.From.Before(*s.to)
	}
	return !c.From.After(*s.to)
}

type state struct {
	from                     time.Time
	to                       *time.Time
	supersedes, supersededBy string
}

// setState gives f its recomputed interval, links and claims, keeping the
// former belief as a revision when a stored fact changes. It reports
// whether f changed.
func setState(f *entity.Fact, st state, claims []entity.Claim, now time.Time, stored bool) bool {
	changed := false
	if !f.ValidFrom.Equal(st.from) || !eqTime(f.ValidTo, st.to) || f.Supersedes != st.supersedes || f.SupersededBy != st.supersededBy {
		if stored && f.UpdatedAt.Before(now) {
			// A belief held before this transaction becomes a revision;
			// one formed earlier in the same batch was never visible.
			f.Touch(now)
		}
		f.ValidFrom, f.ValidTo, f.Supersedes, f.SupersededBy = st.from, st.to, st.supersedes, st.supersededBy
		changed = true
	}
	if !slices.EqualFunc(f.Claims, claims, func(a, b entity.Claim) bool { return sameClaim(a, b) && a.RecordedAt.Equal(b.RecordedAt) }) {
		f.Claims = claims
		changed = true
	}
	eps, conf, src := derive(claims)
	if !slices.Equal(f.EpisodeIDs, eps) || f.Confidence != conf || f.SourceKind != src {
		f.EpisodeIDs, f.Confidence, f.SourceKind = eps, conf, src
		changed = true
	}
	return changed
}

// derive computes the provenance, confidence and source kind a fact gets
// from its claims: every episode, independent evidence combined as
// 1 − Π(1 − cᵢ), and the most trusted source.
func derive(claims []entity.Claim) ([]string, float64, entity.SourceKind) {
	var eps []string
	miss := 1.0
	var src entity.SourceKind
	for _, c := range claims {
		if c.EpisodeID != "" && !slices.Contains(eps, c.EpisodeID) {
			eps = append(eps, c.EpisodeID)
		}
		if c.End {
			continue
		}
		miss *= 1 - c.Confidence
		if src == "" || c.SourceKind.Stronger(src) {
			src = c.SourceKind
		}
	}
	conf := 1 - miss
	conf = float64(int(conf*1000+0.5)) / 1000 // stable across orders of multiplication
	return eps, conf, src
}

// updatePayload takes the descriptive parts of a repeated statement (text,
// importance, attributes) when it states them; it reports a change.
func updatePayload(f *entity.Fact, g *entity.Fact) bool {
	changed := false
	if g.Text != "" && g.Text != f.Text {
		f.Text, changed = g.Text, true
	}
	if g.Importance != 0 && g.Importance != f.Importance {
		f.Importance, changed = g.Importance, true
	}
	for k, v := range g.Attributes {
		if f.Attributes == nil {
			f.Attributes = map[string]any{}
		}
		if old, ok := f.Attributes[k]; !ok || !equalAny(old, v) {
			f.Attributes[k], changed = v, true
		}
	}
	return changed
}

func equalAny(a, b any) bool {
	as, aok := a.(string)
	bs, bok := b.(string)
	if aok && bok {
		return as == bs
	}
	return false
}
