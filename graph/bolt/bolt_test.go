package bolt_test

import (
	"path/filepath"
	"testing"

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
