package neo4j_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/graphtest"
)

// The batch reads answer exactly what the single reads answer.
func TestBatchReader(t *testing.T) {
	s := mustOpenClosing(t)
	ctx := context.Background()
	facts := graphtest.GenFacts(0, 40)
	ents := map[string]bool{}
	err := s.Update(ctx, "b", func(tx graph.Tx) error {
		for _, f := range facts {
			ents[f.SubjectID] = true
		}
		return tx.PutFacts(facts)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(ctx, "b", func(tx graph.Tx) error {
		if _, ok := tx.(graph.BatchReader); !ok {
			t.Fatal("the neo4j Tx has no batch reads")
		}
		ids := []string{"missing"}
		for _, f := range facts {
			ids = append(ids, f.ID)
		}
		got, err := graph.FactsByID(tx, ids)
		if err != nil {
			return err
		}
		if len(got) != len(facts) {
			t.Fatalf("%d facts, want %d", len(got), len(facts))
		}
		for _, id := range ids[1:] {
			one, err := tx.Fact(id)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(one, got[id]) {
				t.Fatalf("FactsByID differs from Fact for %s", id)
			}
		}
		ents, err := graph.EntitiesByID(tx, []string{"nobody"})
		if err != nil || len(ents) != 0 {
			t.Fatalf("entities %v %v", ents, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
