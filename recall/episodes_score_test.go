package recall

import (
	"math"
	"testing"

	"github.com/graphmem/graphmem/search"
)

// Pure scoring of episode features, on hand-built turns: no index, no
// store.

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestShapeOf(t *testing.T) {
	turns := func(hs ...search.Hit) map[string]search.Hit {
		out := map[string]search.Hit{}
		for i, h := range hs {
			out[string(rune('a'+i))] = h
		}
		return out
	}
	hit := func(speaker string, words int) search.Hit { return search.Hit{Speaker: speaker, Words: words} }
	for _, tc := range []struct {
		name        string
		turns       map[string]search.Hit
		roles, chat bool
	}{
		{"people chatting", turns(hit("caroline", 12), hit("melanie", 20), hit("caroline", 70)), false, true},
		// Short questions and thanks outnumber the long answers.
		{"user and assistant, long answers", turns(hit("user", 12), hit("assistant", 140), hit("user", 3), hit("user", 9), hit("assistant", 120)), true, false},
		{"user and assistant, short turns", turns(hit("user", 8), hit("assistant", 15), hit("user", 60)), true, true},
		{"one named speaker among roles", turns(hit("user", 8), hit("bob", 15)), false, true},
		{"nothing", nil, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := shapeOf(tc.turns, defaultWeights.Limits.ChatWords); got.roles != tc.roles || got.chat != tc.chat {
				t.Fatalf("got %+v, want roles %v chat %v", got, tc.roles, tc.chat)
			}
		})
	}
}

// threeTurns: a question (q), its reply (a) and a statement (s), in one
// session in that order.
func threeTurns(shape conversationShape) *episodeFeatures {
	return &episodeFeatures{
		turns: map[string]*turnFeatures{
			"q": {bm25: 2, hit: true, question: true, words: 10},
			"a": {words: 10},
			"s": {bm25: 1, hit: true, words: 60},
		},
		sessions: [][]string{{"q", "a", "s"}},
		shape:    shape,
	}
}

func TestScoreEpisodes_Neighbours(t *testing.T) {
	w := EpisodeWeights{Prev: 0.2, Answer: 0.6, Next: 0.1}
	got := scoreEpisodes(w, &defaultWeights.Limits, threeTurns(conversationShape{chat: true}))
	// In chat the reply to a question gets the Answer share of it, and
	// the Next share of the turn after it.
	if want := 0.6*2 + 0.1*1; !near(got["a"].score, want) || !near(got["a"].signals()["neighbours"], want) {
		t.Fatalf("reply in chat: %+v, want %v", got["a"], want)
	}
	// The statement after the reply gets Prev of the reply's base (0).
	if !near(got["s"].score, 1) {
		t.Fatalf("statement: %+v", got["s"])
	}
	// Outside chat the reply gets only Prev: a user's question there
	// tells the setting it asks about, the long answer only repeats it.
	got = scoreEpisodes(w, &defaultWeights.Limits, threeTurns(conversationShape{roles: true}))
	if want := 0.2*2 + 0.1*1; !near(got["a"].score, want) {
		t.Fatalf("reply outside chat: %+v, want %v", got["a"], want)
	}
	// Off, the reply has no score.
	if got := scoreEpisodes(EpisodeWeights{}, &defaultWeights.Limits, threeTurns(conversationShape{chat: true})); got["a"].score != 0 {
		t.Fatalf("structure off: %+v", got["a"])
	}
}

func TestScoreEpisodes_Session(t *testing.T) {
	f := threeTurns(conversationShape{chat: true})
	f.others = [][]string{{"x"}}
	f.turns["x"] = &turnFeatures{bm25: 3, hit: true, words: 50}
	got := scoreEpisodes(EpisodeWeights{Session: 0.5}, &defaultWeights.Limits, f)
	// Session score: mean of the best Limits.SessionTop (3) turns: (2+1+0)/3.
	if want := 0.5 * 1.0; !near(got["a"].signals()["session"], want) || !near(got["a"].score, want) {
		t.Fatalf("session share: %+v, want %v", got["a"], want)
	}
	// A session of one turn: 3/3.
	if want := 3 + 0.5*1.0; !near(got["x"].score, want) {
		t.Fatalf("other session: %+v, want %v", got["x"], want)
	}
	// Outside chat (long turns, a coding assistant's) a session is one
	// long task: its turns get no share of it.
	f.shape = conversationShape{roles: true}
	got = scoreEpisodes(EpisodeWeights{Session: 0.5}, &defaultWeights.Limits, f)
	if _, ok := got["a"].signals()["session"]; ok || got["a"].score != 0 || !near(got["x"].score, 3) {
		t.Fatalf("session share outside chat: a %+v, x %+v", got["a"], got["x"])
	}
}

func TestScoreEpisodes_SpeakerGate(t *testing.T) {
	f := &episodeFeatures{turns: map[string]*turnFeatures{
		"named": {bm25: 1, hit: true, speaker: true, words: 50},
		"other": {bm25: 1.5, hit: true, words: 50},
	}}
	w := EpisodeWeights{Speaker: 2}
	got := scoreEpisodes(w, &defaultWeights.Limits, f)
	if !near(got["named"].score, 3) || got["named"].signals()["speaker"] != 3 {
		t.Fatalf("named speaker among people: %+v", got["named"])
	}
	// Between roles no speaker is named ("the user service" names no one).
	f.shape.roles = true
	got = scoreEpisodes(w, &defaultWeights.Limits, f)
	if !near(got["named"].score, 1) || got["named"].signals()["speaker"] != 0 {
		t.Fatalf("speaker signal between roles: %+v", got["named"])
	}
}

func TestScoreEpisodes_Prior(t *testing.T) {
	f := &episodeFeatures{turns: map[string]*turnFeatures{
		"ask":   {bm25: 1, hit: true, question: true, words: 15},
		"short": {bm25: 1, hit: true, words: 6},
		"long":  {bm25: 1, hit: true, words: 80},
	}}
	w := EpisodeWeights{Question: 0.3, Length: 0.5}
	got := scoreEpisodes(w, &defaultWeights.Limits, f)
	if want := (1 - 0.3) * (1 - 0.5*(1-15.0/defaultWeights.Limits.TurnWords)); !near(got["ask"].score, want) {
		t.Fatalf("question: %+v, want %v", got["ask"], want)
	}
	if want := 1 - 0.5*(1-6.0/defaultWeights.Limits.TurnWords); !near(got["short"].score, want) {
		t.Fatalf("short turn: %+v, want %v", got["short"], want)
	}
	if !near(got["long"].score, 1) || got["long"].signals()["prior"] != 0 {
		t.Fatalf("long turn: %+v", got["long"])
	}
	for id, s := range scoreEpisodes(EpisodeWeights{}, &defaultWeights.Limits, f) {
		if !near(s.score, 1) || s.signals()["prior"] != 0 {
			t.Fatalf("%s weighed by its form with the prior off: %+v", id, s)
		}
	}
}

func TestScoreEpisodes_AssistantGate(t *testing.T) {
	f := &episodeFeatures{turns: map[string]*turnFeatures{
		"told":   {bm25: 1, hit: true, words: 40},
		"answer": {bm25: 1, hit: true, words: 120, assistant: true},
	}}
	w := EpisodeWeights{Assistant: 0.4}
	// Between roles the assistant's answer weighs less than what the
	// user told.
	f.shape.roles = true
	got := scoreEpisodes(w, &defaultWeights.Limits, f)
	if !near(got["answer"].score, 0.6) || !near(got["answer"].signals()["prior"], 0.6) || !near(got["told"].score, 1) {
		t.Fatalf("between roles: answer %+v, told %+v", got["answer"], got["told"])
	}
	// Among named people no turn is an assistant's.
	f.shape.roles = false
	if got := scoreEpisodes(w, &defaultWeights.Limits, f); !near(got["answer"].score, 1) {
		t.Fatalf("among people: %+v", got["answer"])
	}
}

func TestScoreEpisodes_Mentions(t *testing.T) {
	f := &episodeFeatures{
		turns: map[string]*turnFeatures{
			"best": {bm25: 4, hit: true, words: 40},
			"far":  {words: 40},
			"near": {words: 40},
		},
		// "far" shares a mention with the best turn (two turns mention
		// it); "near" mentions an entity the query names (scale 6, three
		// turns) as well.
		mentions: []mentionFeature{
			{sources: []string{"best"}, turns: []string{"best", "far"}},
			{named: true, turns: []string{"best", "far", "near"}},
		},
		scale: 6,
	}
	got := scoreEpisodes(EpisodeWeights{Mention: 0.5}, &defaultWeights.Limits, f)
	if want := 0.5 * (4.0/2 + 6.0/3); !near(got["far"].score, want) {
		t.Fatalf("far: %+v, want %v", got["far"], want)
	}
	if want := 0.5 * 6.0 / 3; !near(got["near"].score, want) {
		t.Fatalf("near: %+v, want %v", got["near"], want)
	}
	if got := scoreEpisodes(EpisodeWeights{}, &defaultWeights.Limits, f); got["far"].score != 0 {
		t.Fatalf("mentions off: %+v", got["far"])
	}
}

func TestScoreEpisodes_BaseTimeDateVector(t *testing.T) {
	f := &episodeFeatures{turns: map[string]*turnFeatures{
		"t": {bm25: 1, vector: 0.5, inVectors: true, vectorRank: 2, hit: true, time: true, dated: true, words: 50},
	}}
	got := scoreEpisodes(EpisodeWeights{TimeWords: 0.3, Date: 1}, &defaultWeights.Limits, f)["t"]
	if want := (1 + 0.5) * 1.3 * 2; !near(got.score, want) {
		t.Fatalf("score %v, want %v", got.score, want)
	}
	for k, v := range map[string]float64{"bm25": 1, "vector": 0.5, "vector_rank": 2, "time_words": 1.3, "date": 2} {
		if got.signals()[k] != v {
			t.Fatalf("signal %s = %v, want %v: %v", k, got.signals()[k], v, got.signals())
		}
	}
}

func TestScoreEpisodes_FollowUp(t *testing.T) {
	// Ann tells (told), Bob asks about it (ask), Ann goes on (on) in
	// words the query does not share; then Bob again (bob).
	f := &episodeFeatures{
		turns: map[string]*turnFeatures{
			"told": {bm25: 2, hit: true, words: 40, by: "ann"},
			"ask":  {words: 5, question: true, by: "bob"},
			"on":   {words: 12, by: "ann"},
			"bob":  {words: 12, by: "bob"},
		},
		sessions: [][]string{{"told", "ask", "on", "bob"}},
		shape:    conversationShape{chat: true},
	}
	w := EpisodeWeights{FollowUp: 0.5}
	got := scoreEpisodes(w, &defaultWeights.Limits, f)
	if want := 0.5 * 2.0; !near(got["on"].score, want) || !near(got["on"].signals()["neighbours"], want) {
		t.Fatalf("follow-up: %+v, want %v", got["on"], want)
	}
	// Two before Bob's turn is Bob's question: no one goes on with it.
	if got["bob"].score != 0 {
		t.Fatalf("turn after another speaker's: %+v", got["bob"])
	}
	// The turn between does not ask: no follow-up.
	f.turns["ask"].question = false
	if got := scoreEpisodes(w, &defaultWeights.Limits, f); got["on"].score != 0 {
		t.Fatalf("after a statement: %+v", got["on"])
	}
	f.turns["ask"].question = true
	// Outside chat (a coding assistant's long turns) off, as Answer.
	f.shape = conversationShape{roles: true}
	if got := scoreEpisodes(w, &defaultWeights.Limits, f); got["on"].score != 0 {
		t.Fatalf("outside chat: %+v", got["on"])
	}
	f.shape = conversationShape{chat: true}
	if got := scoreEpisodes(EpisodeWeights{}, &defaultWeights.Limits, f); got["on"].score != 0 {
		t.Fatalf("off: %+v", got["on"])
	}
}

// signals are the explanation of a turn's score, flattened.
func (s episodeScore) signals() map[string]float64 { return s.explain.Signals() }
