package recall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"

	"github.com/graphmem/graphmem/entity"
)

// Weights hold every constant of recall's scoring: facts, entities,
// predicate linking, packing, the relevance floor, the vector list and
// episodes. The defaults (DefaultWeights) were chosen on the dev parts of
// the evaluations (package eval); a file of the same JSON shape replaces
// any of them (LoadWeights, GRAPHMEM_RECALL_WEIGHTS). Limits — how many
// candidates are read, how far the walk goes — are not weights: they bound
// the work, not the order.
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
	// Confidence: × (1 − Confidence + Confidence·confidence).
	Confidence float64 `json:"confidence"`
	// Importance: × (1 + Importance·(importance − 5)), 5 being the
	// importance of a fact that states none.
	Importance float64 `json:"importance"`
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

// DefaultWeights returns the weights recall uses unless told otherwise.
func DefaultWeights() Weights {
	return Weights{
		Fact: FactWeights{
			Graph: 0.6, Hop2: 0.25, FromHits: 0.5,
			Pair: 2, ObjectSide: 0.6, Local: 0.35, PredicateOnly: 0.5,
			Subject: 1.2, Object: 1.1,
			Confidence: 0.5, Importance: 0.04, Hits: 0.1, Recency: 0.25, RecencyHalfLife: 180,
			History: 0.85, WhyDecision: 1.5,
		},
		Entity:    EntityWeights{Linked: 0.8, Fuzzy: 0.75},
		Predicate: PredicateWeights{Name: 1, Description: 0.35, Explained: 0.25, Answer: 0.5, Near: 0.7, NearMargin: 0.015},
		Context:   ContextWeights{PerSubject: 3, Demote: 0.5, EntityCard: 0.5, PinnedShare: 0.25},
		Floor:     FloorWeights{Share: 0.6},
		Vector:    DefaultVectorWeights,
		Episode:   DefaultEpisodeWeights,
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

// MaxRecencyHalfLife bounds fact.recency_half_life_days: a century.
const MaxRecencyHalfLife = 36525

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

// Validate checks that every weight is finite and in its range: shares
// and the multipliers that rank one thing below another in [0, 1]; every
// other term, factor and bonus in [0, MaxWeight]; a positive half-life,
// rank constant and margin. Returns EINVALID naming each field out of its
// range (by JSON path, "episode.prev").
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
		"fact.history": w.Fact.History, "entity.fuzzy": w.Entity.Fuzzy, "predicate.explained": w.Predicate.Explained,
		"predicate.answer": w.Predicate.Answer, "predicate.near": w.Predicate.Near, "vector.mmr_lambda": w.Vector.MMR,
		"context.demote": w.Context.Demote, "context.entity_card": w.Context.EntityCard,
		"context.pinned_share": w.Context.PinnedShare, "floor.share": w.Floor.Share,
		// Shares of another turn's score, and factors × (1 − weight).
		"episode.prev": w.Episode.Prev, "episode.next": w.Episode.Next, "episode.session": w.Episode.Session,
		"episode.mention": w.Episode.Mention, "episode.answer": w.Episode.Answer, "episode.follow_up": w.Episode.FollowUp,
		"episode.question": w.Episode.Question, "episode.length": w.Episode.Length, "episode.assistant": w.Episode.Assistant,
	})
	// × (1 + Importance·(importance − 5)): from 0.2 on, an importance of 0
	// would weigh nothing or less.
	if !(w.Fact.Importance >= 0 && w.Fact.Importance < 0.2) {
		fe.Add("fact.importance", "must be at least 0 and below 0.2 (an importance of 0 would weigh nothing or less)")
	}
	if !(w.Fact.RecencyHalfLife > 0 && w.Fact.RecencyHalfLife <= MaxRecencyHalfLife) {
		fe.Add("fact.recency_half_life_days", fmt.Sprintf("must be positive and at most %d", MaxRecencyHalfLife))
	}
	if !(w.Predicate.NearMargin > 0 && w.Predicate.NearMargin <= 1) {
		fe.Add("predicate.near_margin", "must be positive and at most 1")
	}
	if !(w.Vector.K > 0 && w.Vector.K <= MaxWeight) {
		fe.Add("vector.k", fmt.Sprintf("must be positive and at most %d", MaxWeight))
	}
	if w.Context.PerSubject < 1 {
		fe.Add("context.per_subject", "must be at least 1")
	}
	return fe.Err()
}
