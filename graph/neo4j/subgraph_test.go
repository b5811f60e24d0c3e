package neo4j_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/graphtest"
)

func TestSubgraphInvalid(t *testing.T) {
	s := mustOpenClosing(t)
	err := s.View(ctx, "s1", func(tx graph.Tx) error {
		for _, hops := range []int{0, graph.MaxHops + 1} {
			_, err := tx.(graph.Subgrapher).Subgraph(graph.SubgraphQuery{Seeds: []string{"e1"}, Hops: hops})
			if entity.ErrorCode(err) != entity.EINVALID {
				t.Errorf("hops %d: %v, want EINVALID", hops, err)
			}
		}
		got, err := tx.(graph.Subgrapher).Subgraph(graph.SubgraphQuery{Hops: 2})
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
	graphtest.RandomGraph(t, s, "s1", 11)
	graphtest.RandomGraph(t, s, "s2", 12)
	err := s.View(ctx, "s1", func(tx graph.Tx) error {
		var ids []string
		for i := range 70 { // e60..e69: not stored, some named by facts
			ids = append(ids, fmt.Sprintf("e%02d", i))
		}
		ids = append(ids, "e01", "")
		for _, limit := range []int{0, 1, 3, 1000} {
			got, err := tx.(graph.BatchReader).FactsOfEach(ids, limit)
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
