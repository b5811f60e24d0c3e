package bolt_test

import (
	"context"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/graphtest"
)

// seqEntries counts the change log's entries in a closed store file.
func seqEntries(t *testing.T, path string) int {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	err = db.View(func(btx *bbolt.Tx) error {
		n = btx.Bucket([]byte("seq")).Stats().KeyN
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Rewriting records (hit counts, supersession, deletion and recreation)
// must not grow the change log: the sweeper removes the entries later
// writes replaced (while the store is idle, and what is left at Close).
func TestSweep_ChangeLogKeepsOneEntryPerRecord(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	path := s.Path()
	update := func(fn func(graph.Tx) error) {
		t.Helper()
		if err := s.Update(ctx, "s1", fn); err != nil {
			t.Fatal(err)
		}
	}
	update(func(tx graph.Tx) error {
		return tx.PutEntities([]entity.Entity{graphtest.NewEntity("e1", "Ada"), graphtest.NewEntity("e2", "Bob")})
	})
	f := graphtest.NewFact("f1", "e1", "knows", "e2", graphtest.Day(1), nil)
	for i := range 50 {
		f.Hits = int64(i)
		update(func(tx graph.Tx) error { return tx.PutFacts([]entity.Fact{f}) })
	}
	// Deleted, then written again: the deletion's entry is replaced too.
	update(func(tx graph.Tx) error { return tx.DeleteEntity("e2") })
	update(func(tx graph.Tx) error { return tx.PutEntities([]entity.Entity{graphtest.NewEntity("e2", "Bob")}) })
	changes, err := s.Changes(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 3 {
		t.Fatalf("Changes lists %d records, want 3 (e1, e2, f1)", len(changes))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := seqEntries(t, path); n != 3 {
		t.Errorf("the change log holds %d entries after 53 writes of 3 records, want 3", n)
	}
}
