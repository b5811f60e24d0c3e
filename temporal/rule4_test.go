package temporal_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/temporal"
)

// said returns s as stated on day n by a source of kind k.
func said(s temporal.Statement, n int, k entity.SourceKind) temporal.Statement {
	s.Said = day(n)
	s.Fact.SourceKind = k
	if !s.Dated && !s.End {
		s.Fact.ValidFrom = s.Said // an undated start is when it was said
	}
	return s
}

func undated(value string) temporal.Statement {
	s := st(value, 0)
	s.Dated = false
	return s
}

func unknownStart(value string) temporal.Statement {
	s := st(value, 0)
	s.Fact.ValidFrom = time.Time{}
	return s
}

// spans renders the facts believed now as "value[from,to)" sorted, with
// "?" for an unknown start and the losers of a tie after the winner.
func spans(facts []entity.Fact, now time.Time) string {
	var parts []string
	for _, f := range facts {
		if !f.KnownAt(now) {
			continue
		}
		from, to := "?", "∞"
		if !f.ValidFrom.IsZero() {
			from = fmt.Sprint(int(f.ValidFrom.Sub(t0).Hours() / 24))
		}
		if f.ValidTo != nil {
			to = fmt.Sprint(int(f.ValidTo.Sub(t0).Hours() / 24))
		}
		p := fmt.Sprintf("%s[%s,%s)", f.Value, from, to)
		if len(f.Conflicts) > 0 {
			p += fmt.Sprintf(" over %v", f.Conflicts)
		}
		parts = append(parts, p)
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// orders calls f with every arrival order of n statements.
func orders(n int, f func(order []int)) {
	var walk func(order []int, left []int)
	walk = func(order, left []int) {
		if len(left) == 0 {
			f(order)
			return
		}
		for i, k := range left {
			walk(append(slices.Clone(order), k), slices.Delete(slices.Clone(left), i, i+1))
		}
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	walk(nil, idx)
}

// settle applies sts one by one in every arrival order, and once as one
// batch, and checks each gives want.
func settle(t *testing.T, card ontology.Cardinality, sts []temporal.Statement, want string) {
	t.Helper()
	orders(len(sts), func(order []int) {
		c := newChain(card)
		for _, i := range order {
			c.apply(t, sts[i])
		}
		if got := spans(c.facts, c.now); got != want {
			t.Errorf("arriving in order %v: got %s, want %s", order, got, want)
		}
	})
	c := newChain(card)
	c.apply(t, sts...)
	if got := spans(c.facts, c.now); got != want {
		t.Errorf("in one batch: got %s, want %s", got, want)
	}
}

// TestRule4a_SameInstant: values of a "one" predicate stated for the same
// instant are decided by the most trusted source kind, then the latest
// statement, then the greater normalised value; the loser keeps an empty
// interval at that instant and the winner lists it in Conflicts.
func TestRule4a_SameInstant(t *testing.T) {
	for _, tc := range []struct {
		name string
		sts  []temporal.Statement
		want string
	}{{
		name: "StrongerSourceBeatsLaterStatement",
		sts: []temporal.Statement{
			said(st("alpha", 10), 30, entity.UserExplicit),
			said(st("beta", 10), 40, entity.AgentInferred),
		},
		want: "alpha[10,∞) over [beta] beta[10,10)",
	}, {
		name: "StrongerSourceBeatsGreaterValue",
		sts: []temporal.Statement{
			said(st("alpha", 10), 30, entity.Tool),
			said(st("beta", 10), 30, entity.Import),
		},
		want: "alpha[10,∞) over [beta] beta[10,10)",
	}, {
		name: "LaterStatementBeatsGreaterValue",
		sts: []temporal.Statement{
			said(st("alpha", 10), 40, entity.Tool),
			said(st("beta", 10), 30, entity.Tool),
		},
		want: "alpha[10,∞) over [beta] beta[10,10)",
	}, {
		name: "LaterStatementBeatsLesserValue",
		sts: []temporal.Statement{
			said(st("alpha", 10), 30, entity.Tool),
			said(st("beta", 10), 40, entity.Tool),
		},
		want: "alpha[10,10) beta[10,∞) over [alpha]",
	}, {
		// A value's latest statement speaks for it: alpha was said on day
		// 20 and again on day 50, after beta.
		name: "LatestStatementOfAValue",
		sts: []temporal.Statement{
			said(st("alpha", 10), 20, entity.Tool),
			said(st("beta", 10), 40, entity.Tool),
			said(st("alpha", 10), 50, entity.Tool),
		},
		want: "alpha[10,∞) over [beta] beta[10,10)",
	}, {
		// Normalised: "Zulu" is "zulu", greater than "alpha", though
		// 'Z' sorts before 'a' as bytes.
		name: "GreaterNormalisedValue",
		sts: []temporal.Statement{
			said(st("Zulu", 10), 30, entity.Tool),
			said(st("alpha", 10), 30, entity.Tool),
		},
		want: "Zulu[10,∞) over [alpha] alpha[10,10)",
	}} {
		t.Run(tc.name, func(t *testing.T) { settle(t, ontology.One, tc.sts, tc.want) })
	}
}

// TestRule4b_Correction: within one fact the latest dated statement (by
// reference time) sets the start, and the latest statement that gives an
// end sets the end; undated and "start unknown" statements give way.
func TestRule4b_Correction(t *testing.T) {
	k := entity.UserExplicit
	for _, tc := range []struct {
		name string
		sts  []temporal.Statement
		want string
	}{{
		name: "LaterStartSaidLater",
		sts:  []temporal.Statement{said(st("x", 5), 100, k), said(st("x", 10), 200, k)},
		want: "x[10,∞)",
	}, {
		name: "EarlierStartSaidLater",
		sts:  []temporal.Statement{said(st("x", 10), 100, k), said(st("x", 5), 200, k)},
		want: "x[5,∞)",
	}, {
		name: "EquallyLateEarliestStart",
		sts:  []temporal.Statement{said(st("x", 10), 100, k), said(st("x", 5), 100, k)},
		want: "x[5,∞)",
	}, {
		name: "LaterSourceKindDoesNotMatter",
		sts:  []temporal.Statement{said(st("x", 5), 100, entity.UserExplicit), said(st("x", 10), 200, entity.AgentInferred)},
		want: "x[10,∞)",
	}, {
		name: "UndatedSaidEarlierGivesWay",
		sts:  []temporal.Statement{said(undated("x"), 5, k), said(st("x", 10), 100, k)},
		want: "x[10,∞)",
	}, {
		name: "UndatedSaidLaterCorroborates",
		sts:  []temporal.Statement{said(st("x", 10), 100, k), said(undated("x"), 200, k)},
		want: "x[10,∞)",
	}, {
		name: "StartUnknownGivesWay",
		sts:  []temporal.Statement{said(st("x", 10), 100, k), said(unknownStart("x"), 200, k)},
		want: "x[10,∞)",
	}, {
		name: "LatestEndEarlier",
		sts:  []temporal.Statement{said(st("x", 5, 30), 100, k), said(st("x", 5, 20), 200, k)},
		want: "x[5,20)",
	}, {
		name: "LatestEndLater",
		sts:  []temporal.Statement{said(st("x", 5, 20), 100, k), said(st("x", 5, 30), 200, k)},
		want: "x[5,30)",
	}, {
		name: "NoEndSaysNothingOfTheEnd",
		sts:  []temporal.Statement{said(st("x", 5, 20), 100, k), said(st("x", 5), 200, k)},
		want: "x[5,20)",
	}, {
		name: "ExplicitEndSaidLater",
		sts:  []temporal.Statement{said(st("x", 5, 30), 100, k), said(end("x", 20), 200, k)},
		want: "x[5,20)",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			settle(t, ontology.One, tc.sts, tc.want)
			settle(t, ontology.Many, tc.sts, tc.want)
		})
	}
	t.Run("ActionCorrected", func(t *testing.T) {
		c := newChain(ontology.One)
		o1 := c.apply(t, said(st("x", 5), 100, k))
		o2 := c.apply(t, said(st("x", 10), 200, k))
		if o2[0].Action != temporal.Corrected || o2[0].FactID != o1[0].FactID {
			t.Fatalf("got %+v, want corrected %s", o2[0], o1[0].FactID)
		}
		// The former interval stays a revision: known before, it was [5,∞).
		f := c.byID(o1[0].FactID)
		if before := f.AsKnownAt(c.now.Add(-time.Second)); !before.ValidFrom.Equal(day(5)) {
			t.Fatalf("known before the correction: from %v, want day 5", before.ValidFrom)
		}
	})
}

// TestPassLimit: each correction can reveal the next, so a lane is swept
// and corrected until nothing moves (up to the pass limit). Here the end at
// 39 is overruled by the later-said end at 47, which joins the stint from
// 25 to the one from 39; only then does the latest start (39, said on day
// 21) correct it: three passes.
func TestPassLimit(t *testing.T) {
	k := entity.Tool
	sts := []temporal.Statement{
		said(st("b", 39, 47), 21, k),
		said(end("b", 39), 12, k),
		said(st("b", 25, 47), 16, k),
	}
	settle(t, ontology.One, sts, "b[39,47)")
}
