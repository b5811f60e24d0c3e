package recall

import (
	"fmt"
	"slices"
	"testing"

	"github.com/graphmem/graphmem/search"
	"github.com/graphmem/graphmem/vector"
)

// noPairs: turns unlike one another, so the ranks are the list's order.
func noPairs(ids []string) [][]float64 {
	m := make([][]float64, len(ids))
	for i := range m {
		m[i] = make([]float64, len(ids))
	}
	return m
}

// TestRankVectorEpisodes_Speaker: when the question names a speaker of
// the list, that speaker's turns are ranked among themselves and the
// others keep their place in the whole list; no rank past vectorEpisodes.
func TestRankVectorEpisodes_Speaker(t *testing.T) {
	visible := map[string]search.Hit{}
	var list []vector.Hit
	add := func(speaker string) string {
		id := fmt.Sprintf("t%02d", len(list))
		visible[id] = search.Hit{ID: id, Speaker: speaker}
		list = append(list, vector.Hit{ID: id, Similarity: 0.9 - float64(len(list))/1000})
		return id
	}
	var others, hers []string
	for range vectorEpisodes {
		others = append(others, add("caroline"))
	}
	hers = append(hers, add("melanie"))
	late := add("caroline")
	hers = append(hers, add("melanie smith")) // named by her first name
	unknown := add("")
	for range vectorEpisodes {
		hers = append(hers, add("melanie"))
	}

	ranks := rankVectorEpisodes(list, visible, map[string]bool{"melanie": true}, noPairs, DefaultVectorWeights.MMR)
	for i, id := range others {
		if ranks[id] != i+1 {
			t.Errorf("turn %d by someone else ranks %d, want its place %d", i, ranks[id], i+1)
		}
	}
	for i, id := range hers {
		want := i + 1
		if want > vectorEpisodes {
			want = 0
		}
		if ranks[id] != want {
			t.Errorf("her turn %d ranks %d, want %d", i, ranks[id], want)
		}
	}
	if ranks[late] != 0 || ranks[unknown] != 0 {
		t.Errorf("turns past the list's depth by others rank %d and %d, want none", ranks[late], ranks[unknown])
	}

	// A question naming no speaker of the list: ranks are places.
	ranks = rankVectorEpisodes(list, visible, map[string]bool{"jon": true}, noPairs, DefaultVectorWeights.MMR)
	for i, n := range list {
		want := i + 1
		if want > vectorEpisodes {
			want = 0
		}
		if ranks[n.ID] != want {
			t.Fatalf("no named speaker: turn %d ranks %d, want %d", i, ranks[n.ID], want)
		}
	}
}

// TestMarginal: a turn nearly the same as a better one gives way to a
// turn that says something else, unless it is much nearer the question.
func TestMarginal(t *testing.T) {
	list := []vector.Hit{{ID: "pottery", Similarity: 0.85}, {ID: "pottery again", Similarity: 0.84},
		{ID: "camping", Similarity: 0.82}, {ID: "far", Similarity: 0.60}}
	same := func(ids []string) [][]float64 {
		m := noPairs(ids)
		for i, a := range ids {
			for j, b := range ids {
				switch {
				case i == j:
				case a[:3] == b[:3]:
					m[i][j] = 0.95
				default:
					m[i][j] = 0.70
				}
			}
		}
		return m
	}
	if got, want := marginal(list, same, 3, DefaultVectorWeights.MMR), []string{"pottery", "camping", "pottery again"}; !slices.Equal(got, want) {
		t.Errorf("marginal: %v, want %v", got, want)
	}
	if got := marginal(list, noPairs, 2, DefaultVectorWeights.MMR); !slices.Equal(got, []string{"pottery", "pottery again"}) {
		t.Errorf("turns unlike one another keep their order: %v", got)
	}
	if got := marginal(list[:1], same, 5, DefaultVectorWeights.MMR); !slices.Equal(got, []string{"pottery"}) {
		t.Errorf("one turn: %v", got)
	}
}

// TestRankVectorEpisodes_FortyDeep: the vector list fuses the 40 turns
// nearest in meaning, not 30 (vectorEpisodes: with vectors, R@10 on the dev
// parts 0.841 → 0.846 on LoCoMo and 0.858 → 0.861 on the coding-assistant
// conversations), and reads twice as many so that a named speaker's turns
// reach as deep among themselves.
func TestRankVectorEpisodes_FortyDeep(t *testing.T) {
	var list []vector.Hit
	visible := map[string]search.Hit{}
	for i := range vectorEpisodesRead {
		id := fmt.Sprintf("t%02d", i+1)
		list = append(list, vector.Hit{ID: id, Similarity: 1 - float64(i)/100})
		speaker := "ann"
		if i%2 == 1 {
			speaker = "bob"
		}
		visible[id] = search.Hit{ID: id, Speaker: speaker}
	}
	ranks := rankVectorEpisodes(list, visible, nil, noPairs, 0.8)
	for i, n := range list {
		want := i + 1
		if i >= 40 {
			want = 0
		}
		if ranks[n.ID] != want {
			t.Errorf("no speaker named: the %d-th nearest turn has rank %d, want %d (0: not fused)", i+1, ranks[n.ID], want)
		}
	}
	// Ann is named: her turns (every other one) are ranked among
	// themselves, down to her 40th, the 79th nearest turn; Bob's keep
	// their place in the whole list.
	ranks = rankVectorEpisodes(list, visible, map[string]bool{"ann": true}, noPairs, 0.8)
	for i, n := range list {
		want := 0
		switch {
		case i%2 == 0:
			want = i/2 + 1
		case i < 40:
			want = i + 1
		}
		if ranks[n.ID] != want {
			t.Errorf("Ann named: the %d-th nearest turn (%s) has rank %d, want %d", i+1, visible[n.ID].Speaker, ranks[n.ID], want)
		}
	}
}
