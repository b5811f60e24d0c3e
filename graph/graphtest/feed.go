package graphtest

import (
	"slices"
	"testing"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// testScopeFeed checks ScopeChanges and Heads: each scope's feed is the
// store's feed cut to that scope, in the same order, pages alike; a head is
// the scope's latest change.
func testScopeFeed(t *testing.T, open Opener) {
	s := fresh(t, open)
	heads := func() map[entity.Scope]uint64 {
		t.Helper()
		h, err := s.Heads(ctx)
		if err != nil {
			t.Fatalf("Heads: %v", err)
		}
		return h
	}
	if h := heads(); len(h) != 0 {
		t.Errorf("Heads of an empty store: %v", h)
	}
	update(t, s, ScopeA, putEntities(NewEntity("e1", "Alice"), NewEntity("e2", "Bob")))
	update(t, s, ScopeB, putFacts(NewFact("f1", "e1", "knows", "e2", Day(0), nil)))
	update(t, s, ScopeA, putFacts(NewFact("f1", "e1", "knows", "e2", Day(0), nil)))
	update(t, s, ScopeA, func(tx graph.Tx) error { return tx.DeleteEntity("e2") })
	all := allChanges(t, s, 0)
	h := heads()
	for _, scope := range []entity.Scope{ScopeA, ScopeB} {
		var want []graph.Change
		for _, c := range all {
			if c.Scope == scope {
				want = append(want, c)
			}
		}
		for _, limit := range []int{0, 1, 2, 100} {
			var got []graph.Change
			after := uint64(0)
			for {
				page, err := s.ScopeChanges(ctx, scope, after, limit)
				if err != nil {
					t.Fatalf("ScopeChanges(%s, %d, %d): %v", scope, after, limit, err)
				}
				if limit > 0 && len(page) > limit {
					t.Fatalf("ScopeChanges(%s, %d, %d) returned %d", scope, after, limit, len(page))
				}
				got = append(got, page...)
				if len(page) == 0 || limit <= 0 {
					break
				}
				after = page[len(page)-1].Seq
			}
			if !slices.Equal(got, want) {
				t.Errorf("ScopeChanges(%s) by %d: %+v, want %+v", scope, limit, got, want)
			}
		}
		if last := want[len(want)-1].Seq; h[scope] != last {
			t.Errorf("Heads[%s] = %d, its latest change is %d", scope, h[scope], last)
		}
	}
	if cs, err := s.ScopeChanges(ctx, "test:none", 0, 10); err != nil || len(cs) != 0 {
		t.Errorf("ScopeChanges of a scope never written: %+v, %v", cs, err)
	}
	// A later write in B is listed after B's head and moves it.
	before := h[ScopeB]
	update(t, s, ScopeB, putEntities(NewEntity("e9", "Zed")))
	cs, err := s.ScopeChanges(ctx, ScopeB, before, 0)
	if err != nil || len(cs) != 1 || cs[0].ID != "e9" {
		t.Fatalf("ScopeChanges(B) after its head: %+v, %v", cs, err)
	}
	if h := heads(); h[ScopeB] != cs[0].Seq || h[ScopeA] != heads()[ScopeA] {
		t.Errorf("Heads after B's write: %v, want B at %d", h, cs[0].Seq)
	}
}
