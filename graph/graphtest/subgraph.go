package graphtest

import (
	"fmt"
	"math/rand/v2"
	"reflect"
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

type hopFact struct {
	ID  string
	Hop int
}

func hopFacts(sf []graph.SubgraphFact) []hopFact {
	out := make([]hopFact, len(sf))
	for i, f := range sf {
		out[i] = hopFact{f.Fact.ID, f.Hop}
	}
	return out
}

// testSubgraph checks the optional fast paths against the generic ones on
// a random temporal graph: a store whose Tx is a graph.Subgrapher must
// answer every walk exactly as graph.Walk does, and one whose Tx is a
// graph.BatchReader must answer as the single reads do. Walk itself must
// only return facts valid at as_of and recallable, of the scope.
func testSubgraph(t *testing.T, open Opener) {
	s := fresh(t, open)
	RandomGraph(t, s, "s1", 7)
	RandomGraph(t, s, "s2", 8) // same ids, other scope: must never leak in
	rng := rand.New(rand.NewPCG(3, 3))
	cases := 0
	view(t, s, "s1", func(tx graph.Tx) error {
		sg, fast := tx.(graph.Subgrapher)
		for range 40 {
			q := graph.SubgraphQuery{
				Hops:   1 + rng.IntN(3),
				FanOut: []int{0, 2, 5, 1000}[rng.IntN(4)],
				AsOf:   Day(rng.IntN(25)),
				Now:    Day(rng.IntN(30)),
			}
			for range 1 + rng.IntN(3) {
				q.Seeds = append(q.Seeds, fmt.Sprintf("e%02d", rng.IntN(66)))
			}
			slow, err := graph.Walk(tx, q)
			if err != nil {
				return err
			}
			for _, f := range slow {
				if f.Fact.Scope != "s1" || !f.Fact.ValidAt(q.AsOf) || !f.Fact.Recallable(q.Now) {
					t.Errorf("%+v: Walk returned %s (scope %s), not valid or recallable", q, f.Fact.ID, f.Fact.Scope)
				}
			}
			if len(slow) > 0 {
				cases++
			}
			if !fast {
				continue
			}
			got, err := sg.Subgraph(q)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(hopFacts(got), hopFacts(slow)) {
				t.Errorf("%+v:\nSubgraph %v\n    Walk %v", q, hopFacts(got), hopFacts(slow))
			}
		}
		if _, ok := tx.(graph.BatchReader); ok {
			checkBatchReads(t, tx)
		}
		return nil
	})
	if cases < 20 {
		t.Errorf("only %d of 40 walks found anything: the data does not exercise the walk", cases)
	}
}

// checkBatchReads compares the batch reads with the single reads.
func checkBatchReads(t *testing.T, tx graph.Tx) {
	t.Helper()
	b := tx.(graph.BatchReader)
	var ids, ents []string
	for i := range 65 {
		ents = append(ents, fmt.Sprintf("e%02d", i))
	}
	each, err := b.FactsOfEach(ents, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ents {
		one, err := tx.FactsOf(id, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(one) != len(each[id]) {
			t.Errorf("FactsOfEach(%s): %d facts, FactsOf: %d", id, len(each[id]), len(one))
		}
		for _, f := range one {
			ids = append(ids, f.ID)
		}
	}
	facts, err := b.FactsByID(append(ids, "missing"))
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
	es, err := b.EntitiesByID(append(ents, "missing"))
	if err != nil {
		t.Fatal(err)
	}
	for id, e := range es {
		one, err := tx.Entity(id)
		if err != nil || !reflect.DeepEqual(one, e) {
			t.Errorf("EntitiesByID differs from Entity for %s: %v", id, err)
		}
	}
}
