package recall

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/ontology"
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

// Limits of retrieval: how much is read, not how it is weighed (Weights).
const (
	candidatesMin = 100 // BM25 candidates fetched, at least
	candidatesPer = 10  // … and this many per requested result

	fanOut     = 15 // facts kept per entity and hop
	fanOutScan = 20 // facts read per entity (current and newest first), before the policy
	maxSeeds   = 8  // entities a hop expands
)

// item is one ranked candidate: what the sources measured of it (ff for
// a fact, ef for an entity), its score and the explanation of the score
// (whose value is the score).
type item struct {
	typ     string
	id      string
	score   float64
	ff      factFeatures
	ef      entityFeatures
	explain *Explanation

	fact    *entity.Fact
	entity  *entity.Entity
	episode *entity.Episode
	hit     search.Hit
}

// candidates is everything one retrieval found.
type candidates struct {
	p        params
	w        *Weights
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

	// gramLinks are the entities each n-gram linked; unknown the names
	// the question mentions that resolved to nothing, unresolved and
	// ambiguous what Search and Context report of them (linking.go).
	gramLinks  map[string][]string
	unknown    []unknownName
	unresolved []NameLink
	ambiguous  []NameLink
	// vectors and vectorsSkipped say whether the vector list was used
	// (vectorFor).
	vectors, vectorsSkipped string

	// What the sources pass on (sources.go): the query terms the search
	// keeps however common (keep, for the entities keepFor), the episodes
	// the search found, the best BM25 score (best, 1 when nothing
	// matched) and what one unit of graph weight is worth (scale: the
	// best score, at least 1, so graph-only facts rank among textual
	// matches).
	keep, keepFor []string
	episodeHits   []search.Hit
	best, scale   float64
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

// bare says the request reads no claims and revisions of facts: only
// known_at does (entity.Fact.AsKnownAt).
func (p *params) bare() bool { return p.knownAt.IsZero() }

// around selects up to limit facts of an entity for the request: the store
// filters by validity and status, except for a known_at request, whose
// validity and status differ from the stored ones (visible decides then).
func (p *params) around(limit int) graph.Around {
	a := graph.Around{Limit: limit}
	if p.bare() {
		a.Bare = true
		a.Now = p.now
		if !p.history {
			a.AsOf = p.asOf
		}
	}
	return a
}

// retrieve runs the candidate sources (sources.go), then scores every
// candidate, settles the orderings no weight may break and keeps unknown
// names from being answered with other entities' facts, reading the store
// through tx.
func (e *Engine) retrieve(ctx context.Context, tx graph.Tx, p params) (*candidates, error) {
	c := &candidates{p: p, w: e.weights(), facts: map[string]*item{}, entities: map[string]*item{}, episodes: map[string]*item{},
		linked: map[string]entity.MatchKind{}, gramLinks: map[string][]string{}, scale: 1, best: 1}
	for _, s := range e.sources() {
		if err := s.add(ctx, tx, c); err != nil {
			return nil, err
		}
	}
	c.describeFacts(e.ontology())
	c.scoreFacts(c.scale)
	c.scoreEntities(c.scale)
	c.settle()
	c.withoutOthers()
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
			ff: factFeatures{BM25: h.Score, BM25Rank: i + 1}}
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
			it.ef.BM25, it.ef.BM25Rank = h.Score, i+1
			continue
		}
		c.entities[en.ID] = &item{typ: search.TypeEntity, id: en.ID, entity: &en, hit: h,
			ef: entityFeatures{BM25: h.Score, BM25Rank: i + 1}}
	}
}

// link finds the entities the query (and the focus list) names: exact
// and alias matches of its n-grams, names stored joined, variants of
// one-word names, then fuzzy matches of long n-grams (entity.Resolve
// decides, so people are never matched fuzzily).
func (c *candidates) link(tx graph.Tx) error {
	grams := c.p.a.grams
	for _, f := range c.p.focus {
		grams = append(grams, entity.Normalize(f))
	}
	if len(grams) == 0 {
		return nil
	}
	named, shorter := c.variantNames()
	joinedOf, joinedKeys := joinedForms(grams)
	byKey, err := tx.EntitiesByKey(append(append(slices.Clip(grams), shorter...), joinedKeys...))
	if err != nil {
		return err
	}
	matched := c.linkExact(grams, byKey)
	c.linkJoined(joinedOf, byKey, matched)
	if err := c.linkVariants(tx, named, byKey, matched); err != nil {
		return err
	}
	return c.linkFuzzy(tx, grams, matched)
}

// variantNames are the names of the question shaped like one word, which
// may be a variant of a stored name (isVariantOf), and their shorter
// forms, read with the n-grams (a longer form is read by a prefix scan).
func (c *candidates) variantNames() (named, shorter []string) {
	for _, m := range c.p.a.names {
		if variantShaped(m.key) {
			named = append(named, m.key)
			shorter = append(shorter, shorterForms(m.key)...)
		}
	}
	return named, shorter
}

// joinedForms are the n-grams of several words written joined, as a name
// may be stored ("booking service" for "BookingService"): the n-gram of
// each joined form, and the forms in the order of the n-grams.
func joinedForms(grams []string) (map[string]string, []string) {
	joinedOf := map[string]string{}
	var keys []string
	for _, g := range grams {
		if j := joined(g); j != "" {
			if _, ok := joinedOf[j]; !ok && !slices.Contains(grams, j) {
				joinedOf[j] = g
				keys = append(keys, j)
			}
		}
	}
	return joinedOf, keys
}

// linkExact links the entities whose name or alias an n-gram is
// (byKey: the entities of each key) and returns the n-grams matched.
func (c *candidates) linkExact(grams []string, byKey map[string][]entity.Entity) map[string]bool {
	matched := map[string]bool{}
	for _, g := range grams {
		for _, en := range byKey[g] {
			m := entity.Resolve(g, "", []entity.Entity{en})
			if m.Kind == entity.MatchNone {
				continue
			}
			c.addLinked(en, m.Kind, g)
			matched[g] = true
		}
	}
	return matched
}

// linkJoined links, for an n-gram not matched, the entities stored under
// its joined form (joinedOf: the n-gram of each form), fuzzily.
func (c *candidates) linkJoined(joinedOf map[string]string, byKey map[string][]entity.Entity, matched map[string]bool) {
	for _, j := range slices.Sorted(maps.Keys(joinedOf)) {
		g := joinedOf[j]
		for _, en := range byKey[j] {
			if !matched[g] && slices.Contains(en.Keys(), j) {
				c.addLinked(en, entity.MatchFuzzy, g)
				matched[g] = true
			}
		}
	}
}

// linkVariants links, for each one-word name not matched, the stored
// names it is a variant of: its shorter forms (read with the n-grams)
// and the longer names it begins (a prefix scan).
func (c *candidates) linkVariants(tx graph.Tx, named []string, byKey map[string][]entity.Entity, matched map[string]bool) error {
	named = slices.DeleteFunc(named, func(g string) bool { return matched[g] })
	if len(named) == 0 {
		return nil
	}
	longer, err := graph.EntitiesByPrefixes(tx, named, variantScan)
	if err != nil {
		return err
	}
	for _, g := range named {
		var cands []entity.Entity
		for _, k := range shorterForms(g) {
			cands = append(cands, byKey[k]...)
		}
		for _, en := range append(cands, longer[g]...) {
			if isVariantOf(g, en) {
				c.addLinked(en, entity.MatchFuzzy, g)
				matched[g] = true
			}
		}
	}
	return nil
}

// linkFuzzy links, for each n-gram long enough and not matched, the entity
// it writes joined or with a typing error; the prefix scans
// (entity.FuzzyPrefix) in one batch.
func (c *candidates) linkFuzzy(tx graph.Tx, grams []string, matched map[string]bool) error {
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
		if en := joinedMatch(g, cands); en != nil {
			c.addLinked(*en, entity.MatchFuzzy, g)
		} else if m := entity.Lookup(g, cands); m.Kind == entity.MatchFuzzy {
			c.addLinked(*m.Entity, m.Kind, g)
		}
	}
	return nil
}

// joined returns the n-gram g of several words written as one
// ("bookingservice" for "booking service"), or "" when g is one word or
// holds a word of no letter (numbers tell versions apart).
func joined(g string) string {
	ws := strings.Fields(g)
	if len(ws) < 2 {
		return ""
	}
	for _, w := range ws {
		if questionWords[w] || strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) || isCJK(r) }) >= 0 {
			return ""
		}
	}
	return strings.Join(ws, "")
}

// joinedMatch returns the candidate one of whose names of several words
// the one-word n-gram g writes joined ("Bookingservice" for
// "booking-service"), or nil.
func joinedMatch(g string, cands []entity.Entity) *entity.Entity {
	if strings.Contains(g, " ") {
		return nil
	}
	for i := range cands {
		for _, k := range cands[i].Keys() {
			if joined(k) == g {
				return &cands[i]
			}
		}
	}
	return nil
}

// addLinked links en, named by the n-gram g as kind says.
func (c *candidates) addLinked(en entity.Entity, kind entity.MatchKind, g string) {
	if en.ForgottenAt != nil {
		return // forgotten: off every read path
	}
	if !slices.Contains(c.gramLinks[g], en.ID) {
		c.gramLinks[g] = append(c.gramLinks[g], en.ID)
	}
	if old, ok := c.linked[en.ID]; ok && old != entity.MatchFuzzy {
		return
	}
	c.linked[en.ID] = kind
	it, ok := c.entities[en.ID]
	if !ok {
		it = &item{typ: search.TypeEntity, id: en.ID, entity: &en}
		c.entities[en.ID] = it
	}
	it.ef.Link = kind
}

// walk explores the graph breadth-first (graph.Walk) from the seed
// entities — those the query names, then the endpoints of the best fact
// hits — over facts visible to the request, up to p.hops hops. The store
// reads each entity's current and newest facts first; of those, the walk
// takes the most important and recent fanOut (selectFacts). Beyond the
// first hop, hubs — entities with more facts than the cap — are not
// expanded. Each fact records the hop and the kind of seed it was
// reached from (factFeatures.Reach).
func (c *candidates) walk(tx graph.Tx) error {
	from := map[string]seed{}
	var seeds []string
	for id, k := range c.linked {
		seeds = append(seeds, id)
		from[id] = seedOf(k)
	}
	sort.Slice(seeds, func(i, j int) bool {
		if from[seeds[i]] != from[seeds[j]] {
			return from[seeds[i]] < from[seeds[j]]
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
			if _, ok := from[id]; id != "" && !ok && len(seeds) < maxSeeds {
				from[id] = seedHit
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
		it, ok := c.facts[f.ID]
		if !ok {
			it = &item{typ: search.TypeFact, id: f.ID, fact: &f}
			c.facts[f.ID] = it
		}
		sk := from[s.From]
		it.ff.Reach.add(s.Hop, sk)
		for _, id := range []string{f.SubjectID, f.ObjectID} {
			if _, ok := from[id]; id != "" && !ok {
				from[id] = sk
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

// describeFacts fills in what the fact candidates' scores read of the
// question and the facts themselves: which side of each fact the query
// names, how well it names the predicate, and the fact's quality.
func (c *candidates) describeFacts(o *ontology.Ontology) {
	why := c.p.a.intent.Why
	for _, it := range c.facts {
		f, ff := it.fact, &it.ff
		_, ff.SubjectNamed = c.linked[f.SubjectID]
		_, ff.ObjectNamed = c.linked[f.ObjectID]
		ff.ObjectNamed = ff.ObjectNamed && f.ObjectID != ""
		ff.ObjectAfter = ff.ObjectNamed && c.namedAfter(c.q, f.Predicate, f.ObjectID)
		ff.SubjectAfter = ff.SubjectNamed && c.namedAfter(c.q, f.Predicate, f.SubjectID)
		ff.Predicate = c.q.match(f.Predicate)
		ff.Confidence, ff.Importance, ff.Hits = f.Confidence, f.Importance, f.Hits
		if ff.Dated = !f.ValidFrom.IsZero(); ff.Dated {
			ff.AgeDays = c.p.asOf.Sub(f.ValidFrom).Hours() / 24
		}
		ff.Valid = f.ValidAt(c.p.asOf)
		ff.WhyDecision = why && o.IsDecision(f.Predicate)
	}
}

// scoreFacts scores every fact candidate (scoreFact); scale is the best
// BM25 score of the query, at least 1.
func (c *candidates) scoreFacts(scale float64) {
	var n nodes
	for _, it := range c.facts {
		it.explain = scoreFact(&n, c.w, scale, &it.ff)
		it.score = it.explain.Value
	}
}

// scoreEntities scores every entity candidate (scoreEntity).
func (c *candidates) scoreEntities(scale float64) {
	var n nodes
	for _, it := range c.entities {
		it.explain = scoreEntity(&n, c.w, scale, &it.ef)
		it.score = it.explain.Value
	}
}
