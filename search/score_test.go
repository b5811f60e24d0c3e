package search_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/search"
)

// TestIndex_ScoresDoNotDependOnIndexingOrder: the same documents score
// the same to the last bit however they were written — in another order,
// in other batches —, so a near tie between two documents falls the same
// way in every index, on every store (a query of many words sums each
// document's matching clauses; the order of that sum must not follow the
// order the index numbered its documents in).
func TestIndex_ScoresDoNotDependOnIndexingOrder(t *testing.T) {
	words := strings.Fields("river stone garden violin harbour lantern orchard pepper meadow canyon glacier falcon tulip marble")
	rng := rand.New(rand.NewPCG(7, 7))
	var eps []entity.Episode
	at := day("2024-05-01")
	for i := range 300 {
		n := 3 + rng.IntN(8)
		var c []string
		for range n {
			c = append(c, words[rng.IntN(len(words))])
		}
		eps = append(eps, entity.Episode{ID: fmt.Sprintf("ep-%03d", i), Scope: "u",
			Kind: entity.KindMessage, Content: strings.Join(c, " "), ReferenceTime: at, RecordedAt: at,
			SourceKind: entity.UserExplicit, Status: entity.EpisodeDone})
	}
	// scores indexes eps in batches of batch, in the given order, and
	// returns each episode's score for a query of every word.
	scores := func(order []int, batch int) map[string]float64 {
		store, x := MustOpenStore(t), MustOpenIndex(t)
		for i := 0; i < len(order); i += batch {
			err := store.Update(ctx, "u", func(tx graph.Tx) error {
				for _, j := range order[i:min(i+batch, len(order))] {
					if err := tx.PutEpisode(eps[j]); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			mustSync(t, x, store)
		}
		out := map[string]float64{}
		for _, h := range mustSearch(t, x, search.Query{Scope: "u", Text: strings.Join(words, " "), Limit: search.MaxLimit, Now: at}) {
			out[h.ID] = h.Score
		}
		return out
	}
	forward := make([]int, len(eps))
	for i := range forward {
		forward[i] = i
	}
	shuffled := rng.Perm(len(eps))
	a, b := scores(forward, len(eps)), scores(shuffled, 37)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d hits against %d", len(a), len(b))
	}
	differ := 0
	for id, s := range a {
		if b[id] != s {
			differ++
			if differ <= 3 {
				t.Errorf("episode %s scores %.17g in one index and %.17g in the other", id, s, b[id])
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d episodes score differently", differ, len(a))
	}
}

// TestIndex_EqualScoresInIDOrder: hits of equal score come in id order,
// and a search for the k best is the first k of the search for all of
// them, wherever the cut falls — between two scores or inside a run of
// equal ones — however the documents were spread over the index's
// segments.
func TestIndex_EqualScoresInIDOrder(t *testing.T) {
	words := strings.Fields("river stone garden")
	rng := rand.New(rand.NewPCG(3, 9))
	store, x := MustOpenStore(t), MustOpenIndex(t)
	at := day("2024-05-01")
	ids := rng.Perm(90)
	for i := 0; i < len(ids); i += 13 {
		err := store.Update(ctx, "u", func(tx graph.Tx) error {
			for _, j := range ids[i:min(i+13, len(ids))] {
				// Few distinct contents: long runs of equal scores.
				content := strings.Join(words[:1+j%3], " ")
				err := tx.PutEpisode(entity.Episode{ID: fmt.Sprintf("ep-%03d", j), Scope: "u", Kind: entity.KindMessage,
					Content: content, ReferenceTime: at, RecordedAt: at, SourceKind: entity.UserExplicit, Status: entity.EpisodeDone})
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
	}
	query := search.Query{Scope: "u", Text: strings.Join(words, " "), Now: at}
	all := query
	all.Limit = search.MaxLimit
	full := mustSearch(t, x, all)
	if len(full) != len(ids) {
		t.Fatalf("%d hits of %d episodes", len(full), len(ids))
	}
	for i := 1; i < len(full); i++ {
		a, b := full[i-1], full[i]
		if a.Score < b.Score || a.Score == b.Score && a.ID > b.ID {
			t.Fatalf("hit %d (%s, %g) before hit %d (%s, %g)", i-1, a.ID, a.Score, i, b.ID, b.Score)
		}
	}
	for k := 1; k <= len(full); k++ {
		query.Limit = k
		got := mustSearch(t, x, query)
		if len(got) != k {
			t.Fatalf("limit %d: %d hits", k, len(got))
		}
		for i := range got {
			if got[i].ID != full[i].ID {
				t.Fatalf("limit %d: hit %d is %s, the full list's is %s", k, i, got[i].ID, full[i].ID)
			}
		}
	}
}
