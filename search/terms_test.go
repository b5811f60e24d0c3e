package search_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/search"
)

// TestIndex_FrequentTermsOnlyBesideRareOnes: in a large scope, a term
// found in more documents than commonMax (but not common) is matched only
// in the documents that hold a rarer term of the query, and there it
// scores as it would unlimited: the documents that hold the rare term rank
// and score alike either way, and those holding only the frequent term
// are left out.
func TestIndex_FrequentTermsOnlyBesideRareOnes(t *testing.T) {
	store, x := MustOpenStore(t), MustOpenIndex(t)
	at := day("2024-05-01")
	content := map[string]string{"ep-a": "harbour lantern", "ep-b": "harbour", "ep-c": "harbour lantern lantern"}
	for i := range 3 {
		content[fmt.Sprintf("ep-l%d", i)] = "lantern"
	}
	for i := range 50 {
		content[fmt.Sprintf("ep-f%02d", i)] = "meadow"
	}
	err := store.Update(ctx, "u", func(tx graph.Tx) error {
		for id, c := range content {
			err := tx.PutEpisode(entity.Episode{ID: id, Scope: "u", Kind: entity.KindMessage, Content: c,
				ReferenceTime: at, RecordedAt: at, SourceKind: entity.UserExplicit, Status: entity.EpisodeDone})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, x, store)
	q := search.Query{Scope: "u", Text: "harbour lantern", Limit: 20, Now: at}
	// 56 documents: common from 6 on; "harbour" (3) is rare, "lantern"
	// (5) frequent once the bound is 3, rare when it is 1,000.
	search.WithCommon(t, 1, 1000)
	all := mustSearch(t, x, q)
	search.WithCommon(t, 1, 3)
	limited := mustSearch(t, x, q)
	if len(all) != 6 || len(limited) != 3 {
		t.Fatalf("%d hits unlimited (want 6), %d limited (want 3): %v, %v", len(all), len(limited), ids(all), ids(limited))
	}
	for i, h := range limited {
		if h.ID != all[i].ID || math.Abs(h.Score-all[i].Score) > 1e-12*h.Score {
			t.Errorf("hit %d: %s %g limited, %s %g unlimited", i, h.ID, h.Score, all[i].ID, all[i].Score)
		}
	}
}
