package recall

import (
	"math"

	"github.com/graphmem/graphmem/entity"
)

// Scoring: the sources (search, linking, the walk, the vector list) fill a
// feature struct per candidate; the pure functions below turn features
// and Weights into a score and the explanation of it. Nothing else reads
// what a source measured.

// seed is how the walk's start of a fact was found.
type seed uint8

const (
	seedNamed seed = iota // an entity the query names exactly or by alias
	seedFuzzy             // … with a typing error
	seedHit               // the endpoint of a fact hit
	seeds
)

func seedOf(k entity.MatchKind) seed {
	if k == entity.MatchFuzzy {
		return seedFuzzy
	}
	return seedNamed
}

// reach records how the walk reached a fact: one bit per hop (1, or 2
// and beyond) and seed.
type reach uint8

func (r *reach) add(hop int, s seed) {
	h := min(hop, 2) - 1
	*r |= 1 << (uint(h)*uint(seeds) + uint(s))
}

// graph is the graph term of a reach: the best hop weight × seed weight,
// and the hop it was reached at (0: not reached).
func (r reach) graph(w *Weights) (float64, int) {
	best, hop := 0.0, 0
	for h := range 2 {
		hw := w.Fact.Graph
		if h == 1 {
			hw = w.Fact.Hop2
		}
		for s := range seeds {
			if r&(1<<(uint(h)*uint(seeds)+uint(s))) == 0 {
				continue
			}
			if g := hw * w.seed(s); g > best {
				best, hop = g, h+1
			}
		}
	}
	return best, hop
}

func (w *Weights) seed(s seed) float64 {
	switch s {
	case seedNamed:
		return 1
	case seedFuzzy:
		return w.Entity.Fuzzy
	}
	return w.Fact.FromHits
}

// link is the link of an entity named with match kind k.
func (w *Weights) link(k entity.MatchKind) float64 {
	switch k {
	case entity.MatchExact, entity.MatchAlias:
		return 1
	case entity.MatchFuzzy:
		return w.Entity.Fuzzy
	}
	return 0
}

// factFeatures are what the sources measured of a fact candidate.
type factFeatures struct {
	BM25     float64 // its BM25 score (0: not a search hit)
	BM25Rank int
	Reach    reach
	// SubjectNamed and ObjectNamed: the query names the fact's subject,
	// its object; ObjectAfter / SubjectAfter: right after the predicate's
	// own words ("reports to Mia"), so the entity is the object of the
	// facts asked for.
	SubjectNamed, ObjectNamed bool
	SubjectAfter, ObjectAfter bool
	// Predicate is how well the question names the fact's predicate, in
	// [0, 1]; Local the share of the question's words that tell the named
	// entities' facts apart the fact holds.
	Predicate float64
	Local     float64
	// VectorRank is the fact's rank in the vector list (0: not in it),
	// Vector its similarity.
	VectorRank int
	Vector     float64

	Confidence float64 // 0: not stated
	Importance int     // 0: not stated
	Hits       int64
	// AgeDays is the time from valid_from to as_of (Dated: valid_from is
	// known).
	AgeDays float64
	Dated   bool
	Valid   bool // valid at as_of
	// WhyDecision: a decision, and the question asks why.
	WhyDecision bool
}

// entityFeatures are what the sources measured of an entity candidate.
type entityFeatures struct {
	BM25       float64
	BM25Rank   int
	Link       entity.MatchKind // how the query names it (MatchNone: not)
	VectorRank int
	Vector     float64
}

// term is one named input of a score; the explanation of a score lists
// them in the order the score applied them. The API's signals are built
// from them (explanation.signals).
type term struct {
	name  string
	value float64
}

type explanation []term

func (x *explanation) add(name string, v float64) { *x = append(*x, term{name, v}) }

// signals is the explanation as the API shows it: each term by name,
// rounded.
func (x explanation) signals() map[string]float64 {
	m := make(map[string]float64, len(x))
	for _, t := range x {
		m[t.name] = round(t.value)
	}
	return m
}

// pair is the pair term of a fact: how well the question names its
// predicate and the words that tell it apart from the other facts of the
// entities the query names, weighed by the side the named entity is on.
// It is zero for a fact touching no named entity.
func (f *factFeatures) pair(w *Weights) float64 {
	side := 0.0
	switch {
	case f.ObjectAfter:
		side = 1
	case f.SubjectNamed && !f.SubjectAfter:
		side = 1
	case f.SubjectNamed || f.ObjectNamed:
		side = w.Fact.ObjectSide
	}
	return side * (f.Predicate + w.Fact.Local*f.Local)
}

// answers reports whether the fact is the answer to a question that
// names its entity and predicate (settle).
func (f *factFeatures) answers(w *Weights) bool {
	return (f.SubjectNamed || f.ObjectAfter) && f.Predicate >= w.Predicate.Answer && f.Valid
}

// scoreFact is a fact's score on scale (the best BM25 score of the query,
// at least 1) and its explanation:
//
//	(bm25 + S·graph + S·Pair·pair + S·vec) · link · quality
func scoreFact(w *Weights, scale float64, f *factFeatures) (float64, explanation) {
	var x explanation
	if f.BM25Rank > 0 {
		x.add("bm25", f.BM25)
		x.add("bm25_rank", float64(f.BM25Rank))
	}
	graph, hop := f.Reach.graph(w)
	rel := f.BM25 + scale*graph
	if graph > 0 {
		x.add("graph", graph)
		x.add("graph_distance", float64(hop))
	}
	if f.Local > 0 {
		x.add("local", f.Local)
	}
	if f.ObjectAfter {
		x.add("object_named", 1)
	}
	if f.Predicate > 0 {
		x.add("predicate", f.Predicate)
	}
	if pair := f.pair(w); pair > 0 {
		rel += scale * w.Fact.Pair * pair
		x.add("pair", pair)
	} else if f.Predicate > 0 {
		rel *= 1 + w.Fact.PredicateOnly*f.Predicate
	}
	if f.VectorRank > 0 {
		rel += scale * w.Vector.Fact * w.Vector.rrf(float64(f.VectorRank))
		x.add("vector", f.Vector)
		x.add("vector_rank", float64(f.VectorRank))
	}
	if f.SubjectNamed {
		rel *= w.Fact.Subject
	} else if f.ObjectNamed {
		rel *= w.Fact.Object
	}
	q := quality(w, f)
	if !f.Valid && !f.WhyDecision {
		q *= w.Fact.History
	}
	if f.WhyDecision {
		q *= w.Fact.WhyDecision
	}
	x.add("importance", float64(f.Importance))
	x.add("confidence", f.Confidence)
	x.add("hits", float64(f.Hits))
	x.add("recency", recency(w, f))
	return rel * q, x
}

// quality is the query-independent factor of a fact's score, in about
// [0.4, 1.6] with the default weights: confidence, importance, how often
// recall returned it, recency.
func quality(w *Weights, f *factFeatures) float64 {
	fw := &w.Fact
	conf := f.Confidence
	if conf == 0 {
		conf = fw.UnstatedConfidence
	}
	imp := float64(f.Importance)
	if imp == 0 {
		imp = fw.UnstatedImportance
	}
	return ((1 - fw.Confidence) + fw.Confidence*conf) * ((1 - fw.UnstatedImportance*fw.Importance) + fw.Importance*imp) *
		(1 + fw.Hits*math.Log1p(float64(f.Hits))) * recency(w, f)
}

// recency is 1 + Recency·2^(−age/half-life): recent facts get up to
// Recency more.
func recency(w *Weights, f *factFeatures) float64 {
	if !f.Dated {
		return 1
	}
	return 1 + w.Fact.Recency*math.Exp2(-max(f.AgeDays, 0)/w.Fact.RecencyHalfLife)
}

// scoreEntity is an entity's score on scale and its explanation:
//
//	bm25 + S·Linked·link + S·vec
func scoreEntity(w *Weights, scale float64, f *entityFeatures) (float64, explanation) {
	var x explanation
	if f.BM25Rank > 0 {
		x.add("bm25", f.BM25)
		x.add("bm25_rank", float64(f.BM25Rank))
	}
	score := f.BM25
	if link := w.link(f.Link); link > 0 {
		score += scale * w.Entity.Linked * link
		x.add("linked", link)
	}
	if f.VectorRank > 0 {
		score += scale * w.Vector.Entity * w.Vector.rrf(float64(f.VectorRank))
		x.add("vector", f.Vector)
		x.add("vector_rank", float64(f.VectorRank))
	}
	return score, x
}

func round(v float64) float64 { return math.Round(v*1e4) / 1e4 }
