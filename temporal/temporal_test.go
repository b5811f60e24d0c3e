package temporal_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/temporal"
)

var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func day(n int) time.Time { return t0.AddDate(0, 0, n) }
func dayp(n int) *time.Time {
	t := day(n)
	return &t
}

// chain is an in-memory store of one chain, the way the service uses Apply.
type chain struct {
	facts []entity.Fact
	card  ontology.Cardinality
	now   time.Time
	n     int
}

func newChain(card ontology.Cardinality) *chain { return &chain{card: card, now: t0.AddDate(5, 0, 0)} }

func (c *chain) newID() string { c.n++; return fmt.Sprintf("f%03d", c.n) }

func (c *chain) apply(t *testing.T, sts ...temporal.Statement) []temporal.Outcome {
	t.Helper()
	c.now = c.now.Add(time.Minute)
	res := temporal.Apply(c.facts, sts, temporal.Rules{Cardinality: c.card}, c.now, c.newID)
	c.write(res.Writes)
	return res.Outcomes
}

func (c *chain) write(ws []entity.Fact) {
	for _, w := range ws {
		i := slices.IndexFunc(c.facts, func(f entity.Fact) bool { return f.ID == w.ID })
		if i < 0 {
			c.facts = append(c.facts, w)
		} else {
			c.facts[i] = w
		}
	}
}

func (c *chain) byID(id string) entity.Fact {
	i := slices.IndexFunc(c.facts, func(f entity.Fact) bool { return f.ID == id })
	return c.facts[i]
}

// view renders the chain as believed at k: "obj[from,to)" sorted by from.
func view(facts []entity.Fact, k time.Time) string {
	var parts []string
	var live []entity.Fact
	for _, f := range facts {
		if f.KnownAt(k) {
			live = append(live, f.AsKnownAt(k))
		}
	}
	slices.SortFunc(live, func(a, b entity.Fact) int {
		if c := a.ValidFrom.Compare(b.ValidFrom); c != 0 {
			return c
		}
		return strings.Compare(a.Value, b.Value)
	})
	for _, f := range live {
		to := "∞"
		if f.ValidTo != nil {
			to = fmt.Sprint(int(f.ValidTo.Sub(t0).Hours() / 24))
		}
		parts = append(parts, fmt.Sprintf("%s[%d,%s)", f.Value, int(f.ValidFrom.Sub(t0).Hours()/24), to))
	}
	return strings.Join(parts, " ")
}

func st(value string, from int, to ...int) temporal.Statement {
	f := entity.Fact{Scope: "s", SubjectID: "e1", Subject: "db", Predicate: "port", Value: value,
		ValidFrom: day(from), SourceKind: entity.UserExplicit, Confidence: 0.8}
	if len(to) > 0 {
		f.ValidTo = dayp(to[0])
	}
	return temporal.Statement{Fact: f, Dated: true}
}

func end(value string, at int) temporal.Statement {
	s := st(value, 0)
	s.Fact.ValidFrom = time.Time{}
	s.Fact.ValidTo = dayp(at)
	s.End = true
	return s
}

func TestRule1_Corroborate(t *testing.T) {
	c := newChain(ontology.One)
	o1 := c.apply(t, st("5432", 10))
	s := st("5432", 20)
	s.Dated = false // said on day 20, without a start: corroborates
	s.Fact.EpisodeIDs = []string{"ep2"}
	o2 := c.apply(t, s)
	if o2[0].Action != temporal.Corroborated || o2[0].FactID != o1[0].FactID {
		t.Fatalf("got %+v, want corroborated %s", o2[0], o1[0].FactID)
	}
	f := c.byID(o1[0].FactID)
	if len(c.facts) != 1 || !slices.Contains(f.EpisodeIDs, "ep2") || f.Confidence <= 0.8 {
		t.Fatalf("corroboration did not add provenance and confidence: %+v", f)
	}
	t.Run("Idempotent", func(t *testing.T) {
		res := temporal.Apply(c.facts, []temporal.Statement{s}, temporal.Rules{Cardinality: c.card}, c.now, c.newID)
		if len(res.Writes) != 0 || res.Outcomes[0].Action != temporal.Corroborated {
			t.Fatalf("repeating a statement wrote %d facts, outcome %+v", len(res.Writes), res.Outcomes[0])
		}
	})
	t.Run("WidenBackwards", func(t *testing.T) {
		c.apply(t, st("5432", 5))
		if got := view(c.facts, c.now); got != "5432[5,∞)" {
			t.Fatalf("got %s", got)
		}
	})
}

func TestRule2_Supersede(t *testing.T) {
	c := newChain(ontology.One)
	o1 := c.apply(t, st("5432", 10))
	o2 := c.apply(t, st("3307", 20))
	if o2[0].Action != temporal.SupersededPrevious || !slices.Equal(o2[0].Superseded, []string{o1[0].FactID}) {
		t.Fatalf("got %+v", o2[0])
	}
	if got := view(c.facts, c.now); got != "5432[10,20) 3307[20,∞)" {
		t.Fatalf("got %s", got)
	}
	old, cur := c.byID(o1[0].FactID), c.byID(o2[0].FactID)
	if old.SupersededBy != cur.ID || cur.Supersedes != old.ID || old.Status(c.now) != entity.StatusSuperseded {
		t.Fatalf("links wrong: old %+v cur %+v", old, cur)
	}
}

func TestRule3_Backdated(t *testing.T) {
	c := newChain(ontology.One)
	c.apply(t, st("acme", 20))
	o := c.apply(t, st("initech", 10))
	if o[0].Action != temporal.Historical {
		t.Fatalf("got %+v", o[0])
	}
	if got := view(c.facts, c.now); got != "initech[10,20) acme[20,∞)" {
		t.Fatalf("got %s", got)
	}
	// A backdated value between two known ones is linked in its place.
	o = c.apply(t, st("globex", 15))
	if o[0].Action != temporal.Historical || len(o[0].Superseded) != 1 {
		t.Fatalf("got %+v", o[0])
	}
	if got := view(c.facts, c.now); got != "initech[10,15) globex[15,20) acme[20,∞)" {
		t.Fatalf("got %s", got)
	}
}

func TestRule4_ExplicitEnd(t *testing.T) {
	c := newChain(ontology.One)
	o1 := c.apply(t, st("acme", 10))
	o := c.apply(t, end("acme", 30))
	if o[0].Action != temporal.Ended || o[0].FactID != o1[0].FactID {
		t.Fatalf("got %+v", o[0])
	}
	if got := view(c.facts, c.now); got != "acme[10,30)" {
		t.Fatalf("got %s", got)
	}
	if f := c.byID(o1[0].FactID); f.Status(c.now) != entity.StatusEnded {
		t.Fatalf("status %s", f.Status(c.now))
	}
	t.Run("NothingToEnd", func(t *testing.T) {
		if o := c.apply(t, end("initech", 40)); o[0].Action != temporal.Ended || o[0].Warning != temporal.WaitingForStart || o[0].FactID != "" {
			t.Fatalf("got %+v", o[0])
		}
	})
	t.Run("Rejoin", func(t *testing.T) {
		c.apply(t, st("acme", 50))
		if got := view(c.facts, c.now); got != "acme[10,30) acme[50,∞)" {
			t.Fatalf("got %s", got)
		}
	})
}

func TestRule5_Retract(t *testing.T) {
	c := newChain(ontology.One)
	o1 := c.apply(t, st("5432", 10))
	o2 := c.apply(t, st("3307", 20))
	before := c.now
	c.now = c.now.Add(time.Minute)
	res, err := temporal.Retract(c.facts, o2[0].FactID, temporal.Rules{Cardinality: c.card}, c.now, c.newID)
	if err != nil {
		t.Fatal(err)
	}
	c.write(res.Writes)
	if got := view(c.facts, c.now); got != "5432[10,∞)" {
		t.Fatalf("after retraction got %s", got)
	}
	if got := view(c.facts, before); got != "5432[10,20) 3307[20,∞)" {
		t.Fatalf("known before the retraction got %s", got)
	}
	if f := c.byID(o2[0].FactID); f.Status(c.now) != entity.StatusRetracted {
		t.Fatalf("status %s", f.Status(c.now))
	}
	_ = o1
	if _, err := temporal.Retract(c.facts, "nope", temporal.Rules{Cardinality: c.card}, c.now, c.newID); entity.ErrorCode(err) != entity.ENOTFOUND {
		t.Fatalf("err %v", err)
	}
}

func TestRule6_Many(t *testing.T) {
	c := newChain(ontology.Many)
	c.apply(t, st("tea", 10))
	o := c.apply(t, st("coffee", 20))
	if o[0].Action != temporal.Created {
		t.Fatalf("got %+v", o[0])
	}
	if got := view(c.facts, c.now); got != "tea[10,∞) coffee[20,∞)" {
		t.Fatalf("got %s", got)
	}
	c.apply(t, end("tea", 30))
	if got := view(c.facts, c.now); got != "tea[10,30) coffee[20,∞)" {
		t.Fatalf("got %s", got)
	}
}

// TestRule7_OnlyTheChain: facts of another subject, predicate or scope
// handed to Apply next to the chain — even with the same value, or one that
// a "one" predicate would supersede — are neither ended nor rewritten.
func TestRule7_OnlyTheChain(t *testing.T) {
	c := newChain(ontology.One)
	c.apply(t, st("5432", 10))
	others := []entity.Fact{}
	for i, mod := range []func(*entity.Fact){
		func(f *entity.Fact) { f.SubjectID, f.Subject = "e2", "other db" },
		func(f *entity.Fact) { f.Predicate = "replica_port" },
		func(f *entity.Fact) { f.Scope = "other" },
	} {
		g := c.facts[0].Clone()
		g.ID = fmt.Sprintf("other%d", i)
		mod(&g)
		others = append(others, g)
	}
	c.facts = append(c.facts, others...)
	o := c.apply(t, st("3307", 20))
	if o[0].Action != temporal.SupersededPrevious || len(o[0].Superseded) != 1 || o[0].Superseded[0] != c.facts[0].ID {
		t.Fatalf("got %+v", o[0])
	}
	for i, g := range others {
		if got := c.byID(g.ID); got.ValidTo != nil || got.SupersededBy != "" || got.ExpiredAt != nil {
			t.Errorf("a fact of another chain (%d) was changed: %+v", i, got)
		}
	}
	o = c.apply(t, st("5432", 30))
	if got := c.byID(others[0].ID); got.ValidTo != nil || len(got.Claims) != 1 {
		t.Errorf("the same value of another subject took a claim: %+v (outcome %+v)", got, o[0])
	}
}

func TestSameBatchDuplicate(t *testing.T) {
	c := newChain(ontology.One)
	o := c.apply(t, st("a", 1), st("a", 1))
	if o[0].Action != temporal.Created || o[1].Action != temporal.Corroborated || o[0].FactID != o[1].FactID {
		t.Fatalf("got %+v", o)
	}
}

// randomHistory returns statements over a few values and days with every
// shape: dated starts (some with an end), undated ones (their start is when
// they were said), "start unknown", end-only statements, repetitions,
// corrections (the same value restated later with other bounds) and values
// stated for the same instant by different sources. Each statement has its
// own reference time, ties included.
func randomHistory(r *rand.Rand) []temporal.Statement {
	n := 1 + r.IntN(9)
	kinds := []entity.SourceKind{entity.UserExplicit, entity.AgentInferred, entity.Tool}
	var sts []temporal.Statement
	for range n {
		v := string(rune('a' + r.IntN(3)))
		d := r.IntN(40)
		var s temporal.Statement
		switch k := r.IntN(10); {
		case k < 4:
			s = st(v, d)
			if r.IntN(3) == 0 {
				s.Fact.ValidTo = dayp(d + 1 + r.IntN(20))
			}
		case k < 5:
			s = st(v, d) // undated: true when said
			s.Dated = false
		case k < 6:
			s = st(v, 0)
			s.Fact.ValidFrom = time.Time{} // start unknown
			if r.IntN(2) == 0 {
				s.Fact.ValidTo = dayp(d + 1)
			}
		case k < 8:
			s = end(v, d+1)
		default:
			if len(sts) == 0 {
				s = st(v, d)
				break
			}
			// A repetition or a correction of an earlier statement.
			s = sts[r.IntN(len(sts))]
			s.Fact = s.Fact.Clone()
			if r.IntN(2) == 0 && !s.End && s.Dated {
				s.Fact.ValidFrom = day(d)
				if s.Fact.ValidTo != nil && !s.Fact.ValidTo.After(day(d)) {
					s.Fact.ValidTo = nil
				}
			}
		}
		s.Fact.SourceKind = kinds[r.IntN(len(kinds))]
		s.Said = day(r.IntN(50))
		if !s.Dated && !s.End {
			s.Fact.ValidFrom = s.Said
		}
		if r.IntN(3) == 0 {
			s.Fact.Text = fmt.Sprintf("%s said on %d", v, r.IntN(5))
		}
		sts = append(sts, s)
	}
	return sts
}

// fullView is view with each fact's text and conflicts.
func fullView(facts []entity.Fact, k time.Time) string {
	var live []entity.Fact
	for _, f := range facts {
		if f.KnownAt(k) {
			live = append(live, f.AsKnownAt(k))
		}
	}
	var parts []string
	for _, f := range live {
		to := "∞"
		if f.ValidTo != nil {
			to = fmt.Sprint(int(f.ValidTo.Sub(t0).Hours() / 24))
		}
		from := "?"
		if !f.ValidFrom.IsZero() {
			from = fmt.Sprint(int(f.ValidFrom.Sub(t0).Hours() / 24))
		}
		parts = append(parts, fmt.Sprintf("%s[%s,%s) %q %v", f.Value, from, to, f.Text, f.Conflicts))
	}
	slices.Sort(parts)
	return strings.Join(parts, " | ")
}

// TestProperties checks the invariants of the package over random
// histories of every statement shape, each applied in three random orders
// (two one by one, the third in batches of random sizes) and once as one
// batch, then the first fact by content retracted: the same chain
// (intervals, texts, conflicts) in every order; for a "one" predicate never
// two values at one instant; and every belief ever held still visible as
// known then.
func TestProperties(t *testing.T) {
	runs := 10000
	if testing.Short() {
		runs = 1000
	}
	r := rand.New(rand.NewPCG(1, 2))
	for run := range runs {
		card := ontology.One
		if run%3 == 0 {
			card = ontology.Many
		}
		sts := randomHistory(r)
		var want string
		for order := range 3 {
			c := newChain(card)
			perm := r.Perm(len(sts))
			var snaps []string
			var times []time.Time
			for len(perm) > 0 {
				// The third order arrives in batches of random sizes.
				n := 1
				if order == 2 {
					n = 1 + r.IntN(len(perm))
				}
				batch := make([]temporal.Statement, n)
				for j, i := range perm[:n] {
					batch[j] = sts[i]
				}
				perm = perm[n:]
				c.apply(t, batch...)
				snaps = append(snaps, view(c.facts, c.now))
				times = append(times, c.now)
				if card == ontology.One {
					checkNoOverlap(t, c.facts, c.now)
				}
			}
			retractFirst(t, c)
			got := fullView(c.facts, c.now)
			if order == 0 {
				want = got
			} else if got != want {
				t.Fatalf("run %d (%s): order changed the history:\n%s\n%s\nstatements %s", run, card, want, got, describe(sts))
			}
			for i, k := range times {
				if v := view(c.facts, k); v != snaps[i] {
					t.Fatalf("run %d: known at step %d got %s, then it was %s", run, i, v, snaps[i])
				}
			}
		}
		c := newChain(card)
		c.apply(t, sts...)
		retractFirst(t, c)
		if got := fullView(c.facts, c.now); got != want {
			t.Fatalf("run %d: one batch gave %s, one by one %s\nstatements %s", run, got, want, describe(sts))
		}
	}
}

// retractFirst retracts the live fact that comes first by content (start,
// value, end): the same fact whatever the order the statements came in.
func retractFirst(t *testing.T, c *chain) {
	t.Helper()
	var live []entity.Fact
	for _, f := range c.facts {
		if f.ExpiredAt == nil {
			live = append(live, f)
		}
	}
	if len(live) == 0 {
		return
	}
	slices.SortFunc(live, func(a, b entity.Fact) int {
		if x := a.ValidFrom.Compare(b.ValidFrom); x != 0 {
			return x
		}
		if x := strings.Compare(a.Value, b.Value); x != 0 {
			return x
		}
		return strings.Compare(fmt.Sprint(a.ValidTo), fmt.Sprint(b.ValidTo))
	})
	c.now = c.now.Add(time.Minute)
	res, err := temporal.Retract(c.facts, live[0].ID, temporal.Rules{Cardinality: c.card}, c.now, c.newID)
	if err != nil {
		t.Fatal(err)
	}
	c.write(res.Writes)
}

func describe(sts []temporal.Statement) string {
	var out []string
	for _, s := range sts {
		f := s.Fact
		to := ""
		if f.ValidTo != nil {
			to = fmt.Sprint(int(f.ValidTo.Sub(t0).Hours() / 24))
		}
		out = append(out, fmt.Sprintf("{%s from=%d dated=%v to=%s end=%v said=%d src=%s text=%q}", f.Value,
			int(f.ValidFrom.Sub(t0).Hours()/24), s.Dated, to, s.End, int(s.Said.Sub(t0).Hours()/24), f.SourceKind, f.Text))
	}
	return strings.Join(out, " ")
}

func checkNoOverlap(t *testing.T, facts []entity.Fact, now time.Time) {
	t.Helper()
	for i := range facts {
		for j := i + 1; j < len(facts); j++ {
			a, b := facts[i], facts[j]
			if !a.KnownAt(now) || !b.KnownAt(now) {
				continue
			}
			if a.Overlaps(b.ValidFrom, b.ValidTo) && b.Overlaps(a.ValidFrom, a.ValidTo) &&
				nonEmpty(a) && nonEmpty(b) {
				t.Fatalf("overlap: %s[%v,%v) and %s[%v,%v)", a.Value, a.ValidFrom, a.ValidTo, b.Value, b.ValidFrom, b.ValidTo)
			}
		}
	}
}

func nonEmpty(f entity.Fact) bool { return f.ValidTo == nil || f.ValidTo.After(f.ValidFrom) }

// An explicit end and a new value at the same instant (one message saying
// "moved from 5432 to 3307") is a supersession, whatever the order.
func TestEndAndNewValueAtOneInstant(t *testing.T) {
	for _, order := range [][]int{{0, 1}, {1, 0}} {
		c := newChain(ontology.One)
		o1 := c.apply(t, st("5432", 10))
		sts := []temporal.Statement{st("3307", 20), end("5432", 20)}
		o := c.apply(t, sts[order[0]], sts[order[1]])
		var newID string
		for i, k := range order {
			if k == 0 {
				newID = o[i].FactID
				if o[i].Action != temporal.SupersededPrevious {
					t.Fatalf("order %v: %+v", order, o)
				}
			}
		}
		if old := c.byID(o1[0].FactID); old.SupersededBy != newID || old.Status(c.now) != entity.StatusSuperseded {
			t.Fatalf("order %v: old %+v", order, old)
		}
		if got := view(c.facts, c.now); got != "5432[10,20) 3307[20,∞)" {
			t.Fatalf("got %s", got)
		}
	}
}
