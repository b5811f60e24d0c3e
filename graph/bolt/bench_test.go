package bolt

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/graphtest"
)

const benchBatch = 1000

// BenchmarkPutFacts writes realistic facts (graphtest.GenFacts: three
// claims, up to two revisions, a reason on some) in batches of 1,000, one
// committed transaction per batch, indexes and change sequence included.
// The raw-bbolt baseline puts the same number of key/values of the same
// size into one bucket with the same durability, so the ratio of the two
// is the cost of graphmem's encoding and indexes.
func BenchmarkPutFacts(b *testing.B) {
	b.Run("store", func(b *testing.B) {
		s, err := Open(filepath.Join(b.TempDir(), "graph.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		ctx := context.Background()
		w0 := pageWrites(s.db)
		b.ResetTimer()
		for i := range b.N {
			b.StopTimer()
			fs := graphtest.GenFacts(i*benchBatch, benchBatch)
			b.StartTimer()
			err := s.Update(ctx, "bench", func(tx graph.Tx) error { return tx.PutFacts(fs) })
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*benchBatch)/b.Elapsed().Seconds(), "facts/s")
		b.ReportMetric(float64(pageWrites(s.db)-w0)/float64(b.N), "pages/batch")
	})
	b.Run("raw-bbolt", func(b *testing.B) {
		db, err := bbolt.Open(filepath.Join(b.TempDir(), "raw.db"), 0o600, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		bucket := []byte("raw")
		if err := db.Update(func(tx *bbolt.Tx) error { _, err := tx.CreateBucket(bucket); return err }); err != nil {
			b.Fatal(err)
		}
		w0 := pageWrites(db)
		b.ResetTimer()
		for i := range b.N {
			b.StopTimer()
			fs := graphtest.GenFacts(i*benchBatch, benchBatch)
			keys, vals := make([][]byte, len(fs)), make([][]byte, len(fs))
			for j := range fs {
				keys[j] = join("bench", fs[j].ID)
				if vals[j], err = encodeFact(1, &fs[j]); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
			err := db.Update(func(tx *bbolt.Tx) error {
				bk := tx.Bucket(bucket)
				for j := range keys {
					if err := bk.Put(keys[j], vals[j]); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*benchBatch)/b.Elapsed().Seconds(), "facts/s")
		b.ReportMetric(float64(pageWrites(db)-w0)/float64(b.N), "pages/batch")
	})
}

// BenchmarkCodec compares the record codec with encoding/json, the
// obvious alternative, on the same realistic fact.
func BenchmarkCodec(b *testing.B) {
	f := graphtest.GenFacts(8, 1)[0] // revisions and attributes
	enc, _ := encodeFact(1, &f)
	js, _ := json.Marshal(f)
	b.Run("binary-encode", func(b *testing.B) {
		b.SetBytes(int64(len(enc)))
		for b.Loop() {
			if _, err := encodeFact(1, &f); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json-encode", func(b *testing.B) {
		b.SetBytes(int64(len(js)))
		for b.Loop() {
			if _, err := json.Marshal(&f); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("binary-decode", func(b *testing.B) {
		b.SetBytes(int64(len(enc)))
		for b.Loop() {
			if _, err := decodeFact("bench", f.ID, enc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json-decode", func(b *testing.B) {
		b.SetBytes(int64(len(js)))
		for b.Loop() {
			var g entity.Fact
			if err := json.Unmarshal(js, &g); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// pageWrites counts the pages bbolt has written: the I/O a commit costs.
func pageWrites(db *bbolt.DB) int64 {
	st := db.Stats()
	return st.TxStats.GetWrite()
}

// BenchmarkPurge times deleting ten facts of a store of 100,000 (about
// the write a purge makes) without and with Scrub after it, in the same
// run: Scrub's cost per purge. The first Scrub of a store also overwrites
// every free page the loading left, and is reported on its own
// (ms-first-scrub).
func BenchmarkPurge(b *testing.B) {
	const facts = 100 * benchBatch
	s, err := Open(filepath.Join(b.TempDir(), "graph.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for i := 0; i < facts; i += benchBatch {
		fs := graphtest.GenFacts(i, benchBatch)
		if err := s.Update(ctx, "bench", func(tx graph.Tx) error { return tx.PutFacts(fs) }); err != nil {
			b.Fatal(err)
		}
	}
	var ids []string
	err = s.View(ctx, "bench", func(tx graph.Tx) error {
		fs, _, err := tx.Facts(graph.FactFilter{Limit: facts})
		for _, f := range fs {
			ids = append(ids, f.ID)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	next := 0
	purge := func(b *testing.B) {
		err := s.Update(ctx, "bench", func(tx graph.Tx) error {
			for range 10 {
				if err := tx.DeleteFact(ids[next%len(ids)]); err != nil && entity.ErrorCode(err) != entity.ENOTFOUND {
					return err
				}
				next += 97
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	size := func() float64 {
		var n int64
		s.view(func(btx *bbolt.Tx) error { n = btx.Size(); return nil })
		return float64(n) / (1 << 20)
	}
	free := func() float64 { return float64(s.db.Stats().FreePageN*s.db.Info().PageSize) / (1 << 20) }
	b.Run("delete", func(b *testing.B) {
		for range b.N {
			purge(b)
		}
		b.ReportMetric(size(), "MB-file")
		b.ReportMetric(free(), "MB-free")
	})
	// The first Scrub also overwrites every free page the loading left.
	freeBefore := free()
	start := time.Now()
	if err := s.Scrub(ctx); err != nil {
		b.Fatal(err)
	}
	firstScrub := time.Since(start)
	b.Run("delete+scrub", func(b *testing.B) {
		for range b.N {
			purge(b)
			if err := s.Scrub(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(size(), "MB-file")
		b.ReportMetric(free(), "MB-free")
		b.ReportMetric(float64(firstScrub.Microseconds())/1000, "ms-first-scrub")
		b.ReportMetric(freeBefore, "MB-free-first-scrub")
	})
}
