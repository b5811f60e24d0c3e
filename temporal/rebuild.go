package temporal

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/ontology"
)

// rebuild recomputes a chain from the claims of its live (and waiting)
// facts plus the incoming statements, in named phases:
//
//	collect   — claims of the stored facts and the incoming statements;
//	resolve   — per lane, sweep the claims into segments of constant value
//	            and apply corrections until they change nothing;
//	reconcile — give every segment a fact (stored or new) and keep ends
//	            that match nothing in a waiting record;
//	settle    — intervals, links, claims, provenance and payload of every
//	            fact, keeping former beliefs as revisions;
//	report    — what happened to each incoming statement.
func rebuild(chain []entity.Fact, in []Statement, retract string, r Rules, now time.Time, newID func() string) Result {
	w := collect(chain, in, retract, r, now, newID)
	w.resolve()
	w.reconcile()
	w.settle()
	return w.report()
}

// ref is one claim taking part in a recomputation, with its effective
// bounds after corrections.
type ref struct {
	c      entity.Claim
	obj    string // object key (entity id or normalised value)
	text   string // normalised object text, for the tie rule
	owner  int    // index into the working facts, -1 for an incoming statement
	in     int    // index of the incoming statement, -1 for a stored claim
	from   time.Time
	to     *time.Time
	capped bool // to was set by an explicit end: no joining at the boundary
	off    bool // an end overruled by a later statement
}

func (r *ref) endAt() time.Time {
	if r.c.End {
		return r.c.From
	}
	return *r.c.To
}

type segment struct {
	obj        string
	text       string
	from       time.Time
	to         *time.Time
	ended      bool // closed by an explicit end (rule 4)
	refs       []int
	pred, succ *segment
	conflicts  []string // values stated for the same instant that lost the tie
	fact       int      // index into the working facts
}

type work struct {
	facts    []entity.Fact
	dirty    []bool
	foreign  []bool // facts of another chain, never touched (rule 7)
	existing int
	in       []Statement
	refs     []ref
	dup      []int // per incoming statement: the ref it repeats, or -1
	rules    Rules
	now      time.Time
	newID    func() string
	segs     []*segment
	segOf    []*segment
	waiting  []int // end refs that match nothing yet
	waitFact map[int]int
	oldFrom  []time.Time
	oldTo    []*time.Time
}

// collect is the first phase: the working copy of the chain and every claim.
func collect(chain []entity.Fact, in []Statement, retract string, r Rules, now time.Time, newID func() string) *work {
	// Room for the facts the statements may add: a fact is large, and
	// growing the slice copies every one.
	w := &work{facts: make([]entity.Fact, len(chain), len(chain)+len(in)), dirty: make([]bool, len(chain), len(chain)+len(in)),
		existing: len(chain), in: in, rules: r, now: now, newID: newID, waitFact: map[int]int{}}
	// Rule 7: only facts of the statements' scope, subject and predicate
	// take part; anything else handed in is left alone.
	var key [3]string
	switch {
	case len(in) > 0:
		key = [3]string{string(in[0].Fact.Scope), in[0].Fact.SubjectID, in[0].Fact.Predicate}
	case len(chain) > 0:
		key = [3]string{string(chain[0].Scope), chain[0].SubjectID, chain[0].Predicate}
	}
	w.foreign = make([]bool, len(chain))
	w.oldFrom, w.oldTo = make([]time.Time, len(chain)), make([]*time.Time, len(chain))
	claims := len(in)
	for i := range chain {
		claims += len(chain[i].Claims)
	}
	w.refs = make([]ref, 0, claims)
	for i := range chain {
		f := &chain[i]
		w.oldFrom[i], w.oldTo[i] = f.ValidFrom, f.ValidTo
		// Facts no longer believed are never changed (only written back
		// when dirty), so they need no copy of their own.
		if f.ExpiredAt != nil && !f.Waiting {
			w.facts[i] = *f
			w.foreign[i] = [3]string{string(f.Scope), f.SubjectID, f.Predicate} != key
			continue
		}
		w.facts[i] = f.Clone()
		f = &w.facts[i]
		if [3]string{string(f.Scope), f.SubjectID, f.Predicate} != key {
			w.foreign[i] = true
			continue
		}
		if f.ID == retract {
			t := now
			f.ExpiredAt, f.UpdatedAt = &t, now
			w.dirty[i] = true
		}
		if f.ExpiredAt != nil && !f.Waiting {
			continue
		}
		obj, text := objectOf(f)
		for _, c := range f.Claims {
			w.refs = append(w.refs, newRef(c, obj, text, i, -1))
		}
	}
	w.dup = make([]int, len(in))
	for j := range in {
		w.dup[j] = -1
		c := claimOf(&in[j], now)
		obj, text := objectOf(&in[j].Fact)
		probe := newRef(c, obj, text, -1, j)
		for k := range w.refs {
			if w.refs[k].obj != probe.obj || !sameClaim(w.refs[k].c, c) {
				continue
			}
			w.dup[j] = k
			// A repetition said later stands for the statement from then on:
			// the claim keeps the latest reference time, whatever the order.
			if c.SaidAt().After(w.refs[k].c.SaidAt()) {
				w.refs[k].c.Said = c.Said
			}
			break
		}
		if w.dup[j] < 0 {
			w.refs = append(w.refs, probe)
		}
	}
	return w
}

// objectOf is a fact's object key and normalised object text, which every
// ref of its claims carries.
func objectOf(f *entity.Fact) (string, string) {
	return f.ObjectKey(), entity.Normalize(f.ObjectText())
}

func newRef(c entity.Claim, obj, text string, owner, in int) ref {
	r := ref{c: c, obj: obj, text: text, owner: owner, in: in, from: c.From}
	if c.To != nil {
		t := *c.To
		r.to = &t
	}
	return r
}

// maxPasses bounds the sweep-and-correct rounds of one lane; corrections
// only move claims onto the bounds of the statement that overrules them, so
// a lane settles in two or three.
const maxPasses = 6

// resolve is the second phase: one lane for a cardinality-one chain, one
// lane per object otherwise (rule 6).
func (w *work) resolve() {
	lanes := map[string][]int{}
	var keys []string
	for k := range w.refs {
		key := ""
		if w.rules.Cardinality != ontology.One {
			key = w.refs[k].obj
		}
		if _, ok := lanes[key]; !ok {
			keys = append(keys, key)
		}
		lanes[key] = append(lanes[key], k)
	}
	slices.Sort(keys)
	w.segOf = make([]*segment, len(w.refs))
	for _, key := range keys {
		lane := lanes[key]
		var segs []*segment
		var waiting []int
		for pass := range maxPasses {
			w.order(lane)
			segs, waiting = w.sweep(lane)
			if !w.correct(segs) || pass == maxPasses-1 {
				break
			}
		}
		w.segs = append(w.segs, segs...)
		w.waiting = append(w.waiting, waiting...)
	}
}

// tie ranks the values stated for one instant (rule 4a): the value backed
// by the most trusted source kind wins, then the one stated latest, then
// the greater normalised value. The winner sorts last, so it supersedes
// the others at that instant.
type tie struct {
	src  entity.SourceKind
	said time.Time
	text string
}

func (a tie) compare(b tie) int {
	switch {
	case a.src.Stronger(b.src):
		return 1
	case b.src.Stronger(a.src):
		return -1
	}
	if c := a.said.Compare(b.said); c != 0 {
		return c
	}
	return cmp.Compare(a.text, b.text)
}

type instant struct {
	obj  string
	from int64
}

// order sorts a lane: by time, ends before starts at one instant, values
// tied at one instant by the tie rule, and finally by content, so the
// order is total and does not depend on arrival or ids.
func (w *work) order(lane []int) {
	ties := map[instant]tie{}
	for _, k := range lane {
		r := &w.refs[k]
		if r.c.End {
			continue
		}
		key := instant{r.obj, r.from.UnixNano()}
		t, ok := ties[key]
		if !ok || r.c.SourceKind.Stronger(t.src) {
			t.src = r.c.SourceKind
		}
		if r.c.SaidAt().After(t.said) {
			t.said = r.c.SaidAt()
		}
		t.text = r.text
		ties[key] = t
	}
	at := func(r *ref) time.Time {
		if r.c.End {
			return r.c.From
		}
		return r.from
	}
	slices.SortStableFunc(lane, func(a, b int) int {
		ra, rb := &w.refs[a], &w.refs[b]
		if c := at(ra).Compare(at(rb)); c != 0 {
			return c
		}
		if ra.c.End != rb.c.End {
			if ra.c.End {
				return -1
			}
			return 1
		}
		if ra.obj != rb.obj && !ra.c.End {
			if c := ties[instant{ra.obj, ra.from.UnixNano()}].compare(ties[instant{rb.obj, rb.from.UnixNano()}]); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(ra.text, rb.text); c != 0 {
			return c
		}
		if c := cmp.Compare(ra.obj, rb.obj); c != 0 {
			return c
		}
		return compareClaims(&ra.c, &rb.c)
	})
}

// compareClaims orders claims by content: end of interval (open last),
// reference time, then provenance.
func compareClaims(a, b *entity.Claim) int {
	switch {
	case a.To == nil && b.To != nil:
		return 1
	case a.To != nil && b.To == nil:
		return -1
	case a.To != nil:
		if c := a.To.Compare(*b.To); c != 0 {
			return c
		}
	}
	if c := a.SaidAt().Compare(b.SaidAt()); c != 0 {
		return c
	}
	if c := cmp.Compare(a.EpisodeID, b.EpisodeID); c != 0 {
		return c
	}
	if c := cmp.Compare(a.SourceKind, b.SourceKind); c != 0 {
		return c
	}
	if a.Dated != b.Dated {
		if a.Dated {
			return 1
		}
		return -1
	}
	if c := cmp.Compare(a.Text, b.Text); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Importance, b.Importance); c != 0 {
		return c
	}
	if c := cmp.Compare(fmt.Sprint(a.Attributes), fmt.Sprint(b.Attributes)); c != 0 {
		return c
	}
	return a.RecordedAt.Compare(b.RecordedAt)
}

// sweep turns one lane's sorted claims into segments of constant value and
// lists the ends that match nothing.
func (w *work) sweep(lane []int) ([]*segment, []int) {
	var segs []*segment
	var waiting []int
	lastOf := map[string]*segment{}
	for _, k := range lane {
		r := &w.refs[k]
		w.segOf[k] = nil
		if r.c.End {
			s := lastOf[r.obj]
			if s == nil {
				waiting = append(waiting, k) // rule 4: waits for its start
				continue
			}
			if !r.off && (s.to == nil || s.to.After(r.c.From)) {
				t := r.c.From
				s.to, s.ended = &t, true
			}
			s.refs = append(s.refs, k)
			w.segOf[k] = s
			continue
		}
		var cur *segment
		if len(segs) > 0 {
			cur = segs[len(segs)-1]
		}
		if cur != nil && cur.obj == r.obj && continues(cur, r) {
			cur.refs = append(cur.refs, k)
			w.segOf[k] = cur
			if !cur.ended {
				switch {
				case r.to == nil:
					cur.to = nil
				case cur.to != nil && r.to.After(*cur.to):
					t := *r.to
					cur.to = &t
				}
				cur.ended = r.capped && r.to != nil && cur.to != nil && cur.to.Equal(*r.to)
			}
			continue
		}
		s := &segment{obj: r.obj, text: r.text, from: r.from, refs: []int{k}, ended: r.capped && r.to != nil}
		if r.to != nil {
			t := *r.to
			s.to = &t
		}
		if cur != nil && w.rules.Cardinality == ontology.One && (cur.to == nil || !cur.to.Before(r.from)) {
			// Rule 2: the value in force when this one starts ends here. A
			// value that ended exactly then was replaced by this one too.
			if cur.from.Equal(r.from) {
				// Rule 4a: stated for the same instant, and lost the tie.
				s.conflicts = append(slices.Clone(cur.conflicts), cur.text)
			}
			t := r.from
			cur.to = &t
			cur.succ, s.pred = s, cur
		}
		segs = append(segs, s)
		lastOf[r.obj] = s
		w.segOf[k] = s
	}
	return segs, waiting
}

// continues reports whether start claim r (same object) extends segment s:
// it overlaps s or starts where s ends. An explicitly ended segment is not
// extended by a claim starting at or after its end.
func continues(s *segment, r *ref) bool {
	if s.to == nil {
		return true
	}
	if s.ended {
		return r.from.Before(*s.to)
	}
	return !r.from.After(*s.to)
}

// correct applies rule 4b within each segment and reports whether a bound
// moved. The start is the one of the latest dated statement (by reference
// time; among equally late ones the earliest start): earlier statements,
// undated ones made before it and "start unknown" ones move onto it. The
// end is the one of the latest statement that states an end (an explicit
// end or a valid_to; among equally late ones the latest end): earlier ends
// give way, and statements that give no end stop there too.
func (w *work) correct(segs []*segment) bool {
	changed := false
	for _, s := range segs {
		start := w.latestStart(s)
		if start != nil && w.moveStarts(s, start) {
			changed = true
		}
		// An end at or before the (corrected) start belongs to no part of
		// this fact and cannot be its end.
		from := s.from
		if start != nil {
			from = start.c.From
		}
		end := w.latestEnd(s, from)
		if end != nil && w.moveEnds(s, end) {
			changed = true
		}
	}
	return changed
}

// latestStart returns the statement of segment s whose start stands: the
// latest dated one by reference time, among equally late ones the one
// with the earliest start; nil if none is dated.
func (w *work) latestStart(s *segment) *ref {
	var start *ref
	for _, k := range s.refs {
		r := &w.refs[k]
		if r.c.End || !r.c.Dated || r.c.From.IsZero() {
			continue
		}
		if start == nil || r.c.SaidAt().After(start.c.SaidAt()) ||
			(r.c.SaidAt().Equal(start.c.SaidAt()) && r.c.From.Before(start.c.From)) {
			start = r
		}
	}
	return start
}

// moveStarts moves onto start's start the statements of segment s said
// before it or with no start, keeping each end no earlier than its start,
// and reports whether a bound moved.
func (w *work) moveStarts(s *segment, start *ref) bool {
	changed := false
	for _, k := range s.refs {
		r := &w.refs[k]
		if r.c.End || r == start {
			continue
		}
		if !r.c.From.IsZero() && !r.c.SaidAt().Before(start.c.SaidAt()) {
			continue
		}
		if !r.from.Equal(start.c.From) {
			r.from, changed = start.c.From, true
		}
		if r.to != nil && r.to.Before(r.from) {
			t := r.from
			r.to, changed = &t, true
		}
	}
	return changed
}

// latestEnd returns the statement of segment s whose end stands: the
// latest one stating an end after from, among equally late ones the one
// with the latest end; nil if none does.
func (w *work) latestEnd(s *segment, from time.Time) *ref {
	var end *ref
	for _, k := range s.refs {
		r := &w.refs[k]
		if !r.c.End && r.c.To == nil || !r.endAt().After(from) {
			continue
		}
		if end == nil || r.c.SaidAt().After(end.c.SaidAt()) ||
			(r.c.SaidAt().Equal(end.c.SaidAt()) && r.endAt().After(end.endAt())) {
			end = r
		}
	}
	return end
}

// moveEnds ends the other statements of segment s at end's end: other
// explicit ends give way, and statements that start before it stop there
// (never before their own start). It reports whether a bound moved.
func (w *work) moveEnds(s *segment, end *ref) bool {
	changed := false
	at := end.endAt()
	for _, k := range s.refs {
		r := &w.refs[k]
		if r == end {
			continue
		}
		if r.c.End {
			if !r.off && !r.c.From.Equal(at) {
				r.off, changed = true, true
			}
			continue
		}
		if r.c.To == nil && !r.from.Before(at) {
			continue // starts after the end: a later stint
		}
		t := at
		if t.Before(r.from) {
			t = r.from
		}
		if r.to == nil || !r.to.Equal(t) || r.capped != end.c.End {
			r.to, r.capped, changed = &t, end.c.End, true
		}
	}
	return changed
}

// reconcile is the third phase: a segment keeps the stored fact that owns
// its earliest claim; the others become new facts. Ends that match nothing
// stay in (or go to) a waiting record.
func (w *work) reconcile() {
	used := make([]bool, len(w.facts))
	for _, s := range w.segs {
		s.fact = -1
		for _, k := range s.refs {
			if o := w.refs[k].owner; o >= 0 && !used[o] && !w.facts[o].Waiting {
				s.fact = o
				used[o] = true
				break
			}
		}
		if s.fact >= 0 {
			continue
		}
		var f entity.Fact
		if j := w.firstIncoming(s); j >= 0 {
			f = w.in[j].Fact.Clone()
		} else {
			f = w.facts[w.refs[s.refs[0]].owner].Clone()
		}
		s.fact = w.newFact(f)
	}
	for _, k := range w.waiting {
		r := &w.refs[k]
		if r.owner >= 0 && w.facts[r.owner].Waiting {
			used[r.owner] = true
			w.waitFact[k] = r.owner
			continue
		}
		var f entity.Fact
		if r.in >= 0 {
			f = w.in[r.in].Fact.Clone()
		} else {
			f = w.facts[r.owner].Clone() // an end its start no longer reaches
		}
		i := w.newFact(f)
		t := w.now
		w.facts[i].Waiting, w.facts[i].ExpiredAt = true, &t // never believed: no read path shows it
		w.waitFact[k] = i
	}
	// A stored fact whose claims all joined other facts has been merged
	// into them: it stops being believed now.
	for i := range w.existing {
		f := &w.facts[i]
		if used[i] || w.foreign[i] || (f.ExpiredAt != nil && !f.Waiting) {
			continue
		}
		if f.Waiting {
			f.Waiting, f.Claims = false, nil
		} else {
			t := w.now
			f.ExpiredAt = &t
		}
		if k := slices.IndexFunc(w.refs, func(r ref) bool { return r.owner == i }); k >= 0 && w.segOf[k] != nil {
			if f.Attributes == nil {
				f.Attributes = map[string]any{}
			}
			f.Attributes["merged_into"] = w.facts[w.segOf[k].fact].ID
		}
		w.dirty[i] = true
	}
}

// defaultText is the sentence of a fact no statement words.
func defaultText(f *entity.Fact) string {
	return fmt.Sprintf("%s %s %s", f.Subject, strings.ReplaceAll(f.Predicate, "_", " "), f.ObjectText())
}

// DefaultImportance is the importance of a fact no statement rates.
const DefaultImportance = 5

func (w *work) newFact(f entity.Fact) int {
	f.ID, f.RecordedAt, f.UpdatedAt, f.ExpiredAt = w.newID(), w.now, w.now, nil
	f.Revisions, f.Supersedes, f.SupersededBy, f.Conflicts, f.Claims = nil, "", "", nil, nil
	f.Hits, f.LastAccessedAt, f.Seq, f.Waiting = 0, nil, 0, false
	if f.Text == "" {
		f.Text = defaultText(&f)
	}
	if f.Importance == 0 {
		f.Importance = DefaultImportance
	}
	if w.rules.TTL > 0 {
		t := w.now.Add(w.rules.TTL)
		f.ExpiresAt = &t
	}
	w.facts = append(w.facts, f)
	w.dirty = append(w.dirty, true)
	return len(w.facts) - 1
}

func (w *work) firstIncoming(s *segment) int {
	for _, k := range s.refs {
		if w.refs[k].in >= 0 && !w.refs[k].c.End {
			return w.refs[k].in
		}
	}
	for _, k := range s.refs {
		if w.refs[k].in >= 0 {
			return w.refs[k].in
		}
	}
	return -1
}

// settle is the fourth phase.
func (w *work) settle() {
	for _, s := range w.segs {
		f := &w.facts[s.fact]
		st := state{from: s.from, to: s.to, conflicts: s.conflicts}
		if s.pred != nil {
			st.supersedes = w.facts[s.pred.fact].ID
		}
		if s.succ != nil {
			st.supersededBy = w.facts[s.succ.fact].ID
		}
		if w.setState(f, st, w.claimsOf(s.refs), s.fact < w.existing) {
			w.dirty[s.fact] = true
		}
	}
	byFact := map[int][]int{}
	for _, k := range w.waiting {
		byFact[w.waitFact[k]] = append(byFact[w.waitFact[k]], k)
	}
	for i, ks := range byFact {
		f := &w.facts[i]
		claims := w.claimsOf(ks)
		if !slices.EqualFunc(f.Claims, claims, identical) {
			f.Claims, w.dirty[i] = claims, true
		}
		at := claims[0].From
		if f.ValidTo == nil || !f.ValidTo.Equal(at) || !f.ValidFrom.IsZero() {
			f.ValidFrom, f.ValidTo, w.dirty[i] = time.Time{}, &at, true
		}
	}
}

func (w *work) claimsOf(ks []int) []entity.Claim {
	claims := make([]entity.Claim, len(ks))
	for i, k := range ks {
		claims[i] = w.refs[k].c
	}
	return claims
}

func identical(a, b entity.Claim) bool {
	return sameClaim(a, b) && a.RecordedAt.Equal(b.RecordedAt) && a.Said.Equal(b.Said)
}

type state struct {
	from                     time.Time
	to                       *time.Time
	supersedes, supersededBy string
	conflicts                []string
}

// setState gives f its recomputed interval, links, claims, provenance and
// payload, keeping the former belief as a revision when a belief held
// before this transaction changes. It reports whether f changed.
func (w *work) setState(f *entity.Fact, st state, claims []entity.Claim, stored bool) bool {
	changed := false
	if !f.ValidFrom.Equal(st.from) || !eqTime(f.ValidTo, st.to) || f.Supersedes != st.supersedes || f.SupersededBy != st.supersededBy {
		if stored && f.UpdatedAt.Before(w.now) {
			f.Touch(w.now)
		}
		f.ValidFrom, f.ValidTo, f.Supersedes, f.SupersededBy = st.from, st.to, st.supersedes, st.supersededBy
		changed = true
	}
	if !slices.Equal(f.Conflicts, st.conflicts) {
		f.Conflicts, changed = st.conflicts, true
	}
	if !slices.EqualFunc(f.Claims, claims, identical) {
		f.Claims = claims
		changed = true
	}
	eps, conf, src := derive(claims)
	if !slices.Equal(f.EpisodeIDs, eps) || f.Confidence != conf || f.SourceKind != src {
		f.EpisodeIDs, f.Confidence, f.SourceKind = eps, conf, src
		changed = true
	}
	if payload(f, claims) {
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
	slices.Sort(eps)
	conf := 1 - miss
	conf = float64(int(conf*1000+0.5)) / 1000 // stable across orders of multiplication
	return eps, conf, src
}

// payload gives f the text, importance and attributes its own claims state
// (rule 3): each from the latest statement (by reference time, then by
// content) that states it, attributes key by key, else the defaults. A
// statement about another interval never reaches them. Facts built only
// from claims recorded before claims carried their payload keep theirs.
func payload(f *entity.Fact, claims []entity.Claim) bool {
	starts := make([]entity.Claim, 0, len(claims))
	legacy := true
	for _, c := range claims {
		if !c.End {
			starts = append(starts, c)
			legacy = legacy && c.Said.IsZero()
		}
	}
	if legacy {
		return false
	}
	slices.SortFunc(starts, func(a, b entity.Claim) int {
		if c := a.SaidAt().Compare(b.SaidAt()); c != 0 {
			return c
		}
		return compareClaims(&a, &b)
	})
	text, imp := "", 0
	var attrs map[string]any // made for the first attribute
	set := func(k string, v any) {
		if attrs == nil {
			attrs = map[string]any{}
		}
		attrs[k] = v
	}
	if v, ok := f.Attributes["merged_into"]; ok {
		set("merged_into", v)
	}
	for _, c := range starts {
		if c.Text != "" {
			text = c.Text
		}
		if c.Importance != 0 {
			imp = c.Importance
		}
		for k, v := range c.Attributes {
			set(k, v)
		}
	}
	if text == "" {
		text = defaultText(f)
	}
	if imp == 0 {
		imp = DefaultImportance
	}
	if len(attrs) == 0 {
		attrs = nil
	}
	changed := text != f.Text || imp != f.Importance || !sameAttributes(attrs, f.Attributes)
	f.Text, f.Importance, f.Attributes = text, imp, attrs
	return changed
}

// tieWarning tells a statement that its value met another stated for the
// same instant (rule 4a).
func tieWarning(s *segment) string {
	switch {
	case s.succ != nil && s.to != nil && s.to.Equal(s.from):
		return fmt.Sprintf("another value (%s) was stated for the same instant and wins the tie rule (source kind, then the later statement, then the value)", s.succ.text)
	case len(s.conflicts) > 0:
		return fmt.Sprintf("other values (%s) were stated for the same instant; this one wins the tie rule", strings.Join(s.conflicts, ", "))
	}
	return ""
}

// report is the last phase: one outcome per incoming statement.
func (w *work) report() Result {
	outcomes := make([]Outcome, len(w.in))
	firstSeen := map[*segment]bool{}
	for k := range w.refs {
		r := &w.refs[k]
		if r.in < 0 {
			continue
		}
		s := w.segOf[k]
		if s == nil {
			outcomes[r.in] = Outcome{Action: Ended, Warning: WaitingForStart}
			continue
		}
		i := s.fact
		f := &w.facts[i]
		o := Outcome{FactID: f.ID}
		switch {
		case r.c.End:
			o.Action = Ended
		case i < w.existing || firstSeen[s]:
			o.Action = Corroborated
			if i < w.existing && r.c.Dated && (!f.ValidFrom.Equal(w.oldFrom[i]) || !eqTime(f.ValidTo, w.oldTo[i])) {
				o.Action = Corrected
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
			o.Warning = tieWarning(s)
		}
		if s.pred != nil && (o.Action == SupersededPrevious || o.Action == Historical) {
			o.Superseded = []string{w.facts[s.pred.fact].ID}
		}
		outcomes[r.in] = o
	}
	for j, k := range w.dup {
		if k < 0 {
			continue
		}
		o := Outcome{Action: Corroborated}
		switch s := w.segOf[k]; {
		case s != nil:
			o.FactID = w.facts[s.fact].ID
		case w.refs[k].c.End:
			o = Outcome{Action: Ended, Warning: WaitingForStart}
		}
		outcomes[j] = o
	}
	var res Result
	res.Outcomes = outcomes
	n := 0
	for _, d := range w.dirty {
		if d {
			n++
		}
	}
	res.Writes = make([]entity.Fact, 0, n) // a fact is large: no regrowing
	for i := range w.facts {
		if w.dirty[i] {
			res.Writes = append(res.Writes, w.facts[i])
		}
	}
	return res
}
