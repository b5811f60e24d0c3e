package eval

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/memory"
)

func TestPathQuestions_Deterministic(t *testing.T) {
	a, b := PathQuestions(TuneSeed, 120), PathQuestions(TuneSeed, 120)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave different questions")
	}
	if c := PathQuestions(ReportSeed, 120); reflect.DeepEqual(a, c) {
		t.Fatal("the dev and test seeds gave the same questions")
	}
	if len(a) != 120 {
		t.Fatalf("%d questions, want 120", len(a))
	}
}

// TestPathQuestions_PathsHold checks every recorded path against the
// generated facts themselves, not through the timeline that made it: each
// fact was written, had begun by the question's time and was not replaced
// by then; hops join; the answers are the last hop's targets.
func TestPathQuestions_PathsHold(t *testing.T) {
	for _, seed := range []uint64{TuneSeed, ReportSeed} {
		facts := generateCatalog(seed, 0).facts
		qs := generatePathQuestions(seed, facts, PathQuestionsDefault)
		shapes, chains := map[string]int{}, map[string]bool{}
		var heldOut, zh int
		for _, q := range qs {
			shapes[q.Shape]++
			chains[q.Chain] = true
			if q.HeldOut {
				heldOut++
			}
			if q.Lang == "zh" {
				zh++
			}
			checkPath(t, facts, q)
			if q.Shape == ShapeDated {
				if q.When == "" || !strings.Contains(q.Text, q.When) {
					t.Errorf("dated question %q does not name its time %q", q.Text, q.When)
				}
				// A current answer is wrong (read plainly for chains of
				// "one" predicates).
				_, answers := pathAt(facts, q.Anchor, q.Hops, catalogNow)
				if !slices.Contains(q.Hops, "targets") && slices.Equal(answers, q.Answers) {
					t.Errorf("dated question %q: the answer at %s is today's", q.Text, q.At.Format(time.DateOnly))
				}
			}
		}
		if shapes[ShapeTwoHop] != 120 || shapes[ShapeThreeHop] != 90 || shapes[ShapeDated] != 90 {
			t.Errorf("seed %d: shapes %v, want 120 two-hop, 90 three-hop, 90 dated", seed, shapes)
		}
		for _, c := range pathChains {
			if !chains[c.name()] {
				t.Errorf("seed %d: chain %s never asked", seed, c.name())
			}
		}
		if heldOut == 0 || zh == 0 {
			t.Errorf("seed %d: %d held-out wordings, %d Chinese questions: want some of each", seed, heldOut, zh)
		}
	}
}

// checkPath checks q's path hop by hop against the facts.
func checkPath(t *testing.T, facts []memory.FactInput, q PathQuestion) {
	t.Helper()
	subjects := []string{q.Anchor}
	for hop, pred := range q.Hops {
		var targets []string
		for _, p := range q.Path {
			if p.Hop != hop {
				continue
			}
			if p.Predicate != pred || !slices.Contains(subjects, p.Subject) {
				t.Errorf("%q: hop %d fact %s %s does not follow from %v", q.Text, hop+1, p.Subject, p.Predicate, subjects)
			}
			if p.ValidFrom.After(q.At) {
				t.Errorf("%q: hop %d fact begins after the question's time", q.Text, hop+1)
			}
			written := slices.ContainsFunc(facts, func(f memory.FactInput) bool {
				return f.Subject == p.Subject && f.Predicate == p.Predicate && f.Object == p.Object && f.Value == p.Value &&
					f.ValidFrom.Equal(p.ValidFrom)
			})
			if !written {
				t.Errorf("%q: hop %d fact %s %s %s was never written", q.Text, hop+1, p.Subject, p.Predicate, p.Target())
			}
			if pred != "targets" {
				replaced := slices.ContainsFunc(facts, func(f memory.FactInput) bool {
					return f.Subject == p.Subject && f.Predicate == p.Predicate && f.ValidFrom.After(p.ValidFrom) && !f.ValidFrom.After(q.At)
				})
				if replaced {
					t.Errorf("%q: hop %d fact %s %s %s was replaced by %s", q.Text, hop+1, p.Subject, p.Predicate, p.Target(), q.At)
				}
			}
			if !slices.Contains(targets, p.Target()) {
				targets = append(targets, p.Target())
			}
		}
		for _, s := range subjects {
			if !slices.ContainsFunc(q.Path, func(p PathFact) bool { return p.Hop == hop && p.Subject == s }) {
				t.Errorf("%q: hop %d has no fact of %s", q.Text, hop+1, s)
			}
		}
		subjects = targets
	}
	slices.Sort(subjects)
	if !slices.Equal(subjects, q.Answers) {
		t.Errorf("%q: answers %v, the path ends at %v", q.Text, q.Answers, subjects)
	}
}

// pathAt is a plain reading of the facts: the answers of a chain at t,
// for chains of "one" predicates.
func pathAt(facts []memory.FactInput, anchor string, preds []string, t time.Time) (bool, []string) {
	cur := anchor
	for _, p := range preds {
		var best *memory.FactInput
		for i, f := range facts {
			if f.Subject == cur && f.Predicate == p && !f.ValidFrom.After(t) && (best == nil || f.ValidFrom.After(*best.ValidFrom)) {
				best = &facts[i]
			}
		}
		if best == nil {
			return false, nil
		}
		cur = best.Object
		if cur == "" {
			cur = best.Value
		}
	}
	return true, []string{cur}
}

func TestScorePath(t *testing.T) {
	q := PathQuestion{Hops: []string{"owned_by", "led_by"}, Answers: []string{"Nadia Kim"},
		Path: []PathFact{
			{Hop: 0, Subject: "cart-api", Predicate: "owned_by", Object: "Team Heron"},
			{Hop: 1, Subject: "Team Heron", Predicate: "led_by", Object: "Nadia Kim"},
		}}
	ids := []string{"f1", "f2"}
	block := func(text string, facts ...string) pathBlock {
		b := pathBlock{text: text, facts: map[string]bool{}}
		for _, f := range facts {
			b.facts[f] = true
		}
		return b
	}
	for _, tc := range []struct {
		name        string
		b           pathBlock
		all, answer bool
		hops        []bool
	}{
		{"Both", block("cart-api is owned by Team Heron\nTeam Heron is led by Nadia Kim", "f1", "f2"), true, true, []bool{true, true}},
		{"FirstOnly", block("cart-api is owned by Team Heron", "f1", "f9"), false, false, []bool{true, false}},
		{"AnswerWithoutFact", block("Team Kite is led by nadia kim.", "f7"), false, true, []bool{false, false}},
		{"AnswerInsideAWord", block("Nadia Kimura leads Team Heron", "f2"), false, false, []bool{false, true}},
		{"Empty", block(""), false, false, []bool{false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := scorePath(tc.b, q, ids)
			if h.all != tc.all || h.answer != tc.answer || !slices.Equal(h.hops, tc.hops) {
				t.Errorf("got all %v answer %v hops %v, want %v %v %v", h.all, h.answer, h.hops, tc.all, tc.answer, tc.hops)
			}
		})
	}

	// Tallies: two questions of different shapes, one fully held.
	tl := pathTally{}
	q.Shape = ShapeTwoHop
	tl.add(q, scorePath(block("Team Heron is led by Nadia Kim", "f1", "f2"), q, ids), 10, time.Millisecond)
	q3 := q
	q3.Shape, q3.Lang, q3.HeldOut = ShapeDated, "zh", true
	tl.add(q3, scorePath(block("cart-api is owned by Team Heron", "f1"), q3, ids), 30, time.Millisecond)
	s := tl.scores()
	if a := s[pathAll]; a.Questions != 2 || a.AllFacts != 0.5 || a.Answer != 0.5 || a.Tokens != 20 || !slices.Equal(a.ByHop, []float64{1, 0.5}) {
		t.Errorf("all: %+v", a)
	}
	if d := s[ShapeDated]; d.Questions != 1 || d.AllFacts != 0 || s[pathZh].Questions != 1 || s[pathHeldOut].Questions != 1 {
		t.Errorf("dated %+v, zh %+v, held out %+v", d, s[pathZh], s[pathHeldOut])
	}
}

// TestCatalogPaths loads the dev seed's catalog and asks only its
// relational questions: every recorded path resolves to stored facts, and
// the report has every shape for both systems.
func TestCatalogPaths(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a generated catalog of about 9,000 facts")
	}
	rep, err := Catalog(context.Background(), CatalogOptions{Seed: TuneSeed, PathsOnly: true, PathQuestions: 60})
	if err != nil {
		t.Fatal(err) // a path fact the store does not hold fails here
	}
	var b strings.Builder
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	p := rep.Paths
	if p == nil || p.Questions != 60 || rep.BaselineSet() != "" {
		t.Fatalf("relational report %+v, baseline set %q: want 60 questions and no baseline", p, rep.BaselineSet())
	}
	for _, shape := range append(slices.Clone(PathShapes), pathAll) {
		g, base := p.Graphmem[shape], p.Baseline[shape]
		if g.Questions == 0 || g.Questions != base.Questions || len(g.ByHop) < 2 || g.Tokens == 0 || base.Tokens == 0 {
			t.Errorf("%s: graphmem %+v, BM25 %+v", shape, g, base)
		}
	}
	// The first hop names the anchor: today's builder already finds it.
	if h := p.Graphmem[pathAll].ByHop[0]; h < 0.8 {
		t.Errorf("first hop's fact in the block %.3f: want at least 0.8", h)
	}
}
