package recall

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/search"
	"github.com/graphmem/graphmem/vector"
)

// weightCase is the test of one weight: with the default weights, ranks
// says the first candidate is above the second; with the weight
// neutralised (set to what turns its effect off: 0 for a term, 1 for a
// factor), it is not.
type weightCase struct {
	weight  string // its JSON path in Weights
	neutral func(*Weights)
	// ranks reports the scores of the candidate the weight should lift
	// and of the one it should lift it above.
	ranks func(*Weights) (up, down float64)
}

// facts scores two facts on scale 1.
func facts(up, down factFeatures) func(*Weights) (float64, float64) {
	return func(w *Weights) (float64, float64) {
		var n nodes
		return scoreFact(&n, w, 1, &up).Value, scoreFact(&n, w, 1, &down).Value
	}
}

func entities(up, down entityFeatures) func(*Weights) (float64, float64) {
	return func(w *Weights) (float64, float64) {
		var n nodes
		return scoreEntity(&n, w, 1, &up).Value, scoreEntity(&n, w, 1, &down).Value
	}
}

func reached(hop int, s seed) reach {
	var r reach
	r.add(hop, s)
	return r
}

// weightCases: one per weight of Weights (TestWeights_EveryWeightTested).
func weightCases() []weightCase {
	cases := []weightCase{
		// A fact the walk reaches from a named entity outranks a weak
		// textual match.
		{"fact.graph", func(w *Weights) { w.Fact.Graph = 0 },
			facts(factFeatures{Reach: reached(1, seedNamed)}, factFeatures{BM25: 0.5, BM25Rank: 1})},
		{"fact.hop2", func(w *Weights) { w.Fact.Hop2 = 0 },
			facts(factFeatures{Reach: reached(2, seedNamed)}, factFeatures{BM25: 0.2, BM25Rank: 1})},
		// Reached from a fact hit's endpoint weighs less than from a named
		// entity, even with some words of the question.
		{"fact.from_hits", func(w *Weights) { w.Fact.FromHits = 1 },
			facts(factFeatures{Reach: reached(1, seedNamed)}, factFeatures{Reach: reached(1, seedHit), BM25: 0.2, BM25Rank: 1})},
		// The named entity's fact of the named predicate beats a better
		// textual match about the same entity.
		{"fact.pair", func(w *Weights) { w.Fact.Pair = 0 },
			facts(factFeatures{SubjectNamed: true, Predicate: 1}, factFeatures{SubjectNamed: true, BM25: 1.5, BM25Rank: 1})},
		// Asked about the subject side, a fact naming the entity as object
		// ranks below one naming it as subject.
		{"fact.object_side", func(w *Weights) { w.Fact.ObjectSide = 1 },
			facts(factFeatures{SubjectNamed: true, Predicate: 0.8}, factFeatures{ObjectNamed: true, Predicate: 1})},
		// The words that tell the entity's facts apart count.
		{"fact.local", func(w *Weights) { w.Fact.Local = 0 },
			facts(factFeatures{SubjectNamed: true, Predicate: 0.5, Local: 1}, factFeatures{SubjectNamed: true, Predicate: 0.7})},
		// With no named entity, the fact of the named predicate wins a
		// close textual match.
		{"fact.predicate_only", func(w *Weights) { w.Fact.PredicateOnly = 0 },
			facts(factFeatures{BM25: 1, BM25Rank: 2, Predicate: 1}, factFeatures{BM25: 1.2, BM25Rank: 1})},
		{"fact.subject", func(w *Weights) { w.Fact.Subject = 1 },
			facts(factFeatures{BM25: 1, BM25Rank: 2, SubjectNamed: true}, factFeatures{BM25: 1.1, BM25Rank: 1})},
		{"fact.object", func(w *Weights) { w.Fact.Object = 1 },
			facts(factFeatures{BM25: 1, BM25Rank: 2, ObjectNamed: true}, factFeatures{BM25: 1.05, BM25Rank: 1})},
		{"fact.confidence", func(w *Weights) { w.Fact.Confidence = 0 },
			facts(factFeatures{BM25: 1, BM25Rank: 2, Confidence: 1}, factFeatures{BM25: 1.1, BM25Rank: 1, Confidence: 0.5})},
		// A fact that states no confidence is taken to be fairly sure of,
		// above one that states a low confidence.
		{"fact.unstated_confidence", func(w *Weights) { w.Fact.UnstatedConfidence = 0.5 },
			facts(factFeatures{BM25: 1.05, BM25Rank: 2}, factFeatures{BM25: 1.1, BM25Rank: 1, Confidence: 0.5})},
		// A fact that states no importance weighs as one of importance
		// 5, above a slightly better match of importance 3.
		{"fact.unstated_importance", func(w *Weights) { w.Fact.UnstatedImportance = 1 },
			facts(factFeatures{BM25: 1, BM25Rank: 2}, factFeatures{BM25: 1.05, BM25Rank: 1, Importance: 3})},
		{"fact.importance", func(w *Weights) { w.Fact.Importance = 0 },
			facts(factFeatures{BM25: 1, BM25Rank: 2, Importance: 10}, factFeatures{BM25: 1.1, BM25Rank: 1, Importance: 5})},
		{"fact.hits", func(w *Weights) { w.Fact.Hits = 0 },
			facts(factFeatures{BM25: 1, BM25Rank: 2, Hits: 100}, factFeatures{BM25: 1.2, BM25Rank: 1})},
		{"fact.recency", func(w *Weights) { w.Fact.Recency = 0 },
			facts(factFeatures{BM25: 1, BM25Rank: 2, Dated: true}, factFeatures{BM25: 1.1, BM25Rank: 1, Dated: true, AgeDays: 5000})},
		// A fact half a year old still has half the recency boost; with a
		// half-life of a day it has none.
		{"fact.recency_half_life_days", func(w *Weights) { w.Fact.RecencyHalfLife = 1 },
			facts(factFeatures{BM25: 1, BM25Rank: 2, Dated: true, AgeDays: 180}, factFeatures{BM25: 1.1, BM25Rank: 1})},
		// History mode: the version valid at as_of beats a better-matching
		// version that is not.
		{"fact.history", func(w *Weights) { w.Fact.History = 1 },
			facts(factFeatures{BM25: 1, BM25Rank: 2, Valid: true}, factFeatures{BM25: 1.1, BM25Rank: 1})},
		{"fact.why_decision", func(w *Weights) { w.Fact.WhyDecision = 1 },
			facts(factFeatures{BM25: 1, BM25Rank: 2, Valid: true, WhyDecision: true}, factFeatures{BM25: 1.2, BM25Rank: 1, Valid: true})},

		{"entity.linked", func(w *Weights) { w.Entity.Linked = 0 },
			entities(entityFeatures{Link: entity.MatchExact}, entityFeatures{BM25: 0.5, BM25Rank: 1})},
		// An exact name beats a name with a typing error and a few words.
		{"entity.fuzzy", func(w *Weights) { w.Entity.Fuzzy = 1 },
			entities(entityFeatures{Link: entity.MatchExact}, entityFeatures{Link: entity.MatchFuzzy, BM25: 0.1, BM25Rank: 1})},

		// "Who is Sam's manager": the predicate the lexicon names
		// ("manager" → reports_to) above one whose description holds a
		// word of the question.
		{"predicate.name", func(w *Weights) { w.Predicate.Name = 0 }, predicates("who is the manager of the team", "reports_to", "owned_by")},
		// A predicate a word of its description names, above one nothing
		// names.
		{"predicate.description", func(w *Weights) { w.Predicate.Description = 0 }, predicates("which club", "plays_for", "reports_to")},
		// Two predicates named fully: the one that explains more of the
		// question's words.
		{"predicate.explained", func(w *Weights) { w.Predicate.Explained = 0 }, predicates("memory limit", "memory_limit", "limit")},
		// With embeddings, the predicate nearest in meaning above one a
		// description word names.
		{"predicate.near", func(w *Weights) { w.Predicate.Near = 0 }, func(w *Weights) (float64, float64) {
			q := newQuestion(lexiconOf(defaultOntology()), &w.Predicate, "which club", nil)
			q.near = map[string]float64{"reports_to": 1}
			return q.match("reports_to"), q.match("plays_for")
		}},
		// A predicate just below the nearest one in meaning still counts,
		// above one far below.
		{"predicate.near_margin", func(w *Weights) { w.Predicate.NearMargin = 0 }, func(w *Weights) (float64, float64) {
			near := nearOf([]vector.Hit{{ID: "owned_by", Similarity: 0.9}, {ID: "reports_to", Similarity: 0.89}, {ID: "port", Similarity: 0.8}},
				map[string]bool{"owned_by": true, "reports_to": true, "port": true}, w.Predicate.NearMargin)
			return near["reports_to"], near["port"]
		}},
		// The fact answering a question that names its entity and
		// predicate ranks above the entity's card.
		{"predicate.answer", func(w *Weights) { w.Predicate.Answer = 1 }, settleCase},

		// The fourth block about one subject ranks below another
		// subject's slightly weaker first block.
		{"context.per_subject", func(w *Weights) { w.Context.PerSubject = 100 }, diversifyCase},
		{"context.demote", func(w *Weights) { w.Context.Demote = 1 }, diversifyCase},
		// A fact block ranks above the card of an entity scored higher.
		{"context.entity_card", func(w *Weights) { w.Context.EntityCard = 1 }, entityCardCase},
		// A fact gets into the block before the third pinned rule.
		{"context.pinned_share", func(w *Weights) { w.Context.PinnedShare = 1 }, pinnedCase},

		// A block covering half of the question is left out.
		{"floor.share", func(w *Weights) { w.Floor.Share = 0 }, floorCase},

		// The nearest fact in meaning beats a weak textual match.
		{"vector.fact", func(w *Weights) { w.Vector.Fact = 0 },
			facts(factFeatures{VectorRank: 1}, factFeatures{BM25: 0.4, BM25Rank: 1})},
		{"vector.entity", func(w *Weights) { w.Vector.Entity = 0 },
			entities(entityFeatures{VectorRank: 1}, entityFeatures{BM25: 0.2, BM25Rank: 1})},
		// The fifth of the vector list still counts: k flattens the ranks.
		{"vector.k", func(w *Weights) { w.Vector.K = 1 },
			facts(factFeatures{VectorRank: 5}, factFeatures{BM25: 0.3, BM25Rank: 1})},

		// The episode list reaches a second topic before a near copy of
		// the first.
		{"vector.mmr_lambda", func(w *Weights) { w.Vector.MMR = 1 }, func(w *Weights) (float64, float64) {
			list := []vector.Hit{{ID: "pottery", Similarity: 0.9}, {ID: "pottery again", Similarity: 0.89}, {ID: "camping", Similarity: 0.8}}
			same := func(ids []string) [][]float64 {
				return [][]float64{{1, 1, 0}, {1, 1, 0}, {0, 0, 1}}
			}
			order := marginal(list, same, 3, w.Vector.MMR)
			return -float64(slices.Index(order, "camping")), -float64(slices.Index(order, "pottery again"))
		}},
		// A turn that tells, above a question about the same words; a
		// long turn above a short one.
		{"episode.question", func(w *Weights) { w.Episode.Question = 0 }, priors(turnFeatures{bm25: 1, words: 40},
			turnFeatures{bm25: 1.1, words: 40, question: true})},
		{"episode.length", func(w *Weights) { w.Episode.Length = 0 }, priors(turnFeatures{bm25: 1, words: 40},
			turnFeatures{bm25: 1.2, words: 6})},
		// Between roles, what the user told above the assistant's answer
		// that repeats its words.
		{"episode.assistant", func(w *Weights) { w.Episode.Assistant = 0 }, priors(turnFeatures{bm25: 1, words: 40},
			turnFeatures{bm25: 1.3, words: 120, assistant: true})},
		// In chat, the speaker's turn after another's question about what
		// they told above a weak match of the question's words elsewhere.
		{"episode.follow_up", func(w *Weights) { w.Episode.FollowUp = 0 }, func(w *Weights) (float64, float64) {
			f := followUpTurns()
			f.shape = conversationShape{chat: true}
			got := scoreEpisodes(w.Episode, &w.Limits, f)
			return got["on"].score, got["weak"].score
		}},
	}
	cases = append(cases, pathCases()...)
	return append(cases, limitCases()...)
}

// pathCases: one per weight of PathWeights, on the hops of the catalog
// question "who leads the team that owns cart-api?" (and others).
func pathCases() []weightCase {
	return []weightCase{
		// A value the question barely names (a match of 0.2 for "run")
		// does not end a path: the anchor alone ranks above it.
		{"path.named", func(w *Weights) { w.Path.Named = 0 }, func(w *Weights) (float64, float64) {
			return 0, hop(w, "which version of the database that cart-api uses do we run?", "port", false, true)
		}},
		// A hop a kind word hints at ("the on-call engineer" of runs_on,
		// which reaches a person) adds to its path.
		{"path.hinted", func(w *Weights) { w.Path.Hinted = 0 }, func(w *Weights) (float64, float64) {
			return hop(w, "who is the on-call engineer of cart-api", "runs_on", false, false), 0
		}},
		// Of two paths named alike, the one without an unnamed hop.
		{"path.unnamed", func(w *Weights) { w.Path.Unnamed = 0 }, func(w *Weights) (float64, float64) {
			half := (&partial{}).extend(entity.Fact{}, false, "a", nil, 0.5, w.Path.HopCost).extend(entity.Fact{}, false, "b", nil, 0.5, w.Path.HopCost)
			q := "who leads the team that owns cart-api?"
			return half.score, hop(w, q, "owns", false, false) + hop(w, q, "on_call", false, false)
		}},
		// A hop along a fact's direction above one against it.
		{"path.inverse", func(w *Weights) { w.Path.Inverse = 1 }, func(w *Weights) (float64, float64) {
			q := "who leads the team that owns cart-api?"
			return hop(w, q, "owned_by", false, false), hop(w, q, "owned_by", true, false)
		}},
		// A longer path must explain more: one hop fully named above two
		// hops named half.
		{"path.hop_cost", func(w *Weights) { w.Path.HopCost = 0 }, func(w *Weights) (float64, float64) {
			one := (&partial{}).extend(entity.Fact{}, false, "a", nil, 1, w.Path.HopCost)
			two := (&partial{}).extend(entity.Fact{}, false, "a", nil, 0.5, w.Path.HopCost).extend(entity.Fact{}, false, "b", nil, 0.5, w.Path.HopCost)
			return one.score, two.score
		}},
		// Of two paths scored alike, the one whose first hop uses the word
		// written closest to the anchor.
		{"path.near_bonus", func(w *Weights) { w.Path.NearBonus = 0 }, func(w *Weights) (float64, float64) {
			f := entity.Fact{ID: "f", SubjectID: "e1", ObjectID: "x"}
			near := &partial{facts: []entity.Fact{f}, inverse: []bool{false}, first: []string{"own"}, score: 0.9}
			far := &partial{facts: []entity.Fact{f}, inverse: []bool{false}, first: []string{"lead"}, score: 0.9}
			pl := &plan{nearest: map[string]string{"e1": "own"}, w: &w.Path}
			pl.choose([]*partial{near, far})
			return near.score, far.score
		}},
	}
}

// hop is the score of the one-hop path from cart-api over a fact of pred
// (against its direction when inverse; to a value when value), the
// question q asking; -1 when the hop does not fit the question.
func hop(w *Weights, q, pred string, inverse, value bool) float64 {
	asOf := time.Date(2025, 3, 31, 0, 0, 0, 0, time.UTC)
	pl := makePlan(analyze(q, asOf), lexiconOf(defaultOntology()), defaultOntology(), []entity.Entity{{ID: "e1", Name: "cart-api"}}, asOf, &w.Path)
	left := map[string]int{}
	for _, x := range pl.words {
		left[x]++
	}
	f := entity.Fact{ID: "f", SubjectID: "e1", Predicate: pred, ObjectID: "x", ValidFrom: asOf.AddDate(-1, 0, 0)}
	switch {
	case value:
		f.ObjectID, f.Value = "", "8080"
	case inverse:
		f.SubjectID, f.ObjectID = "x", "e1"
	}
	np := pl.step(&partial{at: "e1", left: left}, f, &params{asOf: asOf, now: asOf}, 0)
	if np == nil {
		return -1
	}
	return np.score
}

// limitCases: one per field of Limits.
func limitCases() []weightCase {
	return []weightCase{
		// A version no longer valid ranks below the one valid at as_of.
		{"limits.below", func(w *Weights) { w.Limits.Below = 1 }, func(w *Weights) (float64, float64) {
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			end := now.AddDate(0, -1, 0)
			old := &entity.Fact{ID: "old", SubjectID: "s", Predicate: "port", ValidFrom: now.AddDate(-1, 0, 0), ValidTo: &end, SupersededBy: "cur"}
			cur := &entity.Fact{ID: "cur", SubjectID: "s", Predicate: "port", ValidFrom: end, Supersedes: "old"}
			c := &candidates{p: params{asOf: now, types: []string{search.TypeFact}}, w: w, facts: map[string]*item{
				"old": {typ: search.TypeFact, id: "old", fact: old, score: 2}, "cur": {typ: search.TypeFact, id: "cur", fact: cur, score: 1}}}
			c.settle()
			return c.facts["cur"].score, c.facts["old"].score
		}},
		// A known name near an unknown one in spelling is offered in its
		// place; one far from it is not.
		{"limits.near_similarity", func(w *Weights) { w.Limits.NearSimilarity = 0 }, func(w *Weights) (float64, float64) {
			en := func(name string) *item {
				return &item{typ: search.TypeEntity, id: name, entity: &entity.Entity{ID: name, Name: name}, hit: search.Hit{Score: 1}}
			}
			c := &candidates{w: w, entities: map[string]*item{"paymants": en("paymants"), "shipping": en("shipping")},
				unknown: []unknownName{{mention: mention{text: "payments", key: "payments"}}}}
			c.suggest()
			offered := func(name string) float64 {
				if slices.Contains(c.unresolved[0].Candidates, name) {
					return 1
				}
				return 0
			}
			return offered("paymants"), offered("shipping")
		}},
		// A forget query selects the facts matching it about as well as
		// the best, not a weaker match.
		{"limits.forget_score_ratio", func(w *Weights) { w.Limits.ForgetScoreRatio = 0 }, func(w *Weights) (float64, float64) {
			kept := closeToBest([]search.Hit{{ID: "best", Score: 2}, {ID: "weak", Score: 0.9}}, w.Limits.ForgetScoreRatio)
			return 1, float64(len(kept) - 1)
		}},
		// The value that replaced an ended one three weeks later is its
		// successor.
		{"limits.successor_slack_days", func(w *Weights) { w.Limits.SuccessorSlackDays = 0 }, func(w *Weights) (float64, float64) {
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			end := now.AddDate(0, -6, 0)
			head := entity.Fact{ID: "mongo", SubjectID: "s", Predicate: "uses", ObjectID: "mongo", ValidFrom: now.AddDate(-2, 0, 0), ValidTo: &end}
			next := entity.Fact{ID: "pg", SubjectID: "s", Predicate: "uses", ObjectID: "pg", ValidFrom: end.AddDate(0, 0, 21)}
			c := &candidates{p: params{asOf: now, now: now}, w: w, facts: map[string]*item{"pg": {typ: search.TypeFact, id: "pg", fact: &next}}}
			b := &builder{c: c, p: &c.p, history: true}
			if _, ok := b.successor(head, nil); ok {
				return 1, 0
			}
			return 0, 1
		}},
		// A turn five days after the month the question names counts as
		// in it, above a better match from another time.
		{"limits.date_slack_days", func(w *Weights) { w.Limits.DateSlackDays = 0 }, func(w *Weights) (float64, float64) {
			march := period{from: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), to: time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC)}
			up := 1.0
			if march.contains(march.to.AddDate(0, 0, 5), days(w.Limits.DateSlackDays)) {
				up *= 1 + w.Episode.Date
			}
			return up, 1.5
		}},
		// A turn of 20 words is short: a better match of 20 words ranks
		// below a turn of 40.
		{"limits.turn_words", func(w *Weights) { w.Limits.TurnWords = 1 }, priors(turnFeatures{bm25: 1, words: 40},
			turnFeatures{bm25: 1.05, words: 20})},
		// Turns of 35 words on average are a chat: the follow-up after
		// another's question ranks above a weak match.
		{"limits.chat_words", func(w *Weights) { w.Limits.ChatWords = 30 }, func(w *Weights) (float64, float64) {
			f := followUpTurns()
			f.shape = shapeOf(map[string]search.Hit{"told": {Words: 35}, "ask": {Words: 35}}, w.Limits.ChatWords)
			got := scoreEpisodes(w.Episode, &w.Limits, f)
			return got["on"].score, got["weak"].score
		}},
		// A session of three fair turns above one of a single good turn:
		// a session's score is the mean of its three best.
		{"limits.session_top", func(w *Weights) { w.Limits.SessionTop = 1 }, func(w *Weights) (float64, float64) {
			f := &episodeFeatures{turns: map[string]*turnFeatures{
				"x": {}, "a": {bm25: 1, hit: true}, "b": {bm25: 1, hit: true}, "c": {bm25: 1, hit: true},
				"y": {}, "d": {bm25: 2.5, hit: true},
			}, others: [][]string{{"x", "a", "b", "c"}, {"y", "d"}}, shape: conversationShape{chat: true}}
			got := scoreEpisodes(w.Episode, &w.Limits, f)
			return got["x"].score, got["y"].score
		}},
	}
}

// predicates ranks two predicates by how well a question names them.
func predicates(text, up, down string) func(*Weights) (float64, float64) {
	return func(w *Weights) (float64, float64) {
		q := newQuestion(lexiconOf(defaultOntology()), &w.Predicate, text, nil)
		return q.match(up), q.match(down)
	}
}

func priors(up, down turnFeatures) func(*Weights) (float64, float64) {
	return func(w *Weights) (float64, float64) {
		var n nodes
		return up.bm25 * w.Episode.prior(&n, &up, true, w.Limits.TurnWords).Value, down.bm25 * w.Episode.prior(&n, &down, true, w.Limits.TurnWords).Value
	}
}

// followUpTurns: a speaker's turn, another's question about it, and the
// speaker going on; and a weak match of the question's words elsewhere.
func followUpTurns() *episodeFeatures {
	return &episodeFeatures{
		turns: map[string]*turnFeatures{
			"told": {bm25: 2, hit: true, words: 40, by: "ann"},
			"ask":  {words: 30, question: true, by: "bob"},
			"on":   {words: 30, by: "ann"},
			"weak": {bm25: 0.6, hit: true, words: 40, by: "ann"},
		},
		sessions: [][]string{{"told", "ask", "on"}},
	}
}

// settleCase: "who is Sam's manager", Sam's card scored above the
// reports_to fact of a match of 0.6; settle puts the fact first.
func settleCase(w *Weights) (float64, float64) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := &entity.Fact{ID: "f", SubjectID: "sam", Predicate: "reports_to", ValidFrom: now.AddDate(-1, 0, 0)}
	c := &candidates{p: params{asOf: now}, w: w, linked: map[string]entity.MatchKind{"sam": entity.MatchExact},
		facts: map[string]*item{"f": {typ: search.TypeFact, id: "f", fact: f, score: 1,
			ff: factFeatures{SubjectNamed: true, Predicate: 0.6, Valid: true}}},
		entities: map[string]*item{"sam": {typ: search.TypeEntity, id: "sam", entity: &entity.Entity{ID: "sam"}, score: 2}}}
	c.settle()
	return c.facts["f"].score, c.entities["sam"].score
}

// diversifyCase: four blocks about one subject, then another subject's
// block scored just below the fourth.
func diversifyCase(w *Weights) (float64, float64) {
	var bls []*block
	for i, p := range []float64{10, 9, 8, 7} {
		bls = append(bls, factBlockOf("a"+string(rune('0'+i)), "svc", p))
	}
	other := factBlockOf("b", "db", 6.5)
	diversify(append(bls, other), &w.Context)
	return other.priority, bls[3].priority
}

func factBlockOf(id, subject string, priority float64) *block {
	return &block{priority: priority, facts: []ContextFact{{Fact: entity.Fact{ID: id, SubjectID: subject}}},
		lines: []line{{Kind: "fact", ID: id, Text: subject + " fact " + id}}}
}

// entityCardCase: a fact block of score 1.5 and the card of an entity of
// score 2.
func entityCardCase(w *Weights) (float64, float64) {
	b := &builder{c: &candidates{w: w}}
	en := &entity.Entity{ID: "sam", Name: "Sam", Summary: "Sam works on payments"}
	b.entityBlocks([]*item{{typ: search.TypeEntity, id: "sam", entity: en, score: 2}})
	return 1.5, b.blocks[0].priority
}

// pinnedCase packs three pinned rules and a fact into a small budget: 1
// when the fact gets in before the third rule, else 0.
func pinnedCase(w *Weights) (float64, float64) {
	rule := func(id string) *block {
		return &block{pinned: true, lines: []line{{Kind: "constraint", ID: id, Text: strings.Repeat("never deploy on fridays ", 4)}}}
	}
	fact := factBlockOf("f", "svc", 1)
	fact.lines[0].Text = strings.Repeat("payments uses postgres ", 4)
	blocks := []*block{rule("r1"), rule("r2"), rule("r3"), fact}
	per := blockTokens(fact.lines, FormatText)
	chosen, _ := pack(blocks, 3*per+per/2, 0, FormatText, w.Context.PinnedShare)
	if slices.Contains(chosen, fact) && !slices.Contains(chosen, blocks[2]) {
		return 1, 0
	}
	return 0, 1
}

// floorCase: the share of the keep of a piece covering the question
// (2 concepts) over one covering half of it.
func floorCase(w *Weights) (float64, float64) {
	tp := &topic{entities: map[string][]string{}, strong: map[string]bool{}, terms: search.Analyze("deploy region")}
	keep := tp.keepPieces([]piece{
		{touches: []string{"svc"}, text: "payments deploy region eu-west"},
		{touches: []string{"db"}, text: "orders deploy friday"},
	}, w.Floor.Share)
	b := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	return b(keep[0]), b(keep[1])
}

// TestWeights_MoveRankings: each weight lifts its candidate above the
// other with the default weights and no longer does when neutralised.
func TestWeights_MoveRankings(t *testing.T) {
	for _, tc := range weightCases() {
		t.Run(tc.weight, func(t *testing.T) {
			w := DefaultWeights()
			if up, down := tc.ranks(&w); up <= down {
				t.Errorf("%s %v: %.4f is not above %.4f", tc.weight, weightValue(&w, tc.weight), up, down)
			}
			tc.neutral(&w)
			if up, down := tc.ranks(&w); up > down {
				t.Errorf("%s neutralised (%v): %.4f still above %.4f — the test does not depend on the weight", tc.weight,
					weightValue(&w, tc.weight), up, down)
			}
		})
	}
}

// weightValue is the weight at a JSON path of w.
func weightValue(w *Weights, path string) any {
	v := reflect.ValueOf(w).Elem()
	for _, name := range strings.Split(path, ".") {
		found := false
		for i := range v.NumField() {
			if tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ","); tag == name {
				v, found = v.Field(i), true
				break
			}
		}
		if !found {
			return nil
		}
	}
	return v.Interface()
}

// weightPaths lists the JSON paths of every weight of Weights.
func weightPaths(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Type.Kind() == reflect.Struct {
			out = append(out, weightPaths(f.Type, prefix+name+".")...)
			continue
		}
		out = append(out, prefix+name)
	}
	return out
}

// withStore are the weights of rankEpisodes and the episode vector list,
// whose cases need a store and an index: TestRankEpisodes_* (episodes_test.go)
// and TestSearch_VectorEpisodesOnBM25Scale (vectors_test.go) rank turns
// with and without each, and graphmem eval locomo's ablation turns them
// off in groups.
var withStore = []string{"vector.episode", "vector.episode_join", "episode.time_words", "episode.prev", "episode.next",
	"episode.session", "episode.speaker", "episode.date", "episode.mention", "episode.answer"}

// TestWeights_EveryWeightTested: every weight of Weights has its case
// (or a test with a store, withStore).
func TestWeights_EveryWeightTested(t *testing.T) {
	tested := map[string]bool{}
	for _, tc := range weightCases() {
		if weightValue(&defaultWeights, tc.weight) == nil {
			t.Errorf("case %s: no such weight", tc.weight)
		}
		tested[tc.weight] = true
	}
	for _, p := range weightPaths(reflect.TypeOf(Weights{}), "") {
		if !tested[p] && !slices.Contains(withStore, p) {
			t.Errorf("weight %s has no test", p)
		}
	}
}

func TestLoadWeights(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "w.json")
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("OK", func(t *testing.T) {
		w, err := LoadWeights(write(`{"fact": {"pair": 1.5}, "floor": {"share": 0.5}}`))
		if err != nil {
			t.Fatal(err)
		}
		want := DefaultWeights()
		want.Fact.Pair, want.Floor.Share = 1.5, 0.5
		if !reflect.DeepEqual(w, want) {
			t.Errorf("got %+v", w)
		}
	})
	t.Run("ErrUnknownField", func(t *testing.T) {
		if _, err := LoadWeights(write(`{"fact": {"pairs": 1}}`)); entity.ErrorCode(err) != entity.EINVALID ||
			!strings.Contains(err.Error(), "pairs") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("ErrRange", func(t *testing.T) {
		if _, err := LoadWeights(write(`{"floor": {"share": 1.5}}`)); entity.ErrorCode(err) != entity.EINVALID ||
			!strings.Contains(err.Error(), "floor.share") {
			t.Errorf("err %v", err)
		}
	})
	// The file is checked whole: what an answer could not encode, what
	// follows the object, episode weights as well as the others.
	for name, tc := range map[string]struct{ body, field string }{
		"ErrHuge":            {`{"fact": {"pair": 1e308}}`, "fact.pair"},
		"ErrNotANumber":      {`{"fact": {"pair": 1e309}}`, "fact.pair"},
		"ErrWrongType":       {`{"episode": {"prev": "0.2"}}`, "episode.prev"},
		"ErrEpisodeNegative": {`{"episode": {"prev": -0.5}}`, "episode.prev"},
		"ErrEpisodeHuge":     {`{"episode": {"speaker": 1e300}}`, "episode.speaker"},
		"ErrVectorK":         {`{"vector": {"k": 1e308}}`, "vector.k"},
		"ErrHalfLife":        {`{"fact": {"recency_half_life_days": 1e308}}`, "fact.recency_half_life_days"},
		"ErrLimitsBelow":     {`{"limits": {"below": 0}}`, "limits.below"},
		"ErrLimitsDays":      {`{"limits": {"date_slack_days": 1e6}}`, "limits.date_slack_days"},
		"ErrLimitsTop":       {`{"limits": {"session_top": 0}}`, "limits.session_top"},
		"ErrLimitsHuge":      {`{"limits": {"chat_words": 1e309}}`, "limits.chat_words"},
		"ErrPathNegative":    {`{"path": {"unnamed": -0.05}}`, "path.unnamed"},
		"ErrImportance":      {`{"fact": {"unstated_importance": 11}}`, "fact.unstated_importance"},
		"ErrImportanceBoth":  {`{"fact": {"unstated_importance": 10, "importance": 0.15}}`, "fact.importance"},
		"ErrTrailing":        {`{"fact": {"pair": 1}} garbage`, "after the JSON object"},
		"ErrSecondObject":    {`{} {"fact": {"pair": 1e308}}`, "after the JSON object"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := LoadWeights(write(tc.body)); entity.ErrorCode(err) != entity.EINVALID || !strings.Contains(err.Error(), tc.field) {
				t.Errorf("%s: err %v, want EINVALID naming %s", tc.body, err, tc.field)
			}
		})
	}
	if _, err := LoadWeights(write(`{"fact": {"pair": 1}}` + "\n\t ")); err != nil {
		t.Errorf("trailing white space: %v", err)
	}
	if err := defaultWeights.Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// setWeight sets the number at a JSON path of w.
func setWeight(w *Weights, path string, x float64) {
	v := reflect.ValueOf(w).Elem()
	for _, name := range strings.Split(path, ".") {
		for i := range v.NumField() {
			if tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ","); tag == name {
				v = v.Field(i)
				break
			}
		}
	}
	switch v.Kind() {
	case reflect.Float64:
		v.SetFloat(x)
	case reflect.Int:
		v.SetInt(int64(x))
	}
}

// TestWeights_EveryWeightChecked: each number of Weights, episode weights
// included, is refused by name when negative, not a number, infinite or
// too large to keep a score finite.
func TestWeights_EveryWeightChecked(t *testing.T) {
	for _, p := range weightPaths(reflect.TypeOf(Weights{}), "") {
		kind := reflect.TypeOf(weightValue(&defaultWeights, p)).Kind()
		if kind == reflect.Bool {
			continue
		}
		bad := []float64{-1, 1e308}
		if kind == reflect.Float64 {
			bad = append(bad, math.NaN(), math.Inf(1))
		} else {
			bad = bad[:1] // an int multiplies no score
		}
		for _, x := range bad {
			w := DefaultWeights()
			setWeight(&w, p, x)
			var e *entity.Error
			if err := w.Validate(); !errors.As(err, &e) || e.Fields[p] == "" {
				t.Errorf("%s = %v: %v, want an error naming it", p, x, err)
			}
		}
	}
}
