package recall

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/search"
	"github.com/graphmem/graphmem/vector"
)

// The vector list (embeddings, Engine.Vectors): the records nearest to the
// question in meaning, fused as one more ranked list. A candidate at rank r
// of the list (counting only those visible to the request) adds
// S·w·(k+1)/(k+r) to its score: reciprocal-rank fusion on the BM25 scale,
// so the first vector hit weighs w times the best BM25 hit.
const (
	vectorFacts = 60 // nearest facts read (superseded versions included)
	// vectorEpisodes: nearest episodes fused. 40, not 30: on the dev parts
	// with vectors R@10 0.841 → 0.846 on LoCoMo and 0.858 → 0.861 on the
	// coding-assistant conversations (50: 0.848 and 0.858).
	vectorEpisodes = 40
	// vectorEpisodesRead: nearest episodes read, so that a question naming
	// a speaker finds vectorEpisodes of the speaker's turns
	// (rankVectorEpisodes).
	vectorEpisodesRead = 2 * vectorEpisodes
	vectorEntities     = 10

	// nearPredicatesRead is how many of the ontology's predicates a
	// question is compared with.
	nearPredicatesRead = 100

	// queryVectorTimeout is Engine.VectorTimeout's default.
	queryVectorTimeout = 2 * time.Second
	// The wait for a question's vector, counted from when the request
	// began, is sized to the embedder configured unless Engine.VectorWait
	// sets it: waitMargin × the 95th percentile of the last
	// latencySamples question embeddings, at least minVectorWait and at
	// most maxVectorWait (also the wait until warmSamples calls have been
	// timed), so that a new question has its vector whether the embedder
	// is a local model answering in 20 ms or a hosted API answering in
	// 300 ms, and a context answer costs at most about this much more.
	latencySamples = 64
	warmSamples    = 5
	waitMargin     = 1.5
	minVectorWait  = 10 * time.Millisecond
	maxVectorWait  = time.Second
	// questionsInFlight bounds the questions being embedded at once: past
	// it a request goes without the vector list rather than queue behind
	// a slow embedder.
	questionsInFlight = 4
)

// VectorWeights weigh the vector list: w of each type (zero turns that
// type's list off) and k of the reciprocal rank. They are Weights.Vector.
type VectorWeights struct {
	Fact    float64 `json:"fact"`
	Entity  float64 `json:"entity"`
	Episode float64 `json:"episode"`
	K       float64 `json:"k"`
	// EpisodeJoin lets an episode found by the vectors alone, with no word
	// of the question, join the candidates.
	EpisodeJoin bool `json:"episode_join"`
	// MMR is λ of the maximal marginal relevance the episode list is
	// ordered by (marginal): 1 orders by similarity alone.
	MMR float64 `json:"mmr_lambda"`
}

// DefaultVectorWeights: see VectorWeights. K 20, not 10: on the dev parts
// with vectors R@10 0.846 → 0.848 on LoCoMo and 0.861 → 0.865 on the
// coding-assistant conversations (5: 0.847 / 0.852; 30: 0.838 / 0.864;
// 40: 0.832 / 0.866), the catalog (seed 2) unchanged (hit@1 0.960, block
// 0.975). Episode 0.35, 0.7 and 1.0 and MMR 0.7 and 0.9 each lowered one
// of the two.
var DefaultVectorWeights = VectorWeights{Fact: 0.5, Entity: 0.3, Episode: 0.5, K: 20, EpisodeJoin: true, MMR: 0.8}

func (e *Engine) vectorWeights() VectorWeights { return e.weights().Vector }

// rrf is the weight of rank r (1-based) of the vector list.
func (w VectorWeights) rrf(rank float64) float64 { return (w.K + 1) / (w.K + rank) }

// meaning is the question as it is embedded: without the names of the
// scope's speakers. Whose turn answers is the speaker signal's business
// (rankEpisodes); in the question's embedding the name would weigh as
// much as what is asked about, and every turn of a conversation is
// someone's. The question stays whole if nothing else is left, or if the
// index cannot say.
func (e *Engine) meaning(ctx context.Context, scope entity.Scope, text string) string {
	words := strings.Fields(text)
	bases := make([]string, len(words))
	var names []string
	for i, w := range words {
		b := strings.Trim(w, `.,;:!?"()[]“”`)
		b = strings.TrimSuffix(strings.TrimSuffix(b, "'s"), "’s")
		if r, _ := utf8.DecodeRuneInString(b); unicode.IsUpper(r) {
			bases[i] = entity.Normalize(b)
			names = append(names, bases[i])
		}
	}
	if len(names) == 0 {
		return text
	}
	speakers, err := e.Index.Speakers(ctx, scope, names)
	if err != nil || len(speakers) == 0 {
		return text
	}
	kept := words[:0:0]
	for i, w := range words {
		if bases[i] == "" || !slices.Contains(speakers, bases[i]) {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		return text
	}
	return strings.Join(kept, " ")
}

// Vectors says whether an answer was built with the vector list: "used",
// "skipped" (embeddings are on but the question's vector was not there in
// time; VectorsSkipped says why) or "off" (no embeddings configured).
const (
	VectorsUsed    = "used"
	VectorsSkipped = "skipped"
	VectorsOff     = "off"
)

// Why an answer went without the vector list.
const (
	// SkippedTimeout: the question's vector did not arrive within the wait
	// (it serves the question's next asking).
	SkippedTimeout = "timeout"
	// SkippedBusy: questionsInFlight questions were being embedded already.
	SkippedBusy = "busy"
	// SkippedFailed: the embedder failed.
	SkippedFailed = "failed"
)

// pendingVector is a question's embedding under way: the request runs its
// BM25 search, linking and walk meanwhile and takes the vector when it
// fuses the lists (vectorFor), waiting no later than due.
type pendingVector struct {
	due  time.Time
	done chan struct{}
	vec  []float32 // set before done is closed
	// skipped says why there will be no vector (set before done is
	// closed; SkippedTimeout is vectorFor's to say).
	skipped string
}

// embedQuestion starts embedding the question; nil when embeddings are
// off. A vector that comes too late for this answer is still remembered
// (vector.Index.QueryVector), so the question asked again has it at once.
func (e *Engine) embedQuestion(ctx context.Context, scope entity.Scope, text string) *pendingVector {
	if e.Vectors == nil {
		return nil
	}
	text = e.meaning(ctx, scope, text)
	pv := &pendingVector{due: time.Now().Add(e.QueryVectorWait()), done: make(chan struct{})}
	if v, ok := e.Vectors.CachedQueryVector(text); ok {
		pv.vec = v
		close(pv.done)
		return pv
	}
	e.slotsOnce.Do(func() { e.slots = make(chan struct{}, questionsInFlight) })
	select {
	case e.slots <- struct{}{}:
	default:
		pv.skipped = SkippedBusy
		close(pv.done)
		return pv
	}
	go func() {
		defer func() { <-e.slots }()
		defer close(pv.done)
		// Not the request's context: a vector that arrives after the
		// answer is kept for the next time the question is asked.
		if pv.vec = e.queryVector(context.WithoutCancel(ctx), text); pv.vec == nil {
			pv.skipped = SkippedFailed
		}
	}()
	return pv
}

// vectorFor returns the question's vector if it is there by the deadline,
// nil otherwise, with what the answer says of the vector list (Vectors…
// and Skipped…), and counts which it was (Engine.VectorUse).
func (e *Engine) vectorFor(ctx context.Context, pv *pendingVector) (v []float32, state, skipped string) {
	if pv == nil {
		return nil, VectorsOff, ""
	}
	skipped = SkippedTimeout
	select {
	case <-pv.done:
		v, skipped = pv.vec, pv.skipped
	default:
		t := time.NewTimer(time.Until(pv.due))
		select {
		case <-pv.done:
			v, skipped = pv.vec, pv.skipped
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	if v != nil {
		e.vectorsUsed.Add(1)
		return v, VectorsUsed, ""
	}
	e.vectorsMissed.Add(1)
	return nil, VectorsSkipped, skipped
}

// vectorUse is what the answer says of the vector list.
func (c *candidates) vectorUse() VectorState {
	return VectorState{Vectors: c.vectors, VectorsSkipped: c.vectorsSkipped}
}

// VectorUse counts the answers built with the vector list and those built
// without it because the question's vector was not there in time (or the
// embedder failed), since the engine was made.
func (e *Engine) VectorUse() (used, missed uint64) {
	return e.vectorsUsed.Load(), e.vectorsMissed.Load()
}

// QueryVectorWait is what an answer waits for its question's vector now:
// Engine.VectorWait when set, else the wait sized to the embedder's
// measured latency (see maxVectorWait).
func (e *Engine) QueryVectorWait() time.Duration {
	if e.VectorWait > 0 {
		return e.VectorWait
	}
	return e.latency.wait()
}

// queryVector embeds the question; nil when the embedder fails (logged, at
// most once a minute): recall never fails for want of it. The call is
// timed for QueryVectorWait.
func (e *Engine) queryVector(ctx context.Context, text string) []float32 {
	timeout := e.VectorTimeout
	if timeout <= 0 {
		timeout = queryVectorTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	v, err := e.Vectors.QueryVector(ctx, text)
	if took := time.Since(start); err == nil || ctx.Err() != nil {
		// A call that timed out took at least that long; one that failed
		// at once says nothing of the embedder's speed.
		e.latency.add(took)
	}
	if err != nil {
		if last := lastVectorWarning.Load(); time.Since(time.Unix(0, last)) > time.Minute &&
			lastVectorWarning.CompareAndSwap(last, time.Now().UnixNano()) {
			e.logger().Warn("recall without the vector list: the question could not be embedded", "err", err)
		}
		return nil
	}
	return v
}

// latencies keeps the durations of the last latencySamples question
// embeddings. The zero value is ready; it is safe for concurrent use.
type latencies struct {
	mu   sync.Mutex
	ring [latencySamples]time.Duration
	n    int // calls timed
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.ring[l.n%latencySamples] = d
	l.n++
	l.mu.Unlock()
}

// wait is waitMargin × the 95th percentile of the durations kept, within
// [minVectorWait, maxVectorWait]; maxVectorWait until warmSamples calls
// have been timed.
func (l *latencies) wait() time.Duration {
	l.mu.Lock()
	n := min(l.n, latencySamples)
	if l.n < warmSamples {
		l.mu.Unlock()
		return maxVectorWait
	}
	ds := slices.Clone(l.ring[:n])
	l.mu.Unlock()
	slices.Sort(ds)
	p95 := ds[(n*95+99)/100-1]
	return min(max(time.Duration(waitMargin*float64(p95)), minVectorWait), maxVectorWait)
}

var lastVectorWarning atomic.Int64

// nearPredicates rates the predicates of the linked entities' facts by
// how close in meaning the question is to their descriptions (vector.
// SetPredicates): the nearest 1, the others 1 − (s₁ − s)/NearMargin, at
// least 0 (PredicateWeights). Only those predicates compete: a question
// about a service is never near a predicate services do not have.
func (c *candidates) nearPredicates(e *Engine) map[string]float64 {
	if c.linkedFacts == nil || len(c.linkedFacts.facts) == 0 {
		return nil
	}
	has := map[string]bool{}
	for i := range c.linkedFacts.facts {
		has[c.linkedFacts.facts[i].Predicate] = true
	}
	hits := e.Vectors.Search(vector.PredicateScope, vector.TypePredicate, c.p.vec, nearPredicatesRead)
	return nearOf(hits, has, c.w.Predicate.NearMargin)
}

// nearOf rates the hits among has, nearest first: see nearPredicates.
func nearOf(hits []vector.Hit, has map[string]bool, margin float64) map[string]float64 {
	near := map[string]float64{}
	best := -1.0
	for _, h := range hits {
		if !has[h.ID] {
			continue
		}
		if best < 0 {
			best = h.Similarity
		}
		if d := 1 - (best-h.Similarity)/margin; d > 0 {
			near[h.ID] = d
		}
	}
	return near
}

// addVectorFacts adds the facts nearest to the question, as visible to
// the request, with their rank in the list.
func (c *candidates) addVectorFacts(tx graph.Tx, e *Engine) error {
	hits := e.Vectors.Search(c.p.scope, search.TypeFact, c.p.vec, vectorFacts)
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	found, err := graph.FactsByID(tx, ids)
	if err != nil {
		return err
	}
	rank := 0
	for _, h := range hits {
		f, ok := found[h.ID]
		if !ok {
			continue
		}
		if f, ok = c.p.visible(f); !ok {
			continue
		}
		rank++
		it, ok := c.facts[f.ID]
		if !ok {
			it = &item{typ: search.TypeFact, id: f.ID, fact: &f}
			c.facts[f.ID] = it
		}
		it.ff.Vector, it.ff.VectorRank = h.Similarity, rank
	}
	return nil
}

// addVectorEntities adds the entities nearest to the question.
func (c *candidates) addVectorEntities(tx graph.Tx, e *Engine) error {
	hits := e.Vectors.Search(c.p.scope, search.TypeEntity, c.p.vec, vectorEntities)
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	found, err := graph.EntitiesByID(tx, ids)
	if err != nil {
		return err
	}
	rank := 0
	for _, h := range hits {
		en, ok := found[h.ID]
		if !ok || en.ForgottenAt != nil {
			continue
		}
		rank++
		it, ok := c.entities[en.ID]
		if !ok {
			it = &item{typ: search.TypeEntity, id: en.ID, entity: &en}
			c.entities[en.ID] = it
		}
		it.ef.Vector, it.ef.VectorRank = h.Similarity, rank
	}
	return nil
}

// vectorEpisodeHits finds the episodes nearest to the question: each
// gains S·w·rrf(rank), S the best BM25 score of the query (best), kept in
// c.vectorEpisodes and added to its BM25 score by rankEpisodes. An episode
// only the vectors found joins the hits with a BM25 score of 0 when
// EpisodeJoin is set (the index filters it for the request like any hit).
func (e *Engine) vectorEpisodeHits(ctx context.Context, c *candidates, hits []search.Hit, best float64) ([]search.Hit, error) {
	p := &c.p
	w := e.vectorWeights()
	if w.Episode == 0 {
		return hits, nil
	}
	near := e.Vectors.Search(p.scope, search.TypeEpisode, p.vec, vectorEpisodesRead)
	if len(near) == 0 {
		return hits, nil
	}
	ids := make([]string, len(near))
	for i, h := range near {
		ids[i] = h.ID
	}
	found, err := e.Index.Search(ctx, search.Query{Scope: p.scope, IDs: ids, Types: []string{search.TypeEpisode},
		Limit: len(ids), AsOf: p.asOf, KnownAt: p.knownAt, Now: p.now, IncludeHistory: p.history})
	if err != nil {
		return nil, err
	}
	visible := make(map[string]search.Hit, len(found))
	for _, h := range found {
		visible[h.ID] = h
	}
	matched := make(map[string]bool, len(hits))
	for _, h := range hits {
		matched[h.ID] = true
	}
	var list []vector.Hit
	for _, n := range near {
		if _, ok := visible[n.ID]; ok {
			list = append(list, n)
		}
	}
	ranks := rankVectorEpisodes(list, visible, c.speakerKeys(),
		func(ids []string) [][]float64 { return e.Vectors.Pairwise(p.scope, search.TypeEpisode, ids) }, w.MMR)
	c.vectorEpisodes = make(map[string]vectorHit, len(ranks))
	for _, n := range list {
		rank := ranks[n.ID]
		if rank == 0 {
			continue
		}
		if !matched[n.ID] {
			if !w.EpisodeJoin {
				continue
			}
			h := visible[n.ID]
			h.Score = 0
			hits = append(hits, h)
		}
		c.vectorEpisodes[n.ID] = vectorHit{add: best * w.Episode * w.rrf(float64(rank)), rank: rank, sim: n.Similarity}
	}
	return hits, nil
}

// vectorHit is what the vector list adds to an episode.
type vectorHit struct {
	add  float64
	rank int
	sim  float64
}

// rankVectorEpisodes ranks the visible episodes of the vector list
// (nearest first), up to vectorEpisodes of them. When the question names
// a speaker of some of them, the named speakers' turns are ranked among
// themselves: the list reaches twice as deep into the turns of the person
// asked about ("What activities does Melanie partake in?"), while every
// other turn keeps its place in the whole list. The turns so ranked (all
// of them when no speaker is named) are ordered by maximal marginal
// relevance: a turn that says what a better one already said gives way
// to one that says something else, so that a question whose answer is
// spread over many turns ("pottery, camping, painting") reaches more of
// them. pairwise gives the turns' similarities to one another.
func rankVectorEpisodes(list []vector.Hit, visible map[string]search.Hit, keys map[string]bool,
	pairwise func(ids []string) [][]float64, lambda float64) map[string]int {
	bySpeaker := func(id string) bool { return speakerNamed(visible[id].Speaker, keys) }
	named := slices.ContainsFunc(list, func(n vector.Hit) bool { return bySpeaker(n.ID) })
	ranks := map[string]int{}
	var diverse []vector.Hit
	for i, n := range list {
		switch {
		case !named || bySpeaker(n.ID):
			diverse = append(diverse, n)
		case i < vectorEpisodes:
			ranks[n.ID] = i + 1
		}
	}
	for i, id := range marginal(diverse, pairwise, vectorEpisodes, lambda) {
		ranks[id] = i + 1
	}
	return ranks
}

// marginal picks up to k of list (nearest first) by maximal marginal
// relevance: each next pick the hit of highest
// λ·similarity − (1−λ)·(its highest similarity to a hit picked before).
func marginal(list []vector.Hit, pairwise func(ids []string) [][]float64, k int, lambda float64) []string {
	ids := make([]string, len(list))
	for i, n := range list {
		ids[i] = n.ID
	}
	if len(list) < 2 {
		return ids[:min(k, len(ids))]
	}
	sims := pairwise(ids)
	out := make([]string, 0, min(k, len(list)))
	redundancy := make([]float64, len(list))
	taken := make([]bool, len(list))
	for len(out) < cap(out) {
		best := -1
		var bestV float64
		for i, n := range list {
			if taken[i] {
				continue
			}
			if v := lambda*n.Similarity - (1-lambda)*redundancy[i]; best < 0 || v > bestV {
				best, bestV = i, v
			}
		}
		taken[best] = true
		out = append(out, ids[best])
		for i := range list {
			redundancy[i] = max(redundancy[i], sims[best][i])
		}
	}
	return out
}
