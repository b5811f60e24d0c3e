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

// BenchmarkReads measures the reads recall makes, each in its own View, on
// a store of 100,000 facts about 10,000 entities (most of them still
// valid). FactsAround for a frontier of 20 is reported beside as many
// FactsOf calls, its baseline, and a two-hop Walk beside them.
func BenchmarkReads(b *testing.B) {
	if testing.Short() {
		b.Skip("loads 100,000 facts")
	}
	const scope, facts = "bench", 100_000
	s := mustOpenClosing(b)
	var es []entity.Entity
	for i := range graphtest.GenSubjects {
		es = append(es, entity.Entity{ID: fmt.Sprintf("e%05d", i), Name: fmt.Sprintf("entity %d", i)})
	}
	if err := s.Update(ctx, scope, func(tx graph.Tx) error { return tx.PutEntities(es) }); err != nil {
		b.Fatal(err)
	}
	for n := 0; n < facts; n += 2000 {
		fs := graphtest.GenFacts(n, 2000)
		for i := range fs {
			if i%5 != 0 {
				fs[i].ValidTo = nil
				fs[i].Claims = fs[i].Claims[:1]
				fs[i].Claims[0].To = nil
			}
		}
		if err := s.Update(ctx, scope, func(tx graph.Tx) error { return tx.PutFacts(fs) }); err != nil {
			b.Fatal(err)
		}
	}
	asOf := graphtest.T0.AddDate(20, 0, 0)
	seed := func(i int) string { return fmt.Sprintf("e%05d", (i*7919)%graphtest.GenSubjects) }
	view := func(b *testing.B, fn func(tx graph.Tx, i int) (int, error)) {
		i, found := 0, 0
		for b.Loop() {
			err := s.View(ctx, scope, func(tx graph.Tx) error {
				n, err := fn(tx, i)
				found += n
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			i++
		}
		b.ReportMetric(float64(found)/float64(i), "facts/op")
	}
	b.Run("FactsOf", func(b *testing.B) {
		view(b, func(tx graph.Tx, i int) (int, error) {
			fs, err := tx.FactsOf(seed(i), 50)
			return len(fs), err
		})
	})
	b.Run("Chains", func(b *testing.B) {
		view(b, func(tx graph.Tx, i int) (int, error) {
			var keys []graph.ChainKey
			for j := range 10 {
				keys = append(keys, graph.ChainKey{SubjectID: seed(i*10 + j), Predicate: "likes"})
			}
			m, err := tx.Chains(keys)
			n := 0
			for _, c := range m {
				n += len(c)
			}
			return n, err
		})
	})
	frontier := func(i int) []string {
		var ids []string
		for j := range 20 {
			ids = append(ids, seed(i*20+j))
		}
		return ids
	}
	b.Run("FactsAround-20", func(b *testing.B) {
		view(b, func(tx graph.Tx, i int) (int, error) {
			m, err := tx.FactsAround(frontier(i), graph.Around{AsOf: asOf, Now: asOf, Limit: 25})
			n := 0
			for _, fs := range m {
				n += len(fs)
			}
			return n, err
		})
	})
	b.Run("baseline-FactsOf-x20", func(b *testing.B) {
		view(b, func(tx graph.Tx, i int) (int, error) {
			n := 0
			for _, id := range frontier(i) {
				fs, err := tx.FactsOf(id, 25)
				if err != nil {
					return 0, err
				}
				n += len(fs)
			}
			return n, nil
		})
	})
	b.Run("Walk-2hops", func(b *testing.B) {
		view(b, func(tx graph.Tx, i int) (int, error) {
			fs, err := graph.Walk(tx, graph.WalkQuery{Seeds: []string{seed(i), seed(i + 1), seed(i + 2)}, Hops: 2,
				Read: 20, Hub: 15, AsOf: asOf, Now: asOf})
			return len(fs), err
		})
	})
}

// BenchmarkWritersInTwoScopes times write transactions (20 facts each,
// then 100 ms of the caller's own work before the commit, as a transaction
// that reads and decides holds its scope) by one writer, then by two writers
// at once in two scopes, and reports transactions per second. Writers of
// different scopes take different locks, so two of them get about twice as
// much done as one; with one lock for the whole store they would take turns.
func BenchmarkWritersInTwoScopes(b *testing.B) {
	s := mustOpenClosing(b)
	write := func(scope entity.Scope, n int) error {
		fs := graphtest.GenFacts(n*20, 20)
		return s.Update(ctx, scope, func(tx graph.Tx) error {
			if err := tx.PutFacts(fs); err != nil {
				return err
			}
			time.Sleep(100 * time.Millisecond)
			return nil
		})
	}
	if err := write("warm-up", 0); err != nil {
		b.Fatal(err)
	}
	for _, writers := range []int{1, 2} {
		b.Run(fmt.Sprintf("writers-%d", writers), func(b *testing.B) {
			n := 0
			start := time.Now()
			for b.Loop() {
				errs := make(chan error, writers)
				for w := range writers {
					go func() { errs <- write(fmt.Sprintf("w%d", w), n) }()
				}
				for range writers {
					if err := <-errs; err != nil {
						b.Fatal(err)
					}
				}
				n++
			}
			b.ReportMetric(float64(n*writers)/time.Since(start).Seconds(), "tx/s")
		})
	}
}
