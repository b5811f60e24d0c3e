package recall_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/recall"
)

// conversation writes turns as message episodes: each is "speaker: text",
// in sessions of the given day; ids are "<session>-<turn>" so they sort in
// turn order.
type turnSpec struct {
	session int
	speaker string
	text    string
}

func (e *env) conversation(tb testing.TB, scope string, turns []turnSpec) {
	tb.Helper()
	err := e.store.Update(ctx, scope, func(tx graph.Tx) error {
		for i, t := range turns {
			ep := entity.Episode{
				ID: fmt.Sprintf("s%02d-%03d", t.session, i), Kind: entity.KindMessage, Content: t.text, Speaker: t.speaker,
				Role: entity.RoleUser, ReferenceTime: day("2024-01-01").AddDate(0, 0, 7*t.session).Add(time.Duration(i) * time.Minute),
				RecordedAt: e.now, SourceKind: entity.UserExplicit, Status: entity.EpisodeDone,
				Metadata: map[string]any{"session_id": fmt.Sprint(t.session)},
			}
			if err := tx.PutEpisode(ep); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	e.sync(tb)
}

// episodeSignals searches episodes with the given weights and returns the
// signals of each episode hit, by id, and the ids in rank order.
func (e *env) episodeSignals(tb testing.TB, scope, query string, w recall.EpisodeWeights) (map[string]map[string]float64, []string) {
	tb.Helper()
	ws := recall.DefaultWeights()
	ws.Episode = w
	eng := &recall.Engine{Store: e.store, Index: e.index, Now: e.engine.Now, Weights: &ws}
	defer eng.Close()
	res, err := eng.Search(ctx, scope, recall.SearchRequest{Query: query, Limit: 50, Types: []string{"episode"}})
	if err != nil {
		tb.Fatal(err)
	}
	sig := map[string]map[string]float64{}
	var order []string
	for _, h := range res.Hits {
		sig[h.ID] = h.Signals
		order = append(order, h.ID)
	}
	return sig, order
}

func rank(order []string, id string) int {
	for i, o := range order {
		if o == id {
			return i
		}
	}
	return -1
}

var chat = []turnSpec{
	{1, "Ann", "Where did you go on holiday?"},                                     // s01-000
	{1, "Bob", "We drove up to Lake Tahoe with the kids."},                         // s01-001: answers without the question's words
	{1, "Ann", "That sounds lovely."},                                              // s01-002
	{2, "Bob", "My sister started pottery classes."},                               // s02-003
	{2, "Ann", "Nice, pottery is calming."},                                        // s02-004
	{3, "Ann", "I was reading about Lake Tahoe yesterday, the water is so clear."}, // s03-005
	{3, "Bob", "The weather was great last week."},                                 // s03-006
}

func TestRankEpisodes_Neighbours(t *testing.T) {
	e := newEnv(t)
	e.conversation(t, "u", chat)
	sig, order := e.episodeSignals(t, "u", "where did you go on holiday", recall.DefaultEpisodeWeights)
	if sig["s01-001"]["neighbours"] <= 0 || rank(order, "s01-001") < 0 {
		t.Fatalf("the reply to the question was not reached through it: %v %v", order, sig["s01-001"])
	}
	// The reply to a question gets the Answer share of the question's
	// score, a turn after a statement the Prev share.
	same := recall.DefaultEpisodeWeights
	same.Answer = same.Prev
	if s, _ := e.episodeSignals(t, "u", "where did you go on holiday", same); s["s01-001"]["neighbours"] >= sig["s01-001"]["neighbours"] {
		t.Fatalf("the answer to a question gets no more than a turn after a statement: %v vs %v", s["s01-001"], sig["s01-001"])
	}
	sig, _ = e.episodeSignals(t, "u", "drove up to Lake Tahoe", recall.DefaultEpisodeWeights)
	if got, want := sig["s01-002"]["neighbours"], recall.DefaultEpisodeWeights.Prev*sig["s01-001"]["bm25"]; got < want*0.99 || got > want*1.01 {
		t.Fatalf("the turn after a statement gets %v of its neighbours, want Prev × %v", got, sig["s01-001"]["bm25"])
	}
	// Without the structure weights, the reply has no score at all.
	off := recall.DefaultEpisodeWeights
	off.Prev, off.Answer, off.FollowUp, off.Next, off.Session = 0, 0, 0, 0, 0
	if _, order := e.episodeSignals(t, "u", "where did you go on holiday", off); rank(order, "s01-001") >= 0 {
		t.Fatalf("with structure off the reply was still found: %v", order)
	}
}

func TestRankEpisodes_Session(t *testing.T) {
	e := newEnv(t)
	e.conversation(t, "u", chat)
	sig, _ := e.episodeSignals(t, "u", "pottery classes", recall.DefaultEpisodeWeights)
	// Both pottery turns and nothing of other sessions share the session score.
	if sig["s02-003"]["session"] <= 0 || sig["s02-004"]["session"] <= 0 {
		t.Fatalf("session signal missing: %v", sig)
	}
	if s := sig["s01-000"]["session"]; s > 0 {
		t.Fatalf("a turn of another session got the session score %v", s)
	}
}

func TestRankEpisodes_SpeakerAndDate(t *testing.T) {
	e := newEnv(t)
	e.conversation(t, "u", chat)
	// Both turns say "Lake Tahoe"; the question names Ann.
	sig, order := e.episodeSignals(t, "u", "what did Ann say about Lake Tahoe", recall.DefaultEpisodeWeights)
	if sig["s03-005"]["speaker"] != 1+recall.DefaultEpisodeWeights.Speaker || sig["s01-001"]["speaker"] != 0 {
		t.Fatalf("speaker signal: Ann's turn %v, Bob's %v", sig["s03-005"], sig["s01-001"])
	}
	if rank(order, "s03-005") > rank(order, "s01-001") {
		t.Fatalf("the named speaker's turn ranks below the other: %v", order)
	}
	// Session 3 is dated 2024-01-22: a question about that week boosts it.
	sig, _ = e.episodeSignals(t, "u", "Lake Tahoe in January 2024", recall.DefaultEpisodeWeights)
	for _, id := range []string{"s01-001", "s03-005"} {
		if sig[id]["date"] != 1+recall.DefaultEpisodeWeights.Date {
			t.Errorf("%s is dated in January 2024 but has no date signal: %v", id, sig[id])
		}
	}
}

func TestRankEpisodes_Mentions(t *testing.T) {
	e := newEnv(t)
	turns := append([]turnSpec{}, chat...)
	// "kids" is in more turns than a mention may lead to.
	for range 30 {
		turns = append(turns, turnSpec{4, "Ann", "The kids were at school"})
	}
	e.conversation(t, "u", turns)
	w := recall.DefaultEpisodeWeights
	w.Prev, w.Answer, w.FollowUp, w.Next, w.Session = 0, 0, 0, 0, 0
	// The best turn for "holiday drive" mentions Lake Tahoe: the other
	// turn mentioning Lake Tahoe, in another session and with no word of
	// the question, is reached through it.
	sig, order := e.episodeSignals(t, "u", "drove with the kids", w)
	if rank(order, "s01-001") != 0 {
		t.Fatalf("best turn: %v", order)
	}
	if sig["s03-005"]["mentions"] <= 0 {
		t.Fatalf("the turn mentioning Lake Tahoe was not reached: %v", sig["s03-005"])
	}
	for id, s := range sig {
		if id >= "s04" && s["mentions"] > 0 {
			t.Fatalf("%s was reached through a mention shared by 30 turns: %v", id, s)
		}
	}
	w.Mention = 0
	if _, order := e.episodeSignals(t, "u", "drove with the kids", w); rank(order, "s03-005") >= 0 {
		t.Fatalf("with the mention graph off the turn was still found: %v", order)
	}
}

// An entity written later (by extraction or as facts) under a name or an
// alias an episode mentions is linked to that episode: a question naming
// the entity reaches the episode through the alias, with no word in common.
func TestRankEpisodes_MentionsOfLaterEntities(t *testing.T) {
	e := newEnv(t)
	e.conversation(t, "u", []turnSpec{
		{1, "Ann", "We swam in Big Blue all afternoon."},
		{2, "Bob", "Work was busy."},
	})
	w := recall.DefaultEpisodeWeights
	w.Prev, w.Answer, w.FollowUp, w.Next, w.Session = 0, 0, 0, 0, 0
	if _, order := e.episodeSignals(t, "u", "Lake Tahoe", w); rank(order, "s01-000") >= 0 {
		t.Fatalf("found before the entity exists: %v", order)
	}
	e.add(t, "u", memory.FactInput{Subject: "Lake Tahoe", SubjectType: "place", SubjectAliases: []string{"Big Blue"},
		Predicate: "located_in", Object: "Sierra Nevada", ObjectType: "place"})
	sig, order := e.episodeSignals(t, "u", "Lake Tahoe", w)
	if rank(order, "s01-000") < 0 || sig["s01-000"]["mentions"] <= 0 {
		t.Fatalf("the episode mentioning the entity's alias was not reached: %v %v", order, sig["s01-000"])
	}
}

// A turn that places something in time tells what happened: × (1 +
// TimeWords), whatever the question asks.
func TestRankEpisodes_TimeWords(t *testing.T) {
	e := newEnv(t)
	e.conversation(t, "u", []turnSpec{
		{1, "Bob", "We hiked around the lake near the old mill."},
		{2, "Bob", "We hiked around the lake near the old mill last week."},
	})
	const q = "what did Bob say about the hike around the lake" // not a "when" question
	sig, order := e.episodeSignals(t, "u", q, recall.EpisodeWeights{})
	if rank(order, "s01-000") != 0 || sig["s02-001"]["time_words"] != 0 {
		t.Fatalf("weights off: the shorter turn ranks first by BM25 and none has the time signal: %v %v", order, sig)
	}
	sig, order = e.episodeSignals(t, "u", q, recall.EpisodeWeights{TimeWords: 0.3})
	if rank(order, "s02-001") != 0 || sig["s02-001"]["time_words"] != 1.3 || sig["s01-000"]["time_words"] != 0 {
		t.Fatalf("TimeWords 0.3: the turn saying when ranks first and has the signal: %v %v", order, sig)
	}
}

// A turn that asks, and a short turn, are less often what a question is
// after: × (1 − Question) and × (1 − Length·(1 − words/30)).
func TestRankEpisodes_QuestionAndLength(t *testing.T) {
	e := newEnv(t)
	e.conversation(t, "u", []turnSpec{
		{1, "Ann", "Did you go to the pottery class?"},
		{1, "Bob", "Yes, pottery."},
		{1, "Ann", "My sister told me that the pottery class in town has moved to a bigger studio near the river, and that it now runs every weekday evening from six until nine for anyone who wants to join."},
	})
	near := func(got, want float64) bool { return got > want-1e-4 && got < want+1e-4 }
	sig, _ := e.episodeSignals(t, "u", "pottery", recall.EpisodeWeights{Question: 0.5})
	if !near(sig["s01-000"]["prior"], 0.5) || sig["s01-001"]["prior"] != 0 {
		t.Errorf("Question 0.5: the question %v, the reply %v", sig["s01-000"], sig["s01-001"])
	}
	// The reply has 2 words, the long turn more than 30.
	sig, _ = e.episodeSignals(t, "u", "pottery", recall.EpisodeWeights{Length: 0.5})
	if !near(sig["s01-001"]["prior"], 1-0.5*(1-2.0/30)) || sig["s01-002"]["prior"] != 0 {
		t.Errorf("Length 0.5: the short reply %v, the long turn %v", sig["s01-001"], sig["s01-002"])
	}
	// Off, no turn is weighed by its form.
	sig, _ = e.episodeSignals(t, "u", "pottery", recall.EpisodeWeights{})
	for id, s := range sig {
		if s["prior"] != 0 {
			t.Errorf("%s weighed with the prior off: %v", id, s)
		}
	}
}
