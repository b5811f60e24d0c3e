package recall_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/recall"
)

// contextEpisodes returns the ids of the episodes quoted in the block.
func contextEpisodes(res recall.ContextResult) []string {
	var ids []string
	for _, e := range res.Episodes {
		ids = append(ids, e.Episode.ID)
	}
	return ids
}

// TestContext_KeepsSearchTop: the turns search ranks in its top 10 are in
// the block whenever it has room for them, however few of the question's
// words each holds; the rest of the room goes to further turns.
func TestContext_KeepsSearchTop(t *testing.T) {
	e := newEnv(t)
	turns := []turnSpec{
		{1, "Mel", "I painted a sunset at the art class with the kids on Saturday."},
		{1, "Ann", "The kids must have loved that."},
		{1, "Mel", "They did, we go to the class every week now."},
		{1, "Ann", "I tried painting once, it was harder than it looks."},
		{1, "Mel", "Art is a good way to relax after work."},
		{2, "Ann", "Sunsets over the lake are my favourite."},
		{2, "Mel", "Saturday was busy, we also went to the market."},
	}
	for i := range 20 {
		turns = append(turns, turnSpec{3, "Ann", fmt.Sprintf("Note %d: the weather was mild and the garden grew.", i)})
	}
	e.conversation(t, "u", turns)
	const q = "What did Mel paint at the art class with the kids on Saturday?"
	found, err := e.engine.Search(ctx, "u", recall.SearchRequest{Query: q, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var top []string
	for _, h := range found.Hits {
		if h.Episode != nil {
			top = append(top, h.ID)
		}
	}
	if len(top) < 5 {
		t.Fatalf("search found %v: the case needs more", top)
	}
	res, err := e.engine.Context(ctx, "u", recall.ContextRequest{Query: q, MaxTokens: 1000})
	if err != nil {
		t.Fatal(err)
	}
	got := contextEpisodes(res)
	for _, id := range top {
		if !slices.Contains(got, id) {
			t.Errorf("search's %s is not in the block %v (%d tokens):\n%s", id, got, res.Tokens, res.Context)
		}
	}
	// At a budget that holds only a few quotes, the best of them.
	small, err := e.engine.Context(ctx, "u", recall.ContextRequest{Query: q, MaxTokens: 120})
	if err != nil {
		t.Fatal(err)
	}
	if got := contextEpisodes(small); len(got) == 0 || !slices.Contains(got, top[0]) {
		t.Errorf("a small block holds %v, not search's first %s", got, top[0])
	}
}

// TestContext_EverySession: a question whose answer spans sessions gets a
// turn from each, even when one session's turns outrank all the other's
// and the budget holds fewer quotes than they are.
func TestContext_EverySession(t *testing.T) {
	e := newEnv(t)
	var turns []turnSpec
	for i := range 16 {
		turns = append(turns, turnSpec{1, "Bob", fmt.Sprintf("Day %d of the hiking trip in the mountains: more hiking, more mountains.", i)})
	}
	turns = append(turns, turnSpec{2, "Ann", "I bought new boots today."})
	turns = append(turns, turnSpec{2, "Bob", "Spring was when we booked the trip, after a long evening of looking at maps, prices and dates together."})
	e.conversation(t, "u", turns)
	const q = "When did Bob plan and take the hiking trip in the mountains?"
	res, err := e.engine.Context(ctx, "u", recall.ContextRequest{Query: q, MaxTokens: 400})
	if err != nil {
		t.Fatal(err)
	}
	got := contextEpisodes(res)
	if n := len(got); n == 0 || n >= 16 {
		t.Fatalf("the block holds %d quotes: the case needs fewer than session 1's 16 and some", n)
	}
	sessions := map[string]bool{}
	for _, id := range got {
		sessions[strings.Split(id, "-")[0]] = true
	}
	if !sessions["s01"] || !sessions["s02"] {
		t.Errorf("the block quotes %v: want a turn of each session\n%s", got, res.Context)
	}
}

// TestContext_UsesBudget: a block given room for more of what search
// found uses it, rather than stopping where the relevance floor would:
// turns that name Caroline but none of the question's other words are
// below the floor, and still better than an empty room.
func TestContext_UsesBudget(t *testing.T) {
	e := newEnv(t)
	var turns []turnSpec
	turns = append(turns, turnSpec{1, "Ann", "Caroline went to the LGBTQ support group meeting on Tuesday and felt welcome."})
	for i := range 30 {
		turns = append(turns, turnSpec{i%5 + 2, "Mel", fmt.Sprintf("Caroline told me story %d about her week, it was long and detailed.", i)})
	}
	e.conversation(t, "u", turns)
	const q = "When did Caroline go to the LGBTQ support group?"
	small, err := e.engine.Context(ctx, "u", recall.ContextRequest{Query: q, MaxTokens: 500})
	if err != nil {
		t.Fatal(err)
	}
	large, err := e.engine.Context(ctx, "u", recall.ContextRequest{Query: q, MaxTokens: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(contextEpisodes(large), "s01-000") {
		t.Errorf("the answer is not in the block:\n%s", large.Context)
	}
	// Every turn about Caroline fits in 2,000 tokens, not in 500.
	if len(large.Episodes) != len(turns) || len(small.Episodes) >= len(turns) || small.Tokens > 500 {
		t.Errorf("given 2,000 tokens the block quotes %d of %d turns in %d tokens (%d in %d at 500)", len(large.Episodes), len(turns),
			large.Tokens, len(small.Episodes), small.Tokens)
	}
}

// TestContext_NoSparesForUnknown: a question naming someone memory does
// not know gets no quotes below the floor, which would stand in for its
// answer.
func TestContext_NoSparesForUnknown(t *testing.T) {
	e := newEnv(t)
	var turns []turnSpec
	turns = append(turns, turnSpec{1, "Ann", "Caroline went to the LGBTQ support group meeting on Tuesday and felt welcome."})
	for i := range 30 {
		turns = append(turns, turnSpec{i%5 + 2, "Mel", fmt.Sprintf("Someone told me story %d about a support meeting, it was long.", i)})
	}
	e.conversation(t, "u", turns)
	res, err := e.engine.Context(ctx, "u", recall.ContextRequest{Query: "When did Zara Quinn go to the LGBTQ support group?", MaxTokens: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Unresolved) == 0 {
		t.Fatalf("Zara Quinn is not reported unknown: %+v", res)
	}
	if n := len(res.Episodes); n > 12 {
		t.Errorf("the block quotes %d turns for an unknown name:\n%s", n, res.Context)
	}
}
