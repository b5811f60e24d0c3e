package bolt_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/bolt"
	"github.com/graphmem/graphmem/graph/graphtest"
)

// mustOpen opens a store in a fresh folder. When the test ends it closes
// the store (closing twice is harmless), reopens the file and checks it:
// the file's own consistency (pages, indexes, change sequence) and the
// port's invariants, so whatever a test wrote must also survive a reopen.
func mustOpen(tb testing.TB) *bolt.Store {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "graph.db")
	s, err := bolt.Open(path)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
		if tb.Failed() {
			return
		}
		r, err := bolt.Open(path)
		if err != nil {
			tb.Fatalf("reopen: %v", err)
		}
		defer r.Close()
		if err := r.Check(); err != nil {
			tb.Errorf("Check after reopen: %v", err)
		}
		graphtest.CheckInvariants(tb, r)
	})
	return s
}

func TestConformance(t *testing.T) {
	graphtest.Run(t, func(t *testing.T) graph.Store { return mustOpen(t) })
}

func TestOpen(t *testing.T) {
	t.Run("Locked", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "graph.db")
		s, err := bolt.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		_, err = bolt.Open(path, bolt.WithTimeout(50*time.Millisecond))
		if entity.ErrorCode(err) != entity.EUNAVAILABLE {
			t.Errorf("second Open of a held file = %v, want EUNAVAILABLE", err)
		}
	})
	t.Run("OtherSchema", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "graph.db")
		db, err := bbolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = db.Update(func(tx *bbolt.Tx) error {
			b, err := tx.CreateBucket([]byte("info"))
			if err != nil {
				return err
			}
			return b.Put([]byte("schema"), []byte("999"))
		})
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		_, err = bolt.Open(path)
		if entity.ErrorCode(err) != entity.EUNPROCESSABLE {
			t.Errorf("Open of a file with another schema = %v, want EUNPROCESSABLE", err)
		}
	})
	t.Run("CreatesFolder", func(t *testing.T) {
		s, err := bolt.Open(filepath.Join(t.TempDir(), "a", "b", "graph.db"))
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	})
}

// recorder is a testing.TB that collects failures instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errs = append(r.errs, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatalf(f string, a ...any) { r.Errorf(f, a...); runtime.Goexit() }

// TestCheckInvariantsCatches shows that the suite's invariant check fails
// on a store holding overlapping facts of a "_one" chain, and passes once
// the older one is retracted.
func TestCheckInvariantsCatches(t *testing.T) {
	s := mustOpen(t)
	a := graphtest.NewValueFact("f1", "e1", "lives_in_one", "Paris", graphtest.Day(0), nil)
	b := graphtest.NewValueFact("f2", "e1", "lives_in_one", "Berlin", graphtest.Day(10), nil)
	ctx := context.Background()
	if err := s.Update(ctx, "test:a", func(tx graph.Tx) error { return tx.PutFacts([]entity.Fact{a, b}) }); err != nil {
		t.Fatal(err)
	}
	check := func() []string {
		r := &recorder{TB: t}
		done := make(chan struct{})
		go func() { defer close(done); graphtest.CheckInvariants(r, s) }()
		<-done
		return r.errs
	}
	if errs := check(); len(errs) != 1 || !strings.Contains(errs[0], "overlaps") {
		t.Errorf("CheckInvariants on overlapping facts reported %q, want one overlap", errs)
	}
	a.ExpiredAt = graphtest.Ptr(graphtest.Day(11))
	if err := s.Update(ctx, "test:a", func(tx graph.Tx) error { return tx.PutFacts([]entity.Fact{a}) }); err != nil {
		t.Fatal(err)
	}
	if errs := check(); len(errs) != 0 {
		t.Errorf("CheckInvariants after the retraction reported %q", errs)
	}
	s.Close()
}

// PutFacts skips the lookup of a fact whose id sorts above every stored
// one; a new id below the highest, and an id written twice in one
// transaction, must still be found and their index entries moved.
func TestPutFacts_IDsAroundTheHighest(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	put := func(fs ...entity.Fact) {
		t.Helper()
		if err := s.Update(ctx, "s", func(tx graph.Tx) error { return tx.PutFacts(fs) }); err != nil {
			t.Fatal(err)
		}
	}
	at := graphtest.T0
	put(graphtest.NewFact("f-5", "alice", "knows", "bob", at, nil))
	put(graphtest.NewFact("f-3", "alice", "knows", "carol", at, nil), // new, below the highest
		graphtest.NewFact("f-9", "alice", "knows", "dave", at, nil),  // new, above it
		graphtest.NewFact("f-9", "alice", "knows", "erin", at, nil),  // f-9 again in the same transaction
		graphtest.NewFact("f-5", "alice", "knows", "frank", at, nil)) // stored, below the highest
	want := map[string]string{"bob": "", "carol": "f-3", "dave": "", "erin": "f-9", "frank": "f-5"}
	err := s.View(ctx, "s", func(tx graph.Tx) error {
		for obj, id := range want {
			fs, _, err := tx.Facts(graph.FactFilter{ObjectID: obj})
			if err != nil {
				return err
			}
			got := ""
			for _, f := range fs {
				got += f.ID
			}
			if got != id {
				t.Errorf("facts with object %s: %q, want %q", obj, got, id)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Chains decodes many stored facts on two goroutines: every chain still
// comes back whole, in id order, each fact under its own id.
func TestChains_ManyFacts(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	subjects := []string{"alice", "bob", "carol"}
	var fs []entity.Fact
	for i := range 300 {
		fs = append(fs, graphtest.NewValueFact(fmt.Sprintf("f-%03d", i), subjects[i%3], "likes", fmt.Sprint(i), graphtest.T0, nil))
	}
	if err := s.Update(ctx, "s", func(tx graph.Tx) error { return tx.PutFacts(fs) }); err != nil {
		t.Fatal(err)
	}
	var keys []graph.ChainKey
	for _, sub := range subjects {
		keys = append(keys, graph.ChainKey{SubjectID: sub, Predicate: "likes"})
	}
	err := s.View(ctx, "s", func(tx graph.Tx) error {
		chains, err := tx.Chains(keys)
		if err != nil {
			return err
		}
		for c, k := range keys {
			got := chains[k]
			if len(got) != 100 {
				t.Fatalf("chain %s: %d facts, want 100", k.SubjectID, len(got))
			}
			for j, f := range got {
				i := 3*j + c
				if id := fmt.Sprintf("f-%03d", i); f.ID != id || f.Value != fmt.Sprint(i) || f.SubjectID != k.SubjectID {
					t.Fatalf("chain %s[%d]: %s %s %s, want %s %d", k.SubjectID, j, f.ID, f.SubjectID, f.Value, id, i)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
