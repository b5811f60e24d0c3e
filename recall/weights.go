package recall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

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

// LoadWeights reads weights from a JSON file of Weights' shape; what the
// file leaves out keeps its default. Returns EINVALID, naming the field,
// for an unknown field or a weight out of its range.
func LoadWeights(path string) (Weights, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Weights{}, err
	}
	w := DefaultWeights()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Weights{}, entity.Errorf(entity.EINVALID, "recall weights %s: %v", path, err)
	}
	if err := w.Validate(); err != nil {
		return Weights{}, fmt.Errorf("recall weights %s: %w", path, err)
	}
	return w, nil
}

// Validate checks that every weight is in its range: none negative,
// multipliers that rank one thing below another at most 1, shares in
// [0, 1], a positive half-life and rank constant.
func (w *Weights) Validate() error {
	fe := entity.FieldErrors{}
	for name, v := range map[string]float64{
		"fact.graph": w.Fact.Graph, "fact.hop2": w.Fact.Hop2, "fact.pair": w.Fact.Pair, "fact.local": w.Fact.Local,
		"fact.predicate_only": w.Fact.PredicateOnly, "fact.hits": w.Fact.Hits, "fact.recency": w.Fact.Recency,
		"fact.subject": w.Fact.Subject, "fact.object": w.Fact.Object, "fact.why_decision": w.Fact.WhyDecision,
		"entity.linked": w.Entity.Linked, "predicate.name": w.Predicate.Name, "predicate.description": w.Predicate.Description,
		"vector.fact": w.Vector.Fact, "vector.entity": w.Vector.Entity, "vector.episode": w.Vector.Episode,
		"fact.importance": w.Fact.Importance,
	} {
		if v < 0 {
			fe.Add(name, "must not be negative")
		}
	}
	for name, v := range map[string]float64{
		"fact.from_hits": w.Fact.FromHits, "fact.object_side": w.Fact.ObjectSide, "fact.confidence": w.Fact.Confidence,
		"fact.history": w.Fact.History, "entity.fuzzy": w.Entity.Fuzzy, "predicate.explained": w.Predicate.Explained,
		"predicate.answer": w.Predicate.Answer, "predicate.near": w.Predicate.Near, "vector.mmr_lambda": w.Vector.MMR,
		"context.demote": w.Context.Demote, "context.entity_card": w.Context.EntityCard,
		"context.pinned_share": w.Context.PinnedShare, "floor.share": w.Floor.Share,
	} {
		if v < 0 || v > 1 {
			fe.Add(name, "must be between 0 and 1")
		}
	}
	if w.Fact.Importance*5 >= 1 {
		fe.Add("fact.importance", "must be below 0.2 (an importance of 0 would weigh nothing or less)")
	}
	if w.Fact.RecencyHalfLife <= 0 {
		fe.Add("fact.recency_half_life_days", "must be positive")
	}
	if w.Predicate.NearMargin <= 0 {
		fe.Add("predicate.near_margin", "must be positive")
	}
	if w.Vector.K <= 0 {
		fe.Add("vector.k", "must be positive")
	}
	if w.Context.PerSubject < 1 {
		fe.Add("context.per_subject", "must be at least 1")
	}
	return fe.Err()
}
