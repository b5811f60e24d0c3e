package search_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/search"
)

// BenchmarkSearch_FrequentTerm times a question of one rare and one
// frequent word ("who knows Person 00709") over 20,000 episodes, the
// frequent word in a fifth of them: matched only beside the rare one
// (limited, the bounds scaled down to the scope) and everywhere
// (unlimited). Run with -bench; it reports no figure in the tests.
func BenchmarkSearch_FrequentTerm(b *testing.B) {
	store, x := MustOpenStore(b), MustOpenIndex(b)
	at := day("2024-05-01")
	rng := rand.New(rand.NewPCG(5, 5))
	const n = 20000
	err := store.Update(ctx, "u", func(tx graph.Tx) error {
		for i := range n {
			content := fmt.Sprintf("person%04d met person%04d", rng.IntN(n/4), rng.IntN(n/4))
			if i%20 == 0 {
				content += " knows"
			}
			err := tx.PutEpisode(entity.Episode{ID: fmt.Sprintf("ep-%05d", i), Scope: "u", Kind: entity.KindMessage,
				Content: content, ReferenceTime: at, RecordedAt: at, SourceKind: entity.UserExplicit, Status: entity.EpisodeDone})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	mustSync(b, x, store)
	if err := x.Compact(ctx); err != nil {
		b.Fatal(err)
	}
	q := search.Query{Scope: "u", Text: "who knows person0709", Limit: 10, Now: at}
	for _, c := range []struct {
		name   string
		lo, hi uint64
	}{{"limited", 100, 500}, {"unlimited", 100, n}} {
		b.Run(c.name, func(b *testing.B) {
			search.WithCommon(b, c.lo, c.hi)
			for b.Loop() {
				if _, err := x.Search(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
