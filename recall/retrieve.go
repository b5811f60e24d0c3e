package recall

import (
	"context"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/search"
)

// params is one retrieval.
type params struct {
	scope   entity.Scope
	a       analysis
	now     time.Time
	asOf    time.Time
	knownAt time.Time // zero: now
	history bool      // keep facts not valid at asOf
	during  *period   // keep only facts valid at some time in it
	types   []string
	limit   int
	hops    int      // depth of the walk
	focus   []string // entity names that seed the walk
	// candidates is how many BM25 hits are read (default: from limit).
	candidates int
	// pending is the question's embedding under way (nil: embeddings
	// off); vec the vector retrieve took from it (nil: no vector list).
	pending *pendingVector
	vec     []float32
}

func (p *params) wants(typ string) bool { return len(p.types) == 0 || slices.Contains(p.types, typ) }

// Weights of the fused score; see the package documentation.
const (
	candidatesMin = 100 // BM25 candidates fetched, at least
	candidatesPer = 10  // … and this many per requested result

	graphLinked   = 0.6  // a fact touching an entity the query names
	graphHop2     = 0.25 // a fact one entity further
	graphFromHits = 0.5  // seeds found through fact hits weigh half
	linkedEntity  = 0.8  // an entity the query names

	fanOut     = 15 // facts kept per entity and hop
	fanOutScan = 20 // facts read per entity (current and newest first), before the policy
	maxSeeds   = 8  // entities a hop expands
)

// item is one ranked candidate.
type item struct {
	typ     string
	id      string
	score   float64
	signals map[string]float64

	fact    *entity.Fact
	entity  *entity.Entity
	episode *entity.Episode
	hit     search.Hit
}

// candidates is everything one retrieval found.
type candidates struct {
	p        params
	facts    map[string]*item
	entities map[string]*item
	episodes map[string]*item
	linked   map[string]entity.MatchKind // entity id → how the query named it
	order    []*item

	// linkedFacts are the facts of the linked entities, linkedNames their
	// names and aliases, q the question as predicate linking reads it
	// (predicates.go).
	linkedFacts *linkedFacts
	linkedNames []string
	q           *question

	// around are the facts read around the linked entities, as the store
	// returned them (graph.WalkQuery.Known).
	around map[string][]entity.Fact

	// vectorEpisodes are the episodes of the vector list, by id.
	vectorEpisodes map[string]vectorHit
}

func (c *candidates) ranked() []*item {
	if c.order != nil {
		return c.order
	}
	all := make([]*item, 0, len(c.facts)+len(c.entities)+len(c.episodes))
	for _, m := range []map[string]*item{c.facts, c.entities, c.episodes} {
		for _, it := range m {
			if it.score > 0 && c.p.wants(it.typ) {
				all = append(all, it)
			}
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return all[i].id < all[j].id
	})
	c.order = all
	return all
}

// visible returns f as seen by the request: as known at knownAt, and only
// if it is recallable and (outside history mode) valid at asOf.
func (p *params) visible(f entity.Fact) (entity.Fact, bool) {
	if !p.knownAt.IsZero() {
		if !f.KnownAt(p.knownAt) {
			return f, false
		}
		f = f.AsKnownAt(p.knownAt)
	}
	if !f.Recallable(p.now) {
		return f, false
	}
	if !p.history && !f.ValidAt(p.asOf) {
		return f, false
	}
	if p.during != nil && !p.during.overlaps(&f) {
		return f, false
	}
	return f, true
}

// withHistory is p keeping facts whatever their validity: every version.
func (p *params) withHistory() *params {
	h := *p
	h.history, h.during = true, nil
	return &h
}

// around selects up to limit facts of an entity for the request: the store
// filters by validity and status, except for a known_at request, whose
// validity and status differ from the stored ones (visible decides then).
func (p *params) around(limit int) graph.Around {
	a := graph.Around{Limit: limit}
	if p.knownAt.IsZero() {
		// Only known_at reads the claims and revisions of a fact.
		a.Bare = true
		a.Now = p.now
		if !p.history {
			a.AsOf = p.asOf
		}
	}
	return a
}

// retrieve runs the BM25 search, links entities, walks the graph and
// scores every candidate, reading the store through tx.
func (e *Engine) retrieve(ctx context.Context, tx graph.Tx, p params) (*candidates, error) {
	c := &candidates{p: p, facts: map[string]*item{}, entities: map[string]*item{}, episodes: map[string]*item{},
		linked: map[string]entity.MatchKind{}}
	n := p.candidates
	if n == 0 {
		n = max(candidatesMin, p.limit*candidatesPer)
	}
	// Facts are always searched: they seed the walk even when only
	// entities or episodes are wanted.
	var types []string
	if len(p.types) > 0 {
		types = append(slices.Clone(p.types), search.TypeFact, search.TypeEntity)
	}
	var episodeHits []search.Hit
	// scale is what one unit of graph weight is worth: the best BM25
	// score of the query, so graph-only facts rank among textual matches.
	scale := 1.0
	// Entities first: the words that tell their facts apart must not be
	// dropped from the search as common (readLinked).
	if err := c.link(tx); err != nil {
		return nil, err
	}
	keep, keepFor, err := c.readLinked(tx)
	if err != nil {
		return nil, err
	}
	c.q = newQuestion(lexiconOf(e.ontology()), p.a.text, c.linkedNames)
	hits, err := e.Index.Search(ctx, search.Query{
		Scope: p.scope, Text: p.a.text, Limit: n, AsOf: p.asOf, KnownAt: p.knownAt, Now: p.now,
		IncludeHistory: p.history, Types: types, Keep: keep, KeepFor: keepFor,
	})
	if err != nil {
		return nil, err
	}
	var factHits, entityHits []search.Hit
	for _, h := range hits {
		switch h.Type {
		case search.TypeFact:
			factHits = append(factHits, h)
		case search.TypeEntity:
			entityHits = append(entityHits, h)
		case search.TypeEpisode:
			episodeHits = append(episodeHits, h)
		}
	}
	if len(hits) > 0 {
		scale = max(scale, hits[0].Score)
	}
	facts, ents, err := graph.FactsAndEntitiesByID(tx, hitIDs(factHits), hitIDs(entityHits))
	if err != nil {
		return nil, err
	}
	c.loadFactHits(factHits, facts)
	c.loadEntityHits(entityHits, ents)
	c.addLinkedFacts(c.q)
	if err := c.walk(tx); err != nil {
		return nil, err
	}
	// The question was being embedded meanwhile.
	if c.p.vec = e.vectorFor(ctx, p.pending); c.p.vec != nil {
		c.q.near = c.nearPredicates(e)
		if err := c.addVectorFacts(tx, e); err != nil {
			return nil, err
		}
		if err := c.addVectorEntities(tx, e); err != nil {
			return nil, err
		}
		if p.wants(search.TypeEpisode) {
			// Turns are weighed against the best BM25 score itself, which
			// is far below 1 in a long conversation: on scale the list
			// would outweigh every word of the question.
			best := 1.0
			if len(hits) > 0 {
				best = hits[0].Score
			}
			if episodeHits, err = e.vectorEpisodeHits(ctx, c, episodeHits, best); err != nil {
				return nil, err
			}
		}
	}
	if p.wants(search.TypeEpisode) && (len(episodeHits) > 0 || len(c.linked) > 0) {
		if err := e.rankEpisodes(ctx, tx, c, episodeHits, scale); err != nil {
			return nil, err
		}
	}
	c.scoreFacts(scale, e)
	c.scoreEntities(scale, e.vectorWeights())
	c.settle()
	return c, nil
}

// loadFactHits makes candidates of the facts the search found (found: the
// stored ones, by id).
func (c *candidates) loadFactHits(hits []search.Hit, found map[string]entity.Fact) {
	for i, h := range hits {
		f, ok := found[h.ID]
		if !ok {
			continue // deleted since it was indexed
		}
		f, ok = c.p.visible(f)
		if !ok {
			continue
		}
		c.facts[f.ID] = &item{typ: search.TypeFact, id: f.ID, fact: &f, hit: h,
			signals: map[string]float64{"bm25": round(h.Score), "bm25_rank": float64(i + 1)}}
	}
}

// loadEntityHits makes candidates of the entities the search found.
func (c *candidates) loadEntityHits(hits []search.Hit, found map[string]entity.Entity) {
	for i, h := range hits {
		en, ok := found[h.ID]
		if !ok || en.ForgottenAt != nil {
			continue
		}
		if it, ok := c.entities[en.ID]; ok { // linked before the search
			it.hit = h
			it.signals["bm25"], it.signals["bm25_rank"] = round(h.Score), float64(i+1)
			continue
		}
		c.entities[en.ID] = &item{typ: search.TypeEntity, id: en.ID, entity: &en, hit: h,
			signals: map[string]float64{"bm25": round(h.Score), "bm25_rank": float64(i + 1)}}
	}
}

// link finds the entities the query (and the focus list) names: exact
// and alias matches of its n-grams, then fuzzy matches of long n-grams
// (entity.Resolve decides, so people are never matched fuzzily).
func (c *candidates) link(tx graph.Tx) error {
	grams := c.p.a.grams
	for _, f := range c.p.focus {
		grams = append(grams, entity.Normalize(f))
	}
	if len(grams) == 0 {
		return nil
	}
	byKey, err := tx.EntitiesByKey(grams)
	if err != nil {
		return err
	}
	matched := map[string]bool{}
	for _, g := range grams {
		for _, en := range byKey[g] {
			m := entity.Resolve(g, "", []entity.Entity{en})
			if m.Kind == entity.MatchNone {
				continue
			}
			c.addLinked(en, m.Kind)
			matched[g] = true
		}
	}
	// Fuzzy: only n-grams long enough and not already matched; the prefix
	// scans (entity.FuzzyPrefix) in one batch.
	var fuzzy, prefixes []string
	for _, g := range grams {
		if matched[g] || len([]rune(g)) < entity.FuzzyMinRunes {
			continue
		}
		fuzzy = append(fuzzy, g)
		if pre := entity.FuzzyPrefix(g); !slices.Contains(prefixes, pre) {
			prefixes = append(prefixes, pre)
		}
	}
	if len(fuzzy) == 0 {
		return nil
	}
	byPrefix, err := graph.EntitiesByPrefixes(tx, prefixes, 50)
	if err != nil {
		return err
	}
	for _, g := range fuzzy {
		cands := byPrefix[entity.FuzzyPrefix(g)]
		if m := entity.Lookup(g, cands); m.Kind == entity.MatchFuzzy {
			c.addLinked(*m.Entity, m.Kind)
		}
	}
	return nil
}

func (c *candidates) addLinked(en entity.Entity, kind entity.MatchKind) {
	if en.ForgottenAt != nil {
		return // forgotten: off every read path
	}
	if old, ok := c.linked[en.ID]; ok && old != entity.MatchFuzzy {
		return
	}
	c.linked[en.ID] = kind
	it, ok := c.entities[en.ID]
	if !ok {
		it = &item{typ: search.TypeEntity, id: en.ID, entity: &en, signals: map[string]float64{}}
		c.entities[en.ID] = it
	}
	it.signals["linked"] = linkWeight(kind)
}

func linkWeight(k entity.MatchKind) float64 {
	switch k {
	case entity.MatchExact, entity.MatchAlias:
		return 1
	case entity.MatchFuzzy:
		return 0.75
	}
	return 0
}

// walk explores the graph breadth-first (graph.Walk) from the seed
// entities — those the query names, then the endpoints of the best fact
// hits — over facts visible to the request, up to p.hops hops. The store
// reads each entity's current and newest facts first; of those, the walk
// takes the most important and recent fanOut (selectFacts). Beyond the
// first hop, hubs — entities with more facts than the cap — are not
// expanded. A fact's graph signal is the hop weight times the weight of
// the seed it was reached from.
func (c *candidates) walk(tx graph.Tx) error {
	weight := map[string]float64{}
	var seeds []string
	for id, k := range c.linked {
		seeds = append(seeds, id)
		weight[id] = linkWeight(k)
	}
	sort.Slice(seeds, func(i, j int) bool {
		if weight[seeds[i]] != weight[seeds[j]] {
			return weight[seeds[i]] > weight[seeds[j]]
		}
		return seeds[i] < seeds[j]
	})
	// Endpoints of the best fact hits, in BM25 order.
	var byRank []*item
	for _, it := range c.facts {
		byRank = append(byRank, it)
	}
	sort.Slice(byRank, func(i, j int) bool {
		if byRank[i].hit.Score != byRank[j].hit.Score {
			return byRank[i].hit.Score > byRank[j].hit.Score
		}
		return byRank[i].id < byRank[j].id
	})
	for _, it := range byRank {
		if len(seeds) >= maxSeeds {
			break
		}
		for _, id := range []string{it.fact.SubjectID, it.fact.ObjectID} {
			if _, ok := weight[id]; id != "" && !ok && len(seeds) < maxSeeds {
				weight[id] = graphFromHits
				seeds = append(seeds, id)
			}
		}
	}
	if len(seeds) == 0 {
		return nil
	}
	a := c.p.around(fanOutScan)
	q := graph.WalkQuery{Seeds: seeds, Hops: c.p.hops, AsOf: a.AsOf, Now: a.Now, Bare: a.Bare, Read: a.Limit, Hub: fanOut,
		Frontier: maxSeeds, Select: c.selectFacts, Known: c.around}
	steps, err := graph.Walk(tx, q)
	if err != nil {
		return err
	}
	for _, s := range steps {
		f := s.Fact // the item keeps a pointer: one copy per step
		w := graphLinked
		if s.Hop > 1 {
			w = graphHop2
		}
		sw := weight[s.From]
		g := w * sw
		it, ok := c.facts[f.ID]
		if !ok {
			it = &item{typ: search.TypeFact, id: f.ID, fact: &f, signals: make(map[string]float64, 8)}
			c.facts[f.ID] = it
		}
		if g > it.signals["graph"] {
			it.signals["graph"] = g
			it.signals["graph_distance"] = float64(s.Hop)
		}
		for _, id := range []string{f.SubjectID, f.ObjectID} {
			if _, ok := weight[id]; id != "" && !ok {
				weight[id] = sw
			}
		}
	}
	return nil
}

// selectFacts is the walk's selection policy: the facts visible to the
// request, the most important first, then the most recent, at most fanOut.
func (c *candidates) selectFacts(_ string, _ int, fs []entity.Fact) []entity.Fact {
	kept := make([]entity.Fact, 0, len(fs))
	for _, f := range fs {
		if f, ok := c.p.visible(f); ok {
			kept = append(kept, f)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		if kept[i].Importance != kept[j].Importance {
			return kept[i].Importance > kept[j].Importance
		}
		return kept[i].ValidFrom.After(kept[j].ValidFrom)
	})
	return kept[:min(len(kept), fanOut)]
}

func hitIDs(hits []search.Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

// scoreFacts computes the fused score of every fact candidate:
//
//	(bm25 + scale·graph) · quality
//
// where quality combines confidence, importance, recency of valid_from and
// how often recall returned the fact.
func (c *candidates) scoreFacts(scale float64, e *Engine) {
	vw := e.vectorWeights()
	for _, it := range c.facts {
		f := it.fact
		rel := it.hit.Score + scale*it.signals["graph"]
		if it.signals["graph"] == 0 {
			delete(it.signals, "graph")
		}
		// A fact of an entity the query names, whose predicate the
		// question names, is what was asked for. The vector list joins
		// rel as S·w·(k+1)/(k + rank); settle runs after, so no such term
		// can lift a version not valid at as_of above the one that is.
		if pair := c.pairScore(it, c.q); pair > 0 {
			rel += scale * pairWeight * pair
			it.signals["pair"] = round(pair)
		} else if pm := it.signals["predicate"]; pm > 0 {
			rel *= 1 + predicateOnly*pm
		}
		if r := it.signals["vector_rank"]; r > 0 {
			rel += scale * vw.Fact * vw.rrf(r)
		}
		// A fact whose subject or object the query names is more likely
		// what is asked about than one that merely shares words.
		if _, ok := c.linked[f.SubjectID]; ok {
			rel *= 1.2
		} else if _, ok := c.linked[f.ObjectID]; ok && f.ObjectID != "" {
			rel *= 1.1
		}
		q := quality(f, c.p.asOf)
		why := c.p.a.intent.Why && e.ontology().IsDecision(f.Predicate)
		if !f.ValidAt(c.p.asOf) && !why {
			q *= 0.85 // history ranks below the version valid then
		}
		if why {
			// A decision answers a why question, whether or not it still
			// holds: the one reversed later explains the change it made.
			q *= 1.5
		}
		it.score = rel * q
		it.signals["importance"] = float64(f.Importance)
		it.signals["confidence"] = round(f.Confidence)
		it.signals["hits"] = float64(f.Hits)
		it.signals["recency"] = round(recency(f, c.p.asOf))
	}
}

// quality is the query-independent factor of a fact's score, in about
// [0.4, 1.6]: (0.5 + 0.5·confidence) · (0.8 + 0.04·importance) ·
// (1 + 0.1·ln(1 + hits)) · recency.
func quality(f *entity.Fact, asOf time.Time) float64 {
	conf := f.Confidence
	if conf == 0 {
		conf = 0.8
	}
	imp := f.Importance
	if imp == 0 {
		imp = 5
	}
	return (0.5 + 0.5*conf) * (0.8 + 0.04*float64(imp)) * (1 + 0.1*math.Log1p(float64(f.Hits))) * recency(f, asOf)
}

// recency is 1 + 0.25·2^(−age/180 days), age measured from valid_from to
// as_of: recent facts get up to a quarter more.
func recency(f *entity.Fact, asOf time.Time) float64 {
	if f.ValidFrom.IsZero() {
		return 1
	}
	age := asOf.Sub(f.ValidFrom).Hours() / 24
	if age < 0 {
		age = 0
	}
	return 1 + 0.25*math.Exp2(-age/180)
}

func (c *candidates) scoreEntities(scale float64, vw VectorWeights) {
	for _, it := range c.entities {
		it.score = it.hit.Score + scale*linkedEntity*it.signals["linked"]
		if r := it.signals["vector_rank"]; r > 0 {
			it.score += scale * vw.Entity * vw.rrf(r)
		}
	}
}

func round(v float64) float64 { return math.Round(v*1e4) / 1e4 }
