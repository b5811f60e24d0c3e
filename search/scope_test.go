package search_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/search"
)

// feedStore counts the change-feed reads of a store and can hold the first
// read of one scope until released.
type feedStore struct {
	graph.Store
	reads   atomic.Int64
	hold    entity.Scope
	holding chan struct{} // receives when the read of hold is held
	release chan struct{}
	held    atomic.Bool
}

func (s *feedStore) ScopeChanges(ctx context.Context, scope entity.Scope, after uint64, limit int) ([]graph.Change, error) {
	s.reads.Add(1)
	if scope == s.hold && s.release != nil && !s.held.Swap(true) {
		s.holding <- struct{}{}
		<-s.release
	}
	return s.Store.ScopeChanges(ctx, scope, after, limit)
}

func (s *feedStore) Heads(ctx context.Context) (map[entity.Scope]uint64, error) {
	s.reads.Add(1)
	return s.Store.Heads(ctx)
}

func backlog(tb testing.TB, svc *memory.Service, scope entity.Scope, n int) {
	tb.Helper()
	in := make([]memory.FactInput, n)
	for i := range in {
		in[i] = memory.FactInput{Subject: fmt.Sprintf("service-%04d", i%100), Predicate: "port", Value: fmt.Sprint(1000 + i)}
	}
	for len(in) > 0 {
		k := min(len(in), entity.MaxBatch)
		addFacts(tb, svc, scope, in[:k]...)
		in = in[k:]
	}
}

// A write notified to the index is found by the next query in its scope,
// without a Sync: read your writes. The query applies its own scope's
// changes only — another scope's backlog stays where it was — and a query
// in a scope with nothing pending reads nothing from the store.
func TestIndex_QueriesWaitForTheirScopeOnly(t *testing.T) {
	store := &feedStore{Store: MustOpenStore(t)}
	x := MustOpenIndex(t)
	now := day("2024-05-01")
	svc := newService(store, &now)
	backlog(t, svc, "big", 3000) // not notified: a backlog the index has not seen
	svc.Changed = x.Notify
	res := addFacts(t, svc, "mine", memory.FactInput{Subject: "Ann", Predicate: "likes", Value: "marmalade"})

	if err := x.CatchUp(ctx, store, "mine"); err != nil {
		t.Fatal(err)
	}
	hits := mustSearch(t, x, search.Query{Scope: "mine", Text: "marmalade", Now: now})
	if !has(hits, res[0].FactID) {
		t.Fatalf("read your writes: %v", ids(hits))
	}
	if x.Seq("big") != 0 {
		t.Errorf("a query in one scope applied another's backlog (up to %d)", x.Seq("big"))
	}
	if c, err := x.Counts(ctx, "big"); err != nil || c.Facts != 0 {
		t.Errorf("documents of the backlog: %+v, %v", c, err)
	}

	before := store.reads.Load()
	for _, scope := range []entity.Scope{"mine", "other"} {
		if err := x.CatchUp(ctx, store, scope); err != nil {
			t.Fatal(err)
		}
	}
	if n := store.reads.Load() - before; n != 0 {
		t.Errorf("queries with nothing pending read the feed %d times", n)
	}

	mustSync(t, x, store)
	if c, err := x.Counts(ctx, "big"); err != nil || c.Facts != 3000 {
		t.Errorf("after Sync the backlog's documents: %+v, %v", c, err)
	}
}

// While a sync is busy with one scope's backlog (held here in the middle of
// reading it), a write in another scope is found by a query there at once.
func TestIndex_QueryDoesNotWaitForAnotherScopesSync(t *testing.T) {
	store := &feedStore{Store: MustOpenStore(t)}
	x := MustOpenIndex(t)
	now := day("2024-05-01")
	svc := newService(store, &now)
	backlog(t, svc, "big", 500)
	svc.Changed = x.Notify

	store.hold, store.holding, store.release = "big", make(chan struct{}), make(chan struct{})
	synced := make(chan error, 1)
	go func() {
		_, err := x.Sync(ctx, store)
		synced <- err
	}()
	<-store.holding // the sync holds scope big, halfway through its read
	res := addFacts(t, svc, "mine", memory.FactInput{Subject: "Ann", Predicate: "likes", Value: "quince"})
	caught := make(chan error, 1)
	go func() { caught <- x.CatchUp(ctx, store, "mine") }()
	select {
	case err := <-caught:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		close(store.release)
		t.Fatal("a query in one scope waited for another scope's sync")
	}
	if hits := mustSearch(t, x, search.Query{Scope: "mine", Text: "quince", Now: now}); !has(hits, res[0].FactID) {
		t.Errorf("read your writes during another scope's sync: %v", ids(hits))
	}
	close(store.release)
	if err := <-synced; err != nil {
		t.Fatal(err)
	}
	if c, err := x.Counts(ctx, "big"); err != nil || c.Facts != 500 {
		t.Errorf("after the sync the backlog's documents: %+v, %v", c, err)
	}
}
