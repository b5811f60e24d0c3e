package memory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/storetest"
	"github.com/graphmem/graphmem/memory"
)

// retryingStore runs every Update twice, as an adapter retrying a transient
// failure does: the first run is rolled back, the second commits.
type retryingStore struct{ graph.Store }

var errTransient = errors.New("transient failure")

func (s retryingStore) Update(ctx context.Context, scope string, fn func(graph.Tx) error) error {
	err := s.Store.Update(ctx, scope, func(tx graph.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errTransient
	})
	if !errors.Is(err, errTransient) {
		return err
	}
	return s.Store.Update(ctx, scope, fn)
}

// TestUpdateRetried: a retried transaction is counted once by the sweeper
// and by import, and gives the same results to AddFacts.
func TestUpdateRetried(t *testing.T) {
	// One store at a time: on Neo4j every store opened here is the same
	// database, wiped when opened.
	in := scenario(t, "employment")
	plain, _ := MustOpenService(t)
	want := mustAdd(t, plain, in...)
	svc := memory.New(retryingStore{storetest.Open(t)}, nil)
	c := &clock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	svc.Now = func() time.Time { c.tick(); return c.t }
	got, err := svc.AddFacts(ctx, scope, in)
	if err != nil {
		t.Fatal(err)
	}
	if !equalActions(got, want) {
		t.Errorf("retried AddFacts: %v, want %v", actions(got), actions(want))
	}

	mustAdd(t, svc, memory.FactInput{Subject: "me", Predicate: "mentioned", Value: "the weather", Importance: 2})
	c.t = c.t.Add(200 * 24 * time.Hour)
	if n, err := svc.Sweep(ctx, memory.DefaultDecay); err != nil || n != 1 {
		t.Errorf("retried sweep archived %d (%v), want 1", n, err)
	}

	var buf bytes.Buffer
	if err := svc.Export(ctx, scope, &buf); err != nil {
		t.Fatal(err)
	}
	records := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
	for {
		var rec map[string]json.RawMessage
		if err := dec.Decode(&rec); err != nil {
			break
		}
		for k := range rec {
			records[k]++
		}
	}
	res, err := memory.New(retryingStore{storetest.Open(t)}, nil).Import(ctx, scope, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if res.Facts != records["fact"] || res.Entities != records["entity"] || records["fact"] == 0 {
		t.Errorf("retried import counted %d facts and %d entities, the export holds %d and %d", res.Facts, res.Entities, records["fact"], records["entity"])
	}
}

func equalActions(a, b []memory.FactResult) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Action != b[i].Action {
			return false
		}
	}
	return true
}
