package search_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/search"
)

// slowStore makes every View (a sync's read of a chunk of records) take
// delay, as on a busy Neo4j, and calls onView (when set) with the number
// of the View as it starts.
type slowStore struct {
	graph.Store
	delay  time.Duration
	mu     sync.Mutex
	views  int
	onView func(n int)
}

func (s *slowStore) View(ctx context.Context, scope entity.Scope, fn func(graph.Tx) error) error {
	s.mu.Lock()
	s.views++
	n, f := s.views, s.onView
	s.mu.Unlock()
	if f != nil {
		f(n)
	}
	time.Sleep(s.delay)
	return s.Store.View(ctx, scope, fn)
}

// A sync yields to the queries in flight: while one runs, it waits before
// each step for at most as long as its previous step took, so it still
// finishes, at no less than half its pace, when a query never ends; once
// the queries end it goes on at once; with none it never waits.
func TestIndex_SyncYieldsToQueries(t *testing.T) {
	const delay = 50 * time.Millisecond
	base := MustOpenStore(t)
	now := day("2024-05-01")
	backlog(t, newService(base, &now), "big", 3000) // 3 pages of 5 chunks of records

	sync := func(t *testing.T, onView func(x *search.Index, n int)) (*search.Index, time.Duration) {
		t.Helper()
		x := MustOpenIndex(t)
		store := &slowStore{Store: base, delay: delay}
		if onView != nil {
			store.onView = func(n int) { onView(x, n) }
		}
		start := time.Now()
		mustSync(t, x, store)
		took := time.Since(start)
		if c, err := x.Counts(ctx, "big"); err != nil || c.Facts != 3000 {
			t.Fatalf("after the sync: %+v, %v", c, err)
		}
		return x, took
	}

	t.Run("NoQueries", func(t *testing.T) {
		if x, _ := sync(t, nil); x.Yielded() != 0 {
			t.Errorf("with no query in flight the sync waited %v", x.Yielded())
		}
	})

	var throughout time.Duration
	t.Run("QueryNeverEnds", func(t *testing.T) {
		var done func()
		x, took := sync(t, func(x *search.Index, n int) {
			if n == 1 {
				done = x.Querying()
			}
		})
		done()
		throughout = x.Yielded()
		t.Logf("waited %v of %v for a query that never ended", throughout, took)
		// Within a page, each of 4 chunks follows one that took ≥ delay.
		if min := 3 * 4 * delay; throughout < min {
			t.Errorf("the sync waited %v for a query in flight, want ≥ %v", throughout, min)
		}
		if throughout > took*6/10 {
			t.Errorf("the sync waited %v of %v: less than half its pace", throughout, took)
		}
	})

	t.Run("QueryEnds", func(t *testing.T) {
		var done func()
		x, _ := sync(t, func(x *search.Index, n int) {
			switch n {
			case 1:
				done = x.Querying()
			case 3:
				done()
			}
		})
		if y := x.Yielded(); y == 0 || y > throughout/2 {
			t.Errorf("the sync waited %v for a query that ended at its third read, %v for one that never did", y, throughout)
		}
	})
}
