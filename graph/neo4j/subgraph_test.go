package neo4j_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/neo4j"
)

// randomGraph writes a random temporal graph: entities e00..e59 (e60..e64
// are named by facts but not stored), facts between them or to literals
// with random validity, some retracted, forgotten, expired or archived.
func randomGraph(t *testing.T, s *neo4j.Store, scope string, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	const stored, named, facts = 60, 65, 600
	var es []entity.Entity
	for i := range stored {
		es = append(es, entity.Entity{ID: fmt.Sprintf("e%02d", i), Name: fmt.Sprintf("entity %d", i)})
	}
	day := func(n int) time.Time { return t0.AddDate(0, 0, n) }
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
			f.ValidTo = ptr(f.ValidFrom.AddDate(0, 0, 1+rng.IntN(10)))
			if f.ValidFrom.IsZero() {
				f.ValidTo = ptr(day(rng.IntN(20)))
			}
		}
		switch rng.IntN(12) {
		case 0:
			f.ExpiredAt = ptr(day(rng.IntN(30)))
		case 1:
			f.ForgottenAt = ptr(day(1))
		case 2:
			f.ExpiresAt = ptr(day(rng.IntN(30)))
		case 3:
			f.ArchivedAt = ptr(day(2))
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

type hopFact struct {
	ID  string
	Hop int
}

func hopFacts(sf []neo4j.SubgraphFact) []hopFact {
	out := make([]hopFact, len(sf))
	for i, f := range sf {
		out[i] = hopFact{f.Fact.ID, f.Hop}
	}
	return out
}

// The one-query Cypher walk returns exactly what the generic FactsOf walk
// returns, on the same data, for many seeds, depths, fan-outs and times.
func TestSubgraphMatchesWalk(t *testing.T) {
	s := mustOpenClosing(t)
	randomGraph(t, s, "s1", 7)
	randomGraph(t, s, "s2", 8) // same ids, other scope: must never leak in
	rng := rand.New(rand.NewPCG(3, 3))
	cases := 0
	err := s.View(ctx, "s1", func(tx graph.Tx) error {
		sg, ok := tx.(neo4j.Subgrapher)
		if !ok {
			t.Fatal("the Neo4j Tx does not implement Subgrapher")
		}
		for range 40 {
			q := neo4j.SubgraphQuery{
				Hops:   1 + rng.IntN(3),
				FanOut: []int{0, 2, 5, 1000}[rng.IntN(4)],
				AsOf:   t0.AddDate(0, 0, rng.IntN(25)),
				Now:    t0.AddDate(0, 0, rng.IntN(30)),
			}
			for range 1 + rng.IntN(3) {
				q.Seeds = append(q.Seeds, fmt.Sprintf("e%02d", rng.IntN(66)))
			}
			fast, err := sg.Subgraph(q)
			if err != nil {
				return err
			}
			slow, err := neo4j.Walk(tx, q)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(hopFacts(fast), hopFacts(slow)) {
				t.Errorf("%+v:\nSubgraph %v\n    Walk %v", q, hopFacts(fast), hopFacts(slow))
			}
			for _, f := range fast {
				if f.Fact.Scope != "s1" || !f.Fact.ValidAt(q.AsOf) || !f.Fact.Recallable(q.Now) {
					t.Errorf("%+v: Subgraph returned %s (scope %s), not valid or recallable", q, f.Fact.ID, f.Fact.Scope)
				}
			}
			if len(fast) > 0 {
				cases++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cases < 20 {
		t.Errorf("only %d of 40 walks found anything: the data does not exercise the walk", cases)
	}
}

func TestSubgraphInvalid(t *testing.T) {
	s := mustOpenClosing(t)
	err := s.View(ctx, "s1", func(tx graph.Tx) error {
		for _, hops := range []int{0, neo4j.MaxHops + 1} {
			_, err := tx.(neo4j.Subgrapher).Subgraph(neo4j.SubgraphQuery{Seeds: []string{"e1"}, Hops: hops})
			if entity.ErrorCode(err) != entity.EINVALID {
				t.Errorf("hops %d: %v, want EINVALID", hops, err)
			}
		}
		got, err := tx.(neo4j.Subgrapher).Subgraph(neo4j.SubgraphQuery{Hops: 2})
		if err != nil || len(got) != 0 {
			t.Errorf("no seeds: %v, %v; want nothing", got, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// FactsOfEach returns, for every entity, exactly what FactsOf does.
func TestFactsOfEach(t *testing.T) {
	s := mustOpenClosing(t)
	randomGraph(t, s, "s1", 11)
	randomGraph(t, s, "s2", 12)
	err := s.View(ctx, "s1", func(tx graph.Tx) error {
		var ids []string
		for i := range 70 { // e60..e69: not stored, some named by facts
			ids = append(ids, fmt.Sprintf("e%02d", i))
		}
		ids = append(ids, "e01", "")
		for _, limit := range []int{0, 1, 3, 1000} {
			got, err := tx.(neo4j.BatchReader).FactsOfEach(ids, limit)
			if err != nil {
				return err
			}
			for _, id := range ids {
				want, err := tx.FactsOf(id, limit)
				if err != nil {
					return err
				}
				if len(got[id]) != len(want) || len(want) > 0 && !reflect.DeepEqual(got[id], want) {
					t.Errorf("FactsOfEach[%q] limit %d: %d facts, FactsOf: %d", id, limit, len(got[id]), len(want))
				}
				if _, ok := got[id]; ok && len(want) == 0 {
					t.Errorf("FactsOfEach lists %q, which has no facts", id)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
