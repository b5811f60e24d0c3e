package recall

import (
	"math"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/search"
)

// TestSettle_NoWeightBreaksIt: whatever the weights, a version not valid
// at as_of ranks below the one that is, and the fact answering a question
// that names its entity and predicate ranks above the entity's card.
func TestSettle_NoWeightBreaksIt(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ended := now.AddDate(0, -2, 0)
	adversarial := map[string]func(*Weights){
		"defaults":           func(*Weights) {},
		"no history penalty": func(w *Weights) { w.Fact.History = 1; w.Fact.Recency = 5 },
		"no pair":            func(w *Weights) { w.Fact.Pair = 0; w.Fact.Subject = 1 },
		"huge entity link":   func(w *Weights) { w.Entity.Linked = 100 },
		"why decision":       func(w *Weights) { w.Fact.WhyDecision = 10 },
	}
	for name, change := range adversarial {
		t.Run(name, func(t *testing.T) {
			w := DefaultWeights()
			change(&w)
			old := &entity.Fact{ID: "old", SubjectID: "cart", Predicate: "port", ValidFrom: now.AddDate(-2, 0, 0), ValidTo: &ended, SupersededBy: "cur"}
			cur := &entity.Fact{ID: "cur", SubjectID: "cart", Predicate: "port", ValidFrom: ended, Supersedes: "old"}
			c := &candidates{p: params{asOf: now, history: true}, w: &w, linked: map[string]entity.MatchKind{"cart": entity.MatchExact},
				facts: map[string]*item{
					// The old version matches the question's words far better.
					"old": {typ: search.TypeFact, id: "old", fact: old, ff: factFeatures{BM25: 9, BM25Rank: 1, SubjectNamed: true,
						Predicate: 0.6, Dated: true, AgeDays: 700, WhyDecision: true}},
					"cur": {typ: search.TypeFact, id: "cur", fact: cur, ff: factFeatures{BM25: 1, BM25Rank: 2, SubjectNamed: true,
						Predicate: 0.6, Dated: true, AgeDays: 60, Valid: true}},
				},
				entities: map[string]*item{"cart": {typ: search.TypeEntity, id: "cart", entity: &entity.Entity{ID: "cart"},
					ef: entityFeatures{BM25: 5, BM25Rank: 1, Link: entity.MatchExact}}}}
			c.scoreFacts(1)
			c.scoreEntities(1)
			c.settle()
			if o, n := c.facts["old"].score, c.facts["cur"].score; o >= n {
				t.Errorf("superseded %.3f ≥ current %.3f", o, n)
			}
			if a, card := c.facts["cur"].score, c.entities["cart"].score; card >= a {
				t.Errorf("card %.3f ≥ answer %.3f", card, a)
			}
		})
	}
}

// TestScoreFact_Explanation: the explanation's value is the documented
// formula, it rebuilds from its leaves, each term and factor shows its
// contribution, and the inputs keep the names the API has always used.
func TestScoreFact_Explanation(t *testing.T) {
	w := DefaultWeights()
	f := factFeatures{BM25: 1.234567, BM25Rank: 3, Reach: reached(2, seedNamed), SubjectNamed: true, Predicate: 0.8,
		Local: 0.123456, VectorRank: 2, Vector: 0.87654, Confidence: 0.9, Importance: 7, Hits: 2, Dated: true, AgeDays: 90, Valid: true}
	x := scoreFact(&nodes{}, &w, 2, &f).finish()
	rel := (1.234567 + 2*0.25 + 2*2*(0.8+0.35*0.123456) + 2*0.5*21.0/22) * 1.2
	q := (0.5 + 0.5*0.9) * (0.8 + 0.04*7) * (1 + 0.1*1.0986122886681098) * recency(&w, &f) // ln 3 = ln(1 + hits)
	if d := x.Value - rel*q; d > 1e-9 || d < -1e-9 {
		t.Errorf("score %.6f, want %.6f", x.Value, rel*q)
	}
	if x.Rebuild() != x.Value {
		t.Errorf("rebuilt %v, score %v", x.Rebuild(), x.Value)
	}
	got := x.Signals()
	for k, v := range map[string]float64{"bm25": 1.2346, "bm25_rank": 3, "graph": 0.5, "graph_distance": 2, "fact.hop2": 0.25,
		"local_share": 0.1235, "predicate": 0.8, "pair": round(4 * (0.8 + 0.35*0.123456)), "similarity": 0.8765, "vector_rank": 2,
		"vector": round(2 * 0.5 * 21.0 / 22), "fact.subject": 1.2, "stated_importance": 7, "stated_confidence": 0.9, "hit_count": 2,
		"recency": round(1 + 0.25*0.7071067811865476)} {
		if got[k] != v {
			t.Errorf("signal %s = %v, want %v", k, got[k], v)
		}
	}
	// The subject's factor: the score less what it would be without it.
	for _, c := range x.Children {
		if c.Name == "fact.subject" && math.Abs(c.Effect-(x.Value-x.Value/1.2)) > 1e-9 {
			t.Errorf("effect of fact.subject %v, want %v", c.Effect, x.Value-x.Value/1.2)
		}
	}
}

// TestReach: a fact reached on several paths takes the best one's graph
// term and distance.
func TestReach(t *testing.T) {
	w := DefaultWeights()
	var r reach
	r.add(2, seedNamed) // 0.25
	r.add(1, seedHit)   // 0.6 × 0.5
	r.add(3, seedFuzzy) // counts as hop 2: 0.25 × 0.75
	if g, hop := graphOf(r, &w); g != 0.3 || hop != 1 {
		t.Errorf("graph %v at hop %d, want 0.3 at 1", g, hop)
	}
	if x := reach(0).graph(&nodes{}, &w); x != nil {
		t.Errorf("unreached: %+v", x)
	}
}

// graphOf is the graph term of a reach and the hop it was reached at.
func graphOf(r reach, w *Weights) (float64, int) {
	x := r.graph(&nodes{}, w)
	if x == nil {
		return 0, 0
	}
	return x.Value, int(x.Inputs.Get("graph_distance"))
}

// TestDiversify: the blocks of one subject after the first PerSubject
// are demoted, in order; other subjects' are not.
func TestDiversify(t *testing.T) {
	w := DefaultWeights().Context
	var bls []*block
	for i, s := range []string{"a", "a", "b", "a", "a", "b"} {
		bls = append(bls, factBlockOf(string(rune('0'+i)), s, 1))
	}
	diversify(bls, &w)
	for i, want := range []float64{1, 1, 1, 1, 0.5, 1} {
		if bls[i].priority != want {
			t.Errorf("block %d: %v, want %v", i, bls[i].priority, want)
		}
	}
}
