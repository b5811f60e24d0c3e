package search_test

import (
	"testing"
)

// The index's lag counts the change numbers it has yet to apply against
// the heads its sync read, while the sync runs, and none once it is done;
// its seconds run from the sync that last finished reading.
func TestIndex_Lag(t *testing.T) {
	store := &feedStore{Store: MustOpenStore(t)}
	x := MustOpenIndex(t)
	now := day("2024-05-01")
	backlog(t, newService(store, &now), "big", 500)
	heads, err := store.Heads(ctx)
	if err != nil {
		t.Fatal(err)
	}

	store.hold, store.holding, store.release = "big", make(chan struct{}), make(chan struct{})
	synced := make(chan error, 1)
	go func() {
		_, err := x.Sync(ctx, store)
		synced <- err
	}()
	<-store.holding // the sync has read the heads, not yet the changes
	if l := x.Lag(); l.Changes != heads["big"] || l.Seconds < 0 {
		t.Errorf("lag during the sync = %+v, want %d changes", l, heads["big"])
	}
	close(store.release)
	if err := <-synced; err != nil {
		t.Fatal(err)
	}
	if l := x.Lag(); l.Changes != 0 || l.Seconds <= 0 || l.Seconds > 60 {
		t.Errorf("lag after the sync = %+v, want no changes and the seconds since it read the heads", l)
	}
}
