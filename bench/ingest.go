package bench

import (
	"context"
	"crypto/rand"
	"fmt"
	"path/filepath"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/graphmem/graphmem/memory"
)

// Ingest writes the workload through the memory service in batches and
// returns facts per second.
func Ingest(ctx context.Context, svc *memory.Service, scope string, facts []memory.FactInput, batch int) (float64, error) {
	start := time.Now()
	for i := 0; i < len(facts); i += batch {
		end := min(i+batch, len(facts))
		if _, err := svc.AddFacts(ctx, scope, facts[i:end]); err != nil {
			return 0, fmt.Errorf("batch at %d: %w", i, err)
		}
	}
	return float64(len(facts)) / time.Since(start).Seconds(), nil
}

// RawBolt is the ingestion baseline: n puts of valueSize random bytes under
// 16-byte keys into a fresh bbolt file in dir, batch puts per transaction,
// with the same durability (fsync per commit). It returns puts per second.
func RawBolt(dir string, n, batch, valueSize int) (float64, error) {
	db, err := bbolt.Open(filepath.Join(dir, "raw.db"), 0o600, nil)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	val := make([]byte, valueSize)
	_, _ = rand.Read(val)
	start := time.Now()
	for i := 0; i < n; i += batch {
		err := db.Update(func(tx *bbolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("facts"))
			if err != nil {
				return err
			}
			for j := i; j < min(i+batch, n); j++ {
				key := make([]byte, 16)
				_, _ = rand.Read(key)
				if err := b.Put(key, val); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// Scopes ingests works[i] into scopes[i] through the memory service, in
// batches, all scopes at once when parallel, else one after the other, and
// returns facts per second over all of them: the same work timed both ways
// shows whether writers of different scopes wait for each other.
func Scopes(ctx context.Context, svc *memory.Service, scopes []string, works [][]memory.FactInput, batch int, parallel bool) (float64, error) {
	n := 0
	for _, w := range works {
		n += len(w)
	}
	errs := make(chan error, len(works))
	start := time.Now()
	for i := range works {
		run := func() { _, err := Ingest(ctx, svc, scopes[i], works[i], batch); errs <- err }
		if parallel {
			go run()
		} else {
			run()
		}
	}
	var first error
	for range works {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return 0, first
	}
	return float64(n) / time.Since(start).Seconds(), nil
}
