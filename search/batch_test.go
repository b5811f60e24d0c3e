package search_test

import (
	"strings"
	"testing"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/search"
)

// A sync's Bleve batch stays under its byte cap (but for the document that
// crossed it), and the cap under 1 MiB, however large the records of a
// page: a page of large episodes is applied in several batches, and every
// record is indexed.
func TestIndex_SyncBatchBytesCapped(t *testing.T) {
	store := MustOpenStore(t)
	x := MustOpenIndex(t)
	now := day("2024-05-01")
	svc := newService(store, &now)
	const episodes = 30
	content := strings.Repeat("lorem ipsum dolor sit amet ", entity.MaxEpisodeBytes*3/4/27)
	for range episodes {
		if _, _, err := svc.AddEpisode(ctx, "big", memory.EpisodeInput{Content: content}); err != nil {
			t.Fatal(err)
		}
	}
	backlog(t, svc, "big", 2000)

	var batches, most int
	search.OnBatch(t, func(bytes, last int) {
		batches++
		most = max(most, bytes)
		if bytes-last >= min(search.SyncBatchBytes, 1<<20) {
			t.Errorf("a batch of %d bytes, %d before its last document: over the cap of %d (and 1 MiB)", bytes, bytes-last, search.SyncBatchBytes)
		}
	})
	mustSync(t, x, store)
	if want := episodes * len(content) >> 20; batches < want {
		t.Errorf("%d batches, want at least %d", batches, want)
	}
	c, err := x.Counts(ctx, "big")
	if err != nil || c.Episodes != episodes || c.Facts != 2000 {
		t.Fatalf("after the sync: %+v, %v", c, err)
	}
	t.Logf("%d batches, the largest %d bytes", batches, most)
}
