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
// with the hop it was reached at as an input; nil when not reached.
func (r reach) graph(n *nodes, w *Weights) *Explanation {
	best, hop, from := 0.0, 0, seed(0)
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
				best, hop, from = g, h+1, s
			}
		}
	}
	if hop == 0 {
		return nil
	}
	name, hw := "fact.graph", w.Fact.Graph
	if hop == 2 {
		name, hw = "fact.hop2", w.Fact.Hop2
	}
	return n.with(n.product("reach", n.leaf(name, hw), n.leaf(seedNames[from], w.seed(from))), Input{"graph_distance", float64(hop)})
}

// seedNames name a seed's weight in an explanation.
var seedNames = [seeds]string{seedNamed: "named_entity", seedFuzzy: "entity.fuzzy", seedHit: "fact.from_hits"}

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

// pair is the pair term of a fact: how well the question names its
// predicate and the words that tell it apart from the other facts of the
// entities the query names, weighed by the side the named entity is on.
// It is nil for a fact touching no named entity.
//
//	side · (predicate + Local·local)
func (f *factFeatures) pair(n *nodes, w *Weights) *Explanation {
	var side *Explanation
	switch {
	case f.ObjectAfter:
		side = n.leaf("side", 1, Input{"object_named", 1})
	case f.SubjectNamed && !f.SubjectAfter:
		side = n.leaf("side", 1)
	case f.SubjectNamed || f.ObjectNamed:
		side = n.leaf("fact.object_side", w.Fact.ObjectSide)
	default:
		return nil
	}
	named := n.sum("question", n.leaf("predicate", f.Predicate), n.product("local", n.leaf("fact.local", w.Fact.Local), n.leaf("local_share", f.Local)))
	return n.product("pair_match", side, named)
}

// answers reports whether the fact is the answer to a question that
// names its entity and predicate (settle).
func (f *factFeatures) answers(w *Weights) bool {
	return (f.SubjectNamed || f.ObjectAfter) && f.Predicate >= w.Predicate.Answer && f.Valid
}

// scoreFact is the explanation of a fact's score on scale (the best BM25
// score of the query, at least 1), its value the score; its nodes come
// from n:
//
//	(bm25 + S·graph + S·Pair·pair + S·vec) · link · quality
func scoreFact(n *nodes, w *Weights, scale float64, f *factFeatures) *Explanation {
	var bm25, graph, pair, vec *Explanation
	if f.BM25Rank > 0 || f.BM25 != 0 {
		bm25 = n.leaf("bm25", f.BM25, Input{"bm25_rank", float64(f.BM25Rank)})
	}
	if g := f.Reach.graph(n, w); g != nil {
		graph = n.product("graph", n.leaf("scale", scale), g)
	}
	if m := f.pair(n, w); m != nil && m.Value > 0 {
		pair = n.product("pair", n.leaf("scale", scale), n.leaf("fact.pair", w.Fact.Pair), m)
	}
	if f.VectorRank > 0 {
		vec = n.product("vector", n.leaf("scale", scale), n.leaf("vector.fact", w.Vector.Fact),
			n.leaf("rank", w.Vector.rrf(float64(f.VectorRank)), Input{"vector_rank", float64(f.VectorRank)}, Input{"similarity", f.Vector}))
	}
	var rel *Explanation
	if pair == nil && f.Predicate > 0 {
		// × (1 + PredicateOnly·predicate) before the vector term.
		only := n.leaf("predicate_only", 1+w.Fact.PredicateOnly*f.Predicate, Input{"predicate", f.Predicate})
		rel = n.sum("relevance", n.product("words", n.sum("matched", bm25, graph), only), vec)
	} else {
		rel = n.sum("relevance", bm25, graph, pair, vec)
	}
	var link *Explanation
	if f.SubjectNamed {
		link = n.leaf("fact.subject", w.Fact.Subject)
	} else if f.ObjectNamed {
		link = n.leaf("fact.object", w.Fact.Object)
	}
	return n.product("fact", rel, link, quality(n, w, f))
}

// quality is the query-independent factor of a fact's score, in about
// [0.4, 1.6] with the default weights: confidence, importance, how often
// recall returned it, recency; and for a version not valid at as_of,
// History, for a decision on a why question WhyDecision.
func quality(n *nodes, w *Weights, f *factFeatures) *Explanation {
	fw := &w.Fact
	conf := f.Confidence
	if conf == 0 {
		conf = fw.UnstatedConfidence
	}
	imp := float64(f.Importance)
	if imp == 0 {
		imp = fw.UnstatedImportance
	}
	var history, why *Explanation
	if !f.Valid && !f.WhyDecision {
		history = n.leaf("fact.history", fw.History)
	}
	if f.WhyDecision {
		why = n.leaf("fact.why_decision", fw.WhyDecision)
	}
	return n.product("quality",
		n.leaf("confidence", (1-fw.Confidence)+fw.Confidence*conf, Input{"stated_confidence", f.Confidence}),
		n.leaf("importance", (1-fw.UnstatedImportance*fw.Importance)+fw.Importance*imp, Input{"stated_importance", float64(f.Importance)}),
		n.leaf("hits", 1+fw.Hits*math.Log1p(float64(f.Hits)), Input{"hit_count", float64(f.Hits)}),
		n.leaf("recency", recency(w, f), Input{"age_days", max(f.AgeDays, 0)}),
		history, why)
}

// recency is 1 + Recency·2^(−age/half-life): recent facts get up to
// Recency more.
func recency(w *Weights, f *factFeatures) float64 {
	if !f.Dated {
		return 1
	}
	return 1 + w.Fact.Recency*math.Exp2(-max(f.AgeDays, 0)/w.Fact.RecencyHalfLife)
}

// scoreEntity is the explanation of an entity's score on scale, its
// value the score; its nodes come from n:
//
//	bm25 + S·Linked·link + S·vec
func scoreEntity(n *nodes, w *Weights, scale float64, f *entityFeatures) *Explanation {
	var bm25, linked, vec *Explanation
	if f.BM25Rank > 0 || f.BM25 != 0 {
		bm25 = n.leaf("bm25", f.BM25, Input{"bm25_rank", float64(f.BM25Rank)})
	}
	if link := w.link(f.Link); link > 0 {
		linked = n.product("linked", n.leaf("scale", scale), n.leaf("entity.linked", w.Entity.Linked), n.leaf("link", link))
	}
	if f.VectorRank > 0 {
		vec = n.product("vector", n.leaf("scale", scale), n.leaf("vector.entity", w.Vector.Entity),
			n.leaf("rank", w.Vector.rrf(float64(f.VectorRank)), Input{"vector_rank", float64(f.VectorRank)}, Input{"similarity", f.Vector}))
	}
	return n.sum("entity", bm25, linked, vec)
}

func round(v float64) float64 { return math.Round(v*1e4) / 1e4 }
