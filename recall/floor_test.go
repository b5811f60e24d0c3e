package recall

import (
	"slices"
	"testing"
)

// TestKeepPieces: the floor keeps what covers the question about as well
// as the best piece, prefers pieces about the named entities (and their
// neighbours), and keeps everything when nothing can be measured.
func TestKeepPieces(t *testing.T) {
	topicOf := func(entities []string, terms ...string) *topic {
		tp := &topic{entities: map[string][]string{}, strong: map[string]bool{}, terms: terms}
		for _, e := range entities {
			tp.entities[e] = []string{e}
			tp.strong[e] = true
		}
		return tp
	}
	for _, tc := range []struct {
		name   string
		topic  *topic
		pieces []piece
		want   []bool
	}{
		{"manager", topicOf([]string{"sam"}, "manag"), []piece{
			{touches: []string{"sam", "dana"}, text: "Sam reports to Dana, his manager"},
			{touches: []string{"trip"}, text: "trip-miniapp uses package manager npm"},
			{touches: []string{"sam", "rotterdam"}, text: "Sam lives in Rotterdam"},
			{touches: []string{"x"}, text: "a pinned rule", always: true},
		}, []bool{true, false, false, true}},
		{"neighbour of the one named entity", topicOf([]string{"mia"}), []piece{
			{touches: []string{"mia", "acme"}, text: "Mia works at Acme"},
			{touches: []string{"acme", "lyon"}, text: "Acme is based in Lyon"},
			{touches: []string{"bob", "oslo"}, text: "Bob lives in Oslo"},
		}, []bool{true, true, false}},
		{"words only", topicOf(nil, "packag", "manag"), []piece{
			{touches: []string{"trip"}, text: "trip-miniapp uses package manager npm"},
			{touches: []string{"sam"}, text: "Sam reports to Dana, his manager"},
			{touches: []string{"orders"}, text: "orders-service dropped MongoDB"},
		}, []bool{true, false, false}},
		{"nothing covered", topicOf(nil, "tool"), []piece{
			{touches: []string{"trip"}, text: "trip-miniapp uses npm"},
		}, []bool{true}},
		{"no concepts", topicOf(nil), []piece{{text: "anything"}}, []bool{true}},
	} {
		if got := tc.topic.keepPieces(tc.pieces, DefaultWeights().Floor.Share); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestTopicWords(t *testing.T) {
	c := &candidates{p: params{a: analyze("Why did we move orders to MongoDB last March?", d("2026-06-15"))}}
	tp := c.topic()
	if !slices.Equal(tp.terms, []string{"order", "mongodb"}) {
		t.Errorf("terms %q", tp.terms)
	}
	c = &candidates{p: params{a: analyze("王芳住在哪里？", d("2026-06-15"))}}
	if tp := c.topic(); len(tp.cjk) != 1 || !slices.Contains(tp.cjk[0].grams, "住在") || slices.Contains(tp.cjk[0].grams, "哪里") {
		t.Errorf("cjk %+v", tp.cjk)
	}
}
