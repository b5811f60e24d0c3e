package graphtest

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// RandomGraph writes a random temporal graph: entities e00..e59 (e60..e64
// are named by facts but not stored), facts between them or to literals
// with random validity, some retracted, forgotten, expired or archived.
func RandomGraph(t testing.TB, s graph.Store, scope entity.Scope, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	const stored, named, facts = 60, 65, 600
	var es []entity.Entity
	for i := range stored {
		es = append(es, entity.Entity{ID: fmt.Sprintf("e%02d", i), Name: fmt.Sprintf("entity %d", i)})
	}
	day := Day
	var fs []entity.Fact
	for i := range facts {
		f := entity.Fact{
			ID:        fmt.Sprintf("f%04d", rng.IntN(10_000)*1000+i),
			SubjectID: fmt.Sprintf("e%02d", rng.IntN(named)),
			Predicate: []string{"knows", "works_at", "likes", "uses"}[rng.IntN(4)],
		}
		if rng.IntN(3) == 0 {
			f.Value = fmt.Sprintf("value %d", i)
		} else {
			f.ObjectID = fmt.Sprintf("e%02d", rng.IntN(named))
		}
		if rng.IntN(4) > 0 {
			f.ValidFrom = day(rng.IntN(20))
		}
		if rng.IntN(3) == 0 {
			f.ValidTo = Ptr(f.ValidFrom.AddDate(0, 0, 1+rng.IntN(10)))
			if f.ValidFrom.IsZero() {
				f.ValidTo = Ptr(day(rng.IntN(20)))
			}
		}
		switch rng.IntN(12) {
		case 0:
			f.ExpiredAt = Ptr(day(rng.IntN(30)))
		case 1:
			f.ForgottenAt = Ptr(day(1))
		case 2:
			f.ExpiresAt = Ptr(day(rng.IntN(30)))
		case 3:
			f.ArchivedAt = Ptr(day(2))
		}
		fs = append(fs, f)
	}
	err := s.Update(ctx, scope, func(tx graph.Tx) error {
		if err := tx.PutEntities(es[:stored/2]); err != nil {
			return err
		}
		if err := tx.PutFacts(fs); err != nil {
			return err
		}
		// Entities stored after their facts must be linked too.
		return tx.PutEntities(es[stored/2:])
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testWalk checks FactsAround against its definition (FactsOf, newest
// first, filtered by graph.Around.Admits) on a random temporal graph, and
// graph.Walk's policy, hub and frontier rules on a small one.
func testWalk(t *testing.T, open Opener) {
	t.Run("FactsAround", func(t *testing.T) {
		s := fresh(t, open)
		RandomGraph(t, s, "s1", 7)
		RandomGraph(t, s, "s2", 8) // same ids, other scope: must never leak in
		rng := rand.New(rand.NewPCG(3, 3))
		found := 0
		view(t, s, "s1", func(tx graph.Tx) error {
			for range 40 {
				a := graph.Around{Limit: []int{0, 1, 3, 1000}[rng.IntN(4)]}
				if rng.IntN(4) > 0 {
					a.AsOf = Day(rng.IntN(25))
				}
				if rng.IntN(4) > 0 {
					a.Now = Day(rng.IntN(30))
				}
				var ids []string
				for range 1 + rng.IntN(4) {
					ids = append(ids, fmt.Sprintf("e%02d", rng.IntN(66)))
				}
				ids = append(ids, ids[0]) // a repeated id is read once
				got, err := tx.FactsAround(ids, a)
				if err != nil {
					return err
				}
				// Bare: the same facts, claims and revisions perhaps left out.
				b := a
				b.Bare = true
				bare, err := tx.FactsAround(ids, b)
				if err != nil {
					return err
				}
				// Hub: the same facts, those of an entity with more than
				// Hub of them perhaps by id alone.
				h := a
				h.Hub = 1 + rng.IntN(3)
				hub, err := tx.FactsAround(ids, h)
				if err != nil {
					return err
				}
				for _, id := range ids {
					if !slices.Equal(factIDs(hub[id]), factIDs(got[id])) ||
						len(got[id]) <= h.Hub && !reflect.DeepEqual(hub[id], got[id]) {
						t.Errorf("FactsAround(%s, %+v) differs from FactsAround(%s, %+v)", id, h, id, a)
					}
				}
				for _, id := range ids {
					if !reflect.DeepEqual(bareList(bare[id]), bareList(got[id])) {
						t.Errorf("FactsAround(%s, %+v) bare differs beyond claims and revisions", id, a)
					}
				}
				for _, id := range ids {
					all, err := tx.FactsOf(id, 0)
					if err != nil {
						return err
					}
					var want []string
					for i := len(all) - 1; i >= 0 && (a.Limit <= 0 || len(want) < a.Limit); i-- {
						if a.Admits(&all[i]) {
							want = append(want, all[i].ID)
						}
					}
					for _, f := range got[id] {
						if f.Scope != "s1" {
							t.Errorf("FactsAround(%s) returned %s of scope %s", id, f.ID, f.Scope)
						}
					}
					if g := factIDs(got[id]); !slices.Equal(g, want) {
						t.Errorf("FactsAround(%s, %+v) = %q, want %q", id, a, g, want)
					}
					found += len(want)
				}
			}
			return nil
		})
		if found < 100 {
			t.Errorf("only %d facts found: the data does not exercise FactsAround", found)
		}
	})

	t.Run("BatchReads", func(t *testing.T) {
		s := fresh(t, open)
		RandomGraph(t, s, "s1", 7)
		RandomGraph(t, s, "s2", 8)
		update(t, s, "s1", func(tx graph.Tx) error {
			for _, id := range []string{"ep1", "ep2"} {
				if err := tx.PutEpisode(NewEpisode(id, entity.EpisodeDone, Day(1))); err != nil {
					return err
				}
			}
			return nil
		})
		view(t, s, "s1", func(tx graph.Tx) error { checkBatchReads(t, tx); return nil })
	})

	t.Run("CurrentFactsOfABusyEntity", func(t *testing.T) {
		// Sixty facts, the oldest fifty-five ended: reading in id order
		// with a limit would find no current one.
		s := fresh(t, open)
		var fs []entity.Fact
		for i := range 60 {
			var to = Ptr(Day(1))
			if i >= 55 {
				to = nil
			}
			fs = append(fs, NewValueFact(fmt.Sprintf("f%02d", i), "busy", "likes", fmt.Sprintf("v%d", i), Day(0), to))
		}
		update(t, s, ScopeA, func(tx graph.Tx) error { return tx.PutFacts(fs) })
		steps := must(t, s, ScopeA, func(tx graph.Tx) ([]graph.Step, error) {
			return graph.Walk(tx, graph.WalkQuery{Seeds: []string{"busy"}, Hops: 1, Read: 10, AsOf: Day(5), Now: Day(5)})
		})
		wantSteps(t, steps, "busy/1/f59", "busy/1/f58", "busy/1/f57", "busy/1/f56", "busy/1/f55")
	})

	t.Run("Policy", func(t *testing.T) {
		s := fresh(t, open)
		facts := []entity.Fact{
			NewFact("f1", "a", "knows", "b", Day(0), nil),
			NewFact("f2", "a", "knows", "c", Day(0), nil),
			NewValueFact("f3", "a", "likes", "tea", Day(0), nil),
			NewFact("f4", "b", "knows", "d", Day(0), nil),
			NewFact("f5", "b", "knows", "e", Day(0), nil),
			NewFact("f6", "b", "knows", "g", Day(0), nil),
			NewFact("f7", "c", "knows", "d", Day(0), nil),
			NewFact("f8", "c", "knows", "e", Day(0), Ptr(Day(1))),
		}
		update(t, s, ScopeA, func(tx graph.Tx) error { return tx.PutFacts(facts) })
		walk := func(q graph.WalkQuery) []graph.Step {
			q.AsOf, q.Now = Day(5), Day(5)
			return must(t, s, ScopeA, func(tx graph.Tx) ([]graph.Step, error) { return graph.Walk(tx, q) })
		}
		// b has four facts, more than Hub: not expanded at hop 2; f8 is
		// not valid at as_of.
		wantSteps(t, walk(graph.WalkQuery{Seeds: []string{"a"}, Hops: 2, Hub: 3}),
			"a/1/f3", "a/1/f2", "a/1/f1", "c/2/f7", "c/2/f2")
		wantSteps(t, walk(graph.WalkQuery{Seeds: []string{"a"}, Hops: 2}),
			"a/1/f3", "a/1/f2", "a/1/f1", "c/2/f7", "c/2/f2", "b/2/f6", "b/2/f5", "b/2/f4", "b/2/f1")
		// The policy takes one fact to an entity per hop.
		first := func(from string, hop int, fs []entity.Fact) []entity.Fact {
			for _, f := range fs {
				if f.ObjectID != "" {
					return []entity.Fact{f}
				}
			}
			return nil
		}
		wantSteps(t, walk(graph.WalkQuery{Seeds: []string{"a"}, Hops: 3, Select: first}), "a/1/f2", "c/2/f7", "d/3/f7")
		// Frontier 1: only the first seed, and one entity per hop.
		wantSteps(t, walk(graph.WalkQuery{Seeds: []string{"c", "a"}, Hops: 2, Frontier: 1}), "c/1/f7", "c/1/f2", "d/2/f7", "d/2/f4")
		// Facts known around an entity are taken instead of a read: the
		// store's own read gives the same walk, another list is used as is.
		must(t, s, ScopeA, func(tx graph.Tx) (any, error) {
			q := graph.WalkQuery{Seeds: []string{"a"}, Hops: 2, AsOf: Day(5), Now: Day(5)}
			plain, err := graph.Walk(tx, q)
			if err != nil {
				return nil, err
			}
			if q.Known, err = tx.FactsAround([]string{"a", "b"}, graph.Around{AsOf: Day(5), Now: Day(5), Limit: 1000}); err != nil {
				return nil, err
			}
			known, err := graph.Walk(tx, q)
			if err != nil {
				return nil, err
			}
			if !reflect.DeepEqual(plain, known) {
				t.Errorf("walk with the facts known: %v, without: %v", known, plain)
			}
			q.Known = map[string][]entity.Fact{"a": {facts[2]}, "c": nil}
			steps, err := graph.Walk(tx, q)
			wantSteps(t, steps, "a/1/f3")
			return nil, err
		})
		must(t, s, ScopeA, func(tx graph.Tx) (any, error) {
			if _, err := graph.Walk(tx, graph.WalkQuery{Seeds: []string{"a"}, Hops: graph.MaxHops + 1}); entity.ErrorCode(err) != entity.EINVALID {
				t.Errorf("Walk with %d hops: %v, want EINVALID", graph.MaxHops+1, err)
			}
			return nil, nil
		})
	})
}

func wantSteps(t *testing.T, steps []graph.Step, want ...string) {
	t.Helper()
	got := make([]string, len(steps))
	for i, s := range steps {
		got[i] = fmt.Sprintf("%s/%d/%s", s.From, s.Hop, s.Fact.ID)
	}
	if !slices.Equal(got, want) {
		t.Errorf("walk took %q, want %q", got, want)
	}
}

// checkBatchReads compares the batch reads with the single reads.
func checkBatchReads(t *testing.T, tx graph.Tx) {
	t.Helper()
	var ids, ents []string
	for i := range 65 {
		ents = append(ents, fmt.Sprintf("e%02d", i))
	}
	for _, id := range ents {
		one, err := tx.FactsOf(id, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range one {
			ids = append(ids, f.ID)
		}
	}
	facts, err := graph.FactsByID(tx, append(ids, "missing"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		one, err := tx.Fact(id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(one, facts[id]) {
			t.Errorf("FactsByID differs from Fact for %s", id)
		}
	}
	es, err := graph.EntitiesByID(tx, append(ents, "missing"))
	if err != nil {
		t.Fatal(err)
	}
	for id, e := range es {
		one, err := tx.Entity(id)
		if err != nil || !reflect.DeepEqual(one, e) {
			t.Errorf("EntitiesByID differs from Entity for %s: %v", id, err)
		}
	}
	if len(es) != 60 {
		t.Errorf("EntitiesByID found %d entities, want 60", len(es))
	}
	for _, c := range []struct{ facts, ents []string }{{append(ids, "missing"), append(ents, "missing")}, {ids, nil}, {nil, ents}, {nil, nil}} {
		for _, bare := range []bool{false, true} {
			fs2, es2, err := graph.FactsAndEntitiesByID(tx, c.facts, c.ents, bare)
			if err != nil {
				t.Fatal(err)
			}
			wantF, wantE := facts, es
			if c.facts == nil {
				wantF = map[string]entity.Fact{}
			}
			if c.ents == nil {
				wantE = map[string]entity.Entity{}
			}
			if bare { // claims and revisions may be left out, nothing else
				fs2, wantF = bareFacts(fs2), bareFacts(wantF)
			}
			if !reflect.DeepEqual(fs2, wantF) || !reflect.DeepEqual(es2, wantE) {
				t.Errorf("FactsAndEntitiesByID(%d facts, %d entities, bare %v) differs from FactsByID and EntitiesByID: %d, %d",
					len(c.facts), len(c.ents), bare, len(fs2), len(es2))
			}
		}
	}
	prefixes := []string{"en", "entity 1", "entity 1", "zz"}
	byPrefix, err := graph.EntitiesByPrefixes(tx, prefixes, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prefixes {
		one, err := tx.EntitiesByPrefix(p, 5)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(entityIDs(one), entityIDs(byPrefix[p])) {
			t.Errorf("EntitiesByPrefixes(%q) = %q, EntitiesByPrefix: %q", p, entityIDs(byPrefix[p]), entityIDs(one))
		}
	}
	if len(byPrefix["entity 1"]) == 0 {
		t.Error("EntitiesByPrefixes found nothing for a stored name")
	}
	eps, err := graph.EpisodesByID(tx, []string{"ep1", "missing", "ep2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"ep1", "ep2"} {
		one, err := tx.Episode(id)
		if err != nil || !reflect.DeepEqual(one, eps[id]) {
			t.Errorf("EpisodesByID differs from Episode for %s: %v", id, err)
		}
	}
	if len(eps) != 2 {
		t.Errorf("EpisodesByID found %d episodes, want 2", len(eps))
	}
}

// bareList and bareFacts are facts without their claims and revisions,
// what a bare read must return at least.
func bareList(fs []entity.Fact) []entity.Fact {
	out := slices.Clone(fs)
	for i := range out {
		out[i].Claims, out[i].Revisions = nil, nil
	}
	return out
}

func bareFacts(fs map[string]entity.Fact) map[string]entity.Fact {
	out := make(map[string]entity.Fact, len(fs))
	for id, f := range fs {
		f.Claims, f.Revisions = nil, nil
		out[id] = f
	}
	return out
}
