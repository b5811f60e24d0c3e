package neo4j

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// TestWriteCacheSize checks the write cache's estimate of the memory it
// holds against the Go heap it takes, for facts shaped as ingestion
// writes them (decoded as a read decodes them), so its budget in MiB is
// about what it costs.
func TestWriteCacheSize(t *testing.T) {
	at := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	fact := func(i int) entity.Fact {
		to := at.Add(time.Hour)
		f := entity.Fact{ID: fmt.Sprintf("01J%023d", i), SubjectID: fmt.Sprintf("01K%023d", i/4),
			Subject: fmt.Sprintf("Person %05d", i/4), Predicate: "works_at", ObjectID: fmt.Sprintf("01L%023d", i%500),
			Object: fmt.Sprintf("Org %04d", i%500), Text: fmt.Sprintf("Person %05d works at Org %04d", i/4, i%500),
			ValidFrom: at, ValidTo: &to, RecordedAt: at, UpdatedAt: at, SourceKind: entity.UserExplicit, Confidence: 1,
			Importance: 5, SupersededBy: fmt.Sprintf("01J%023d", i+1),
			Claims:    []entity.Claim{{From: at, SourceKind: entity.UserExplicit, Confidence: 1, RecordedAt: at, Said: at}},
			Revisions: []entity.Revision{{Until: at, ValidFrom: at}},
		}
		p, err := factProps(&f)
		if err != nil {
			t.Fatal(err)
		}
		p["seq"] = int64(i)
		if f, err = decodeFact("s", p); err != nil {
			t.Fatal(err)
		}
		return f
	}
	c := newWriteCache(1 << 10)
	sc := c.scope("s")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < 40000; i += 4 {
		fs := []entity.Fact{fact(i), fact(i + 1), fact(i + 2), fact(i + 3)}
		c.add(sc, &cacheEntry{scope: "s", chain: graph.ChainKey{SubjectID: fs[0].SubjectID, Predicate: "works_at"}, facts: fs})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	if r := float64(c.size) / heap; r < 0.75 || r > 1.33 {
		t.Errorf("estimated %d bytes, the heap grew by %.0f (%.2f)", c.size, heap, r)
	}
	runtime.KeepAlive(c)
}

// TestTouchWhileRead: a transaction that only counts hits moves no head,
// so reads go on filling the cache while it runs; the facts around an
// entity read before it began get its hits at its commit, those read while
// it ran (perhaps after its commit, the hit already counted) are dropped.
func TestTouchWhileRead(t *testing.T) {
	c := newWriteCache(16)
	at := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	around := func(id string) []entity.Fact {
		return []entity.Fact{{ID: "f2", SubjectID: id, Predicate: "p", Value: "2"}, {ID: "f1", SubjectID: id, Predicate: "p", Value: "1"}}
	}
	if !c.view("s", 7) {
		t.Fatal("a read may not use the cache")
	}
	c.putAround("s", 7, "before", around("before"), false)
	w := newTxCache()
	w.added = c.begin("s", 7)
	c.putAround("s", 7, "during", around("during"), false)
	w.touched = map[string]time.Time{"f1": at}
	c.commit("s", 7, 7, w)

	fs, _, ok := c.around("s", 7, "before")
	if !ok || fs[1].Hits != 1 || fs[1].LastAccessedAt == nil || !fs[1].LastAccessedAt.Equal(at) || fs[0].Hits != 0 {
		t.Errorf("read before the touch: held %v, %+v", ok, fs)
	}
	if _, _, ok := c.around("s", 7, "during"); ok {
		t.Error("read while the touch ran: still held")
	}
	if _, _, ok := c.around("s", 8, "before"); ok {
		t.Error("held for a read that found another head")
	}
}

// TestByIDFromAround: a bare read by id is answered from the facts around
// an entity held when no chain held lists the fact; a read that wants
// claims is not.
func TestByIDFromAround(t *testing.T) {
	c := newWriteCache(16)
	c.begin("s", 7)
	at := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	fs := []entity.Fact{{ID: "f2", SubjectID: "e1", Predicate: "p", Value: "b", ValidFrom: at},
		{ID: "f1", SubjectID: "e1", Predicate: "p", Value: "a", ValidFrom: at}} // newest first
	c.putAround("s", 7, "e1", cloneFacts(fs), false)
	for _, bare := range []bool{false, true} {
		got := map[string]entity.Fact{}
		rest, _ := c.byID("s", 7, []string{"f1", "f2", "f9"}, nil, bare, got, map[string]entity.Entity{})
		wantRest := []string{"f1", "f2", "f9"}
		if bare {
			wantRest = []string{"f9"}
			if !reflect.DeepEqual(got["f1"], fs[1]) || !reflect.DeepEqual(got["f2"], fs[0]) {
				t.Errorf("bare: got %+v", got)
			}
		}
		if !slices.Equal(rest, wantRest) {
			t.Errorf("bare %v: left %v for the store, want %v", bare, rest, wantRest)
		}
	}
	if rest, _ := c.byID("s", 8, []string{"f1"}, nil, true, map[string]entity.Fact{}, map[string]entity.Entity{}); len(rest) != 1 {
		t.Errorf("read at another head answered from the cache")
	}
}
