package recall

import (
	"fmt"
	"testing"

	"github.com/graphmem/graphmem/search"
	"github.com/graphmem/graphmem/vector"
)

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
	unrelated := func(ids []string) [][]float64 {
		m := make([][]float64, len(ids))
		for i := range m {
			m[i] = make([]float64, len(ids))
		}
		return m
	}
	ranks := rankVectorEpisodes(list, visible, nil, unrelated, 0.8)
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
	ranks = rankVectorEpisodes(list, visible, map[string]bool{"ann": true}, unrelated, 0.8)
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
