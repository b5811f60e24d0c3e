package recall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"time"

	"github.com/graphmem/graphmem/entity"
)

// Weights hold every constant that changes recall's ranking: the weights
// of facts, entities, predicate linking, packing, the relevance floor,
// the vector list, episodes and the walk's paths, and the thresholds that
// are not weights (Limits). The defaults (DefaultWeights) were chosen on
// the dev parts of the evaluations (package eval); a file of the same
// JSON shape replaces any of them (LoadWeights, GRAPHMEM_RECALL_WEIGHTS).
// What only bounds the work — how many candidates are read, how far the
// walk goes — stays a constant beside the code it bounds.
//
// Each weight has a test that moves a ranking the way its comment says and
// fails when the weight is neutralised (weights_test.go).
type Weights struct {
	Fact      FactWeights      `json:"fact"`
	Entity    EntityWeights    `json:"entity"`
	Predicate PredicateWeights `json:"predicate"`
	Context   ContextWeights   `json:"context"`
	Floor     FloorWeights     `json:"floor"`
	Vector    VectorWeights    `json:"vector"`
	Episode   EpisodeWeights   `json:"episode"`
	Path      PathWeights      `json:"path"`
	Limits    Limits           `json:"limits"`
}

// FactWeights weigh a fact (see the package documentation's Ranking):
//
//	(bm25 + S·graph + S·Pair·pair + S·vec) · link · quality
type FactWeights struct {
	// Graph is the graph term of a fact touching an entity the query
	// names; Hop2 of a fact one entity further; FromHits scales both when
	// the walk started from the endpoint of a fact hit rather than from a
	// named entity.
	Graph    float64 `json:"graph"`
	Hop2     float64 `json:"hop2"`
	FromHits float64 `json:"from_hits"`
	// Pair is what a fact of an entity the query names, whose predicate
	// the question names, is worth in units of the best BM25 score: the
	// strongest signal, above graph proximity.
	Pair float64 `json:"pair"`
	// ObjectSide weighs the pair term of a fact naming the entity as its
	// object, unless the question names it after the predicate ("who
	// reports to Hiro" reads Hiro's reports).
	ObjectSide float64 `json:"object_side"`
	// Local: the question's words that tell the entity's facts apart,
	// in units of a linked predicate.
	Local float64 `json:"local"`
	// PredicateOnly scales the BM25 score of a fact whose predicate the
	// question names but whose entities it does not: × (1 + PredicateOnly·match).
	PredicateOnly float64 `json:"predicate_only"`
	// Subject and Object multiply the relevance of a fact whose subject
	// (else object) the query names.
	Subject float64 `json:"subject"`
	Object  float64 `json:"object"`
	// Confidence: × (1 − Confidence + Confidence·confidence);
	// UnstatedConfidence is the confidence of a fact that states none.
	Confidence         float64 `json:"confidence"`
	UnstatedConfidence float64 `json:"unstated_confidence"`
	// Importance: × (1 + Importance·(importance − UnstatedImportance)),
	// UnstatedImportance being the importance of a fact that states none
	// (so that such a fact is weighed × 1).
	Importance         float64 `json:"importance"`
	UnstatedImportance float64 `json:"unstated_importance"`
	// Hits: × (1 + Hits·ln(1 + hits)), hits being how often recall
	// returned the fact.
	Hits float64 `json:"hits"`
	// Recency: × (1 + Recency·2^(−age/RecencyHalfLife days)), age from
	// valid_from to as_of.
	Recency         float64 `json:"recency"`
	RecencyHalfLife float64 `json:"recency_half_life_days"`
	// History multiplies a version not valid at as_of (history mode).
	History float64 `json:"history"`
	// WhyDecision multiplies a decision on a why question, whether or not
	// it still holds: the one reversed later explains the change it made.
	WhyDecision float64 `json:"why_decision"`
}

// EntityWeights weigh an entity: bm25 + S·Linked·link + S·vec.
type EntityWeights struct {
	// Linked is an entity the query names, in units of the best BM25
	// score.
	Linked float64 `json:"linked"`
	// Fuzzy is the link of an entity named with a typing error (an exact
	// or alias name links 1); it also scales the graph term of the facts
	// the walk reaches from it.
	Fuzzy float64 `json:"fuzzy"`
}

// PredicateWeights weigh predicate linking (predicates.go).
type PredicateWeights struct {
	// Name is the weight of a phrase naming a predicate by its name,
	// synonyms or property words; Description of a content word of its
	// description.
	Name        float64 `json:"name"`
	Description float64 `json:"description"`
	// Explained: of two predicates named equally well, the one whose
	// phrases hold more of the question's words wins — a match
	// × (1 − Explained + Explained·share).
	Explained float64 `json:"explained"`
	// Answer is the match a fact needs to be taken as the answer to the
	// question, ranked above its entity's card (settle).
	Answer float64 `json:"answer"`
	// Near is the match of the predicate nearest to the question in
	// meaning, among those of the linked entities' facts (embeddings);
	// another predicate counts linearly less down to NearMargin below the
	// nearest one's similarity, and nothing beyond.
	Near       float64 `json:"near"`
	NearMargin float64 `json:"near_margin"`
}

// ContextWeights weigh the packing of a context block.
type ContextWeights struct {
	// PerSubject fact blocks of one subject keep their score; the next
	// ones are multiplied by Demote, so that no ten facts about one
	// entity fill the block.
	PerSubject int     `json:"per_subject"`
	Demote     float64 `json:"demote"`
	// EntityCard multiplies the score of an entity to give its card's
	// priority: a card summarises, its facts answer.
	EntityCard float64 `json:"entity_card"`
	// PinnedShare is the share of the budget the pinned constraints and
	// preferences after the first may take.
	PinnedShare float64 `json:"pinned_share"`
}

// FloorWeights weigh the relevance floor (floor.go).
type FloorWeights struct {
	// Share is the share of the best block's coverage a block needs.
	Share float64 `json:"share"`
}

// PathWeights weigh the paths of the walk (path.go), in units of a
// predicate's match (at most 1).
type PathWeights struct {
	// Named is the match a hop's predicate needs for the hop to be named;
	// Hinted what a hop only a kind word names counts; Unnamed what a hop
	// no word names costs.
	Named   float64 `json:"named"`
	Hinted  float64 `json:"hinted"`
	Unnamed float64 `json:"unnamed"`
	// Inverse multiplies the match of a hop against a fact's direction.
	Inverse float64 `json:"inverse"`
	// HopCost is what every hop costs, so that a longer path must explain
	// more; NearBonus what a path gains whose first hop uses the word
	// written closest to its anchor.
	HopCost   float64 `json:"hop_cost"`
	NearBonus float64 `json:"near_bonus"`
}

// Limits are the constants of ranking that are not fitted weights —
// thresholds, slacks, sizes and settle's share — each deciding what ranks,
// or how.
type Limits struct {
	// Below is the share of a score an item is set to by settle when it
	// must rank under another. Settle runs after every score is fused, so
	// that no weight — and no further ranked list fused into the scores —
	// can break its orderings.
	Below float64 `json:"below"`
	// NearSimilarity is how similar (entity.Similarity) a name sharing no
	// word with an unknown one must be to be offered in its place.
	NearSimilarity float64 `json:"near_similarity"`
	// ForgetScoreRatio is the share of the best hit's score a fact needs
	// to be selected by a forget query.
	ForgetScoreRatio float64 `json:"forget_score_ratio"`
	// SuccessorSlackDays is how far apart the end of a value and the
	// start of the one that replaced it may be (successor).
	SuccessorSlackDays float64 `json:"successor_slack_days"`
	// DateSlackDays is how far outside a period the query names a turn
	// may be and still count as in it (EpisodeWeights.Date).
	DateSlackDays float64 `json:"date_slack_days"`
	// TurnWords is the length, in words, from which a turn is not short
	// (EpisodeWeights.Length).
	TurnWords float64 `json:"turn_words"`
	// ChatWords: a conversation whose turns are shorter than this on
	// average is a chat, as between people (conversationShape).
	ChatWords float64 `json:"chat_words"`
	// SessionTop is how many of a session's best turns its score is the
	// mean of (EpisodeWeights.Session).
	SessionTop int `json:"session_top"`
}

// maxImportance is the importance of the most important fact
// (entity.Fact's Validate).
const maxImportance = 10

// days is a number of days as a duration.
func days(d float64) time.Duration { return time.Duration(d * float64(24*time.Hour)) }

// DefaultWeights returns the weights recall uses unless told otherwise.
func DefaultWeights() Weights {
	return Weights{
		Fact: FactWeights{
			Graph: 0.6, Hop2: 0.25, FromHits: 0.5,
			Pair: 2, ObjectSide: 0.6, Local: 0.35, PredicateOnly: 0.5,
			Subject: 1.2, Object: 1.1,
			Confidence: 0.5, UnstatedConfidence: 0.8, Importance: 0.04, UnstatedImportance: 5,
			Hits: 0.1, Recency: 0.25, RecencyHalfLife: 180,
			History: 0.85, WhyDecision: 1.5,
		},
		Entity:    EntityWeights{Linked: 0.8, Fuzzy: 0.75},
		Predicate: PredicateWeights{Name: 1, Description: 0.35, Explained: 0.25, Answer: 0.5, Near: 0.7, NearMargin: 0.015},
		Context:   ContextWeights{PerSubject: 3, Demote: 0.5, EntityCard: 0.5, PinnedShare: 0.25},
		Floor:     FloorWeights{Share: 0.6},
		Vector:    DefaultVectorWeights,
		Episode:   DefaultEpisodeWeights,
		Path:      PathWeights{Named: 0.5, Hinted: 0.5, Unnamed: 0.05, Inverse: 0.9, HopCost: 0.1, NearBonus: 0.1},
		Limits: Limits{Below: 0.95, NearSimilarity: 0.75, ForgetScoreRatio: 0.5, SuccessorSlackDays: 31, DateSlackDays: 7,
			TurnWords: 30, ChatWords: 40, SessionTop: 3},
	}
}

var defaultWeights = DefaultWeights()

func (e *Engine) weights() *Weights {
	if e.Weights != nil {
		return e.Weights
	}
	return &defaultWeights
}

// MaxWeight bounds every weight that is not a share: a term, a factor, a
// bonus. Scores multiply at most some twenty weighted factors, so with
// every weight at most MaxWeight no score comes near the largest float64:
// a weights file cannot make a score infinite (and an answer unencodable).
const MaxWeight = 1000

// MaxRecencyHalfLife bounds fact.recency_half_life_days, and MaxDays
// every other number of days: a century.
const (
	MaxRecencyHalfLife = MaxDays
	MaxDays            = 36525
)

// LoadWeights reads weights from a JSON file of Weights' shape: one
// object, nothing after it; what the file leaves out keeps its default.
// Returns EINVALID, naming the field, for an unknown field, a value of
// the wrong type or out of its range (Validate), or trailing data.
func LoadWeights(path string) (Weights, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Weights{}, err
	}
	w := DefaultWeights()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return Weights{}, &entity.Error{Code: entity.EINVALID, Message: "recall weights " + path + ": invalid weights",
				Fields: map[string]string{te.Field: "must be " + jsonKind(te.Type.Kind()) + ", not " + te.Value}}
		}
		return Weights{}, entity.Errorf(entity.EINVALID, "recall weights %s: %v", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Weights{}, entity.Errorf(entity.EINVALID, "recall weights %s: data after the JSON object (at byte %d)", path, dec.InputOffset())
	}
	if err := w.Validate(); err != nil {
		return Weights{}, fmt.Errorf("recall weights %s: %w", path, err)
	}
	return w, nil
}

// jsonKind says what JSON value a weight of kind k is.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.Bool:
		return "true or false"
	case reflect.Int:
		return "a whole number"
	}
	return "a finite number"
}

// Validate checks that every weight and limit is finite and in its
// range: shares, the multipliers that rank one thing below another and
// the path weights in [0, 1]; every other term, factor and bonus in
// [0, MaxWeight]; a positive half-life, rank constant, margin and share
// for settle; numbers of days up to MaxDays; an unstated importance among
// the importances a fact may state. Returns EINVALID naming each field
// out of its range (by JSON path, "episode.prev").
func (w *Weights) Validate() error {
	fe := entity.FieldErrors{}
	in := func(lo, hi float64, msg string, weights map[string]float64) {
		for name, v := range weights {
			if !(v >= lo && v <= hi) { // NaN too
				fe.Add(name, msg)
			}
		}
	}
	in(0, MaxWeight, fmt.Sprintf("must be between 0 and %d", MaxWeight), map[string]float64{
		"fact.graph": w.Fact.Graph, "fact.hop2": w.Fact.Hop2, "fact.pair": w.Fact.Pair, "fact.local": w.Fact.Local,
		"fact.predicate_only": w.Fact.PredicateOnly, "fact.hits": w.Fact.Hits, "fact.recency": w.Fact.Recency,
		"fact.subject": w.Fact.Subject, "fact.object": w.Fact.Object, "fact.why_decision": w.Fact.WhyDecision,
		"entity.linked": w.Entity.Linked, "predicate.name": w.Predicate.Name, "predicate.description": w.Predicate.Description,
		"vector.fact": w.Vector.Fact, "vector.entity": w.Vector.Entity, "vector.episode": w.Vector.Episode,
		"episode.time_words": w.Episode.TimeWords, "episode.speaker": w.Episode.Speaker, "episode.date": w.Episode.Date,
	})
	in(0, 1, "must be between 0 and 1", map[string]float64{
		"fact.from_hits": w.Fact.FromHits, "fact.object_side": w.Fact.ObjectSide, "fact.confidence": w.Fact.Confidence,
		"fact.unstated_confidence": w.Fact.UnstatedConfidence,
		"fact.history":             w.Fact.History, "entity.fuzzy": w.Entity.Fuzzy, "predicate.explained": w.Predicate.Explained,
		"predicate.answer": w.Predicate.Answer, "predicate.near": w.Predicate.Near, "vector.mmr_lambda": w.Vector.MMR,
		"context.demote": w.Context.Demote, "context.entity_card": w.Context.EntityCard,
		"context.pinned_share": w.Context.PinnedShare, "floor.share": w.Floor.Share,
		// Shares of another turn's score, and factors × (1 − weight).
		"episode.prev": w.Episode.Prev, "episode.next": w.Episode.Next, "episode.session": w.Episode.Session,
		"episode.mention": w.Episode.Mention, "episode.answer": w.Episode.Answer, "episode.follow_up": w.Episode.FollowUp,
		"episode.question": w.Episode.Question, "episode.length": w.Episode.Length, "episode.assistant": w.Episode.Assistant,
		// In units of a predicate's match.
		"path.named": w.Path.Named, "path.hinted": w.Path.Hinted, "path.unnamed": w.Path.Unnamed, "path.inverse": w.Path.Inverse,
		"path.hop_cost": w.Path.HopCost, "path.near_bonus": w.Path.NearBonus,
		"limits.near_similarity": w.Limits.NearSimilarity, "limits.forget_score_ratio": w.Limits.ForgetScoreRatio,
	})
	in(0, MaxDays, fmt.Sprintf("must be between 0 and %d days", MaxDays), map[string]float64{
		"limits.successor_slack_days": w.Limits.SuccessorSlackDays, "limits.date_slack_days": w.Limits.DateSlackDays,
	})
	in(1, MaxWeight, fmt.Sprintf("must be between 1 and %d words", MaxWeight), map[string]float64{
		"limits.turn_words": w.Limits.TurnWords, "limits.chat_words": w.Limits.ChatWords,
	})
	in(1, maxImportance, fmt.Sprintf("must be between 1 and %d, an importance a fact may state", maxImportance),
		map[string]float64{"fact.unstated_importance": w.Fact.UnstatedImportance})
	// × (1 + Importance·(importance − UnstatedImportance)): from
	// 1/UnstatedImportance on, an importance of 0 would weigh nothing or
	// less.
	if top := 1 / w.Fact.UnstatedImportance; !(w.Fact.Importance >= 0 && w.Fact.Importance < top) {
		fe.Add("fact.importance", fmt.Sprintf("must be at least 0 and below %g (an importance of 0 would weigh nothing or less)", top))
	}
	w.checkPositive(fe)
	return fe.Err()
}

// checkPositive checks the numbers that must be above zero: a half-life,
// a margin, a rank constant, settle's share, counts.
func (w *Weights) checkPositive(fe entity.FieldErrors) {
	if !(w.Fact.RecencyHalfLife > 0 && w.Fact.RecencyHalfLife <= MaxRecencyHalfLife) {
		fe.Add("fact.recency_half_life_days", fmt.Sprintf("must be positive and at most %d", MaxRecencyHalfLife))
	}
	if !(w.Predicate.NearMargin > 0 && w.Predicate.NearMargin <= 1) {
		fe.Add("predicate.near_margin", "must be positive and at most 1")
	}
	if !(w.Limits.Below > 0 && w.Limits.Below <= 1) {
		fe.Add("limits.below", "must be positive and at most 1")
	}
	if !(w.Vector.K > 0 && w.Vector.K <= MaxWeight) {
		fe.Add("vector.k", fmt.Sprintf("must be positive and at most %d", MaxWeight))
	}
	if w.Context.PerSubject < 1 {
		fe.Add("context.per_subject", "must be at least 1")
	}
	if w.Limits.SessionTop < 1 || w.Limits.SessionTop > MaxWeight {
		fe.Add("limits.session_top", fmt.Sprintf("must be between 1 and %d", MaxWeight))
	}
}
