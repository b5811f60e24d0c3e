package memory_test

import (
	"slices"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
)

// decision is a decision statement about orders-service and MongoDB.
func decision(pred, from string) memory.FactInput {
	t := date(from)
	return memory.FactInput{Subject: "orders-service", Predicate: pred, Object: "MongoDB", ValidFrom: &t,
		SourceKind: entity.UserExplicit, Attributes: map[string]any{"reason": pred + " on " + from}}
}

// intervals lists the facts of a predicate with their validity, "from→to".
func intervals(tb testing.TB, svc *memory.Service, pred string) []string {
	tb.Helper()
	fs, _, err := svc.Facts(ctx, scope, memory.FactQuery{Subject: "orders-service", Predicate: pred, IncludeHistory: true})
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, f := range fs {
		to := "open"
		if f.ValidTo != nil {
			to = f.ValidTo.Format(time.DateOnly)
		}
		out = append(out, f.ValidFrom.Format(time.DateOnly)+"→"+to)
	}
	slices.Sort(out)
	return out
}

// TestAddFacts_ReversedDecision: a decision that a later decision reverses
// (ontology: dropped reverses adopted, adopted reverses dropped) is ended
// by it, whatever the order and batching of the statements.
func TestAddFacts_ReversedDecision(t *testing.T) {
	adopt, drop, again := decision("adopted", "2023-02-01"), decision("dropped", "2024-09-01"), decision("adopted", "2025-03-01")
	for name, batches := range map[string][][]memory.FactInput{
		"in order":      {{adopt}, {drop}, {again}},
		"reverse order": {{again}, {drop}, {adopt}},
		"one batch":     {{drop, adopt, again}},
		"two batches":   {{again, adopt}, {drop}},
	} {
		t.Run(name, func(t *testing.T) {
			svc, _ := MustOpenService(t)
			var results []memory.FactResult
			for _, b := range batches {
				results = append(results, mustAdd(t, svc, b...)...)
			}
			if got := intervals(t, svc, "adopted"); !slices.Equal(got, []string{"2023-02-01→2024-09-01", "2025-03-01→open"}) {
				t.Errorf("adopted: %v", got)
			}
			if got := intervals(t, svc, "dropped"); !slices.Equal(got, []string{"2024-09-01→2025-03-01"}) {
				t.Errorf("dropped: %v", got)
			}
			if name == "in order" && len(results[1].Superseded) != 1 {
				t.Errorf("the drop does not report the adoption it ended: %+v", results[1])
			}
			cur, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "orders-service", Predicate: "adopted", AsOf: date("2024-12-01")})
			if len(cur) != 0 {
				t.Errorf("adopted still holds after it was dropped: %v", values(cur))
			}
		})
	}
	t.Run("other objects untouched", func(t *testing.T) {
		svc, _ := MustOpenService(t)
		from := date("2023-01-01")
		mustAdd(t, svc, memory.FactInput{Subject: "orders-service", Predicate: "adopted", Object: "Redis", ValidFrom: &from},
			memory.FactInput{Subject: "orders-service", Predicate: "uses", Object: "Kafka", ValidFrom: &from})
		mustAdd(t, svc, decision("dropped", "2024-09-01"))
		for _, pred := range []string{"adopted", "uses"} {
			if got := intervals(t, svc, pred); !slices.Equal(got, []string{"2023-01-01→open"}) {
				t.Errorf("%s: %v", pred, got)
			}
		}
	})
}
