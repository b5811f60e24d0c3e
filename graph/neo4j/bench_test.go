package neo4j_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/graphtest"
)

// BenchmarkPutFacts writes realistic facts (graphtest.GenFacts: claims,
// revisions, attributes, a third with entity objects) in batches of 1,000,
// one Update per batch, into a store whose subjects and objects exist, so
// every fact also gets its graph links. It reports facts/s, beside the
// same rows written by the bare statement every write pays for at least —
// UNWIND … CREATE with no indexes, links or sequence numbers — measured in
// the same run.
func BenchmarkPutFacts(b *testing.B) {
	const batch = 1000
	s := mustOpenClosing(b)
	const scope = "bench"
	var es []entity.Entity
	for i := range graphtest.GenSubjects {
		es = append(es, entity.Entity{ID: fmt.Sprintf("e%05d", i), Name: fmt.Sprintf("entity %d", i)})
	}
	if err := s.Update(ctx, scope, func(tx graph.Tx) error { return tx.PutEntities(es) }); err != nil {
		b.Fatal(err)
	}

	b.Run("adapter", func(b *testing.B) {
		n := 0
		start := time.Now()
		for b.Loop() {
			fs := graphtest.GenFacts(n, batch)
			n += batch
			if err := s.Update(ctx, scope, func(tx graph.Tx) error { return tx.PutFacts(fs) }); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "facts/s")
	})
	b.Run("baseline-bare-create", func(b *testing.B) {
		n := 0
		start := time.Now()
		for b.Loop() {
			fs := graphtest.GenFacts(n, batch)
			n += batch
			if err := s.BareCreate(ctx, fs); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "facts/s")
	})
}
