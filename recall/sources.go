package recall

import (
	"context"

	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/search"
)

// A source adds candidates, and what it measured of them (their
// features), to c. Retrieval runs the sources in order, each reading what
// the ones before found:
//
//   - linkSource: the entities the question names, the names that
//     resolve to nothing, the facts of the named entities and the words
//     that tell them apart (which the search keeps however common);
//   - bm25Source: the search index's BM25 hits — facts, entities and
//     episodes — and the scale of graph weights;
//   - nameSource: qualifier variants of the names found ("staging
//     database"), names written in lower case, and ambiguous names;
//   - linkedFactSource: the named entities' facts, one hop away;
//   - walkSource: the graph walk from the named entities and the best
//     hits;
//   - vectorSource: the facts, entities and episodes nearest to the
//     question in meaning, when its vector came in time;
//   - episodeSource: conversation expansion (neighbouring turns and
//     sessions) and the mention graph, scored with the episodes' weights.
//
// A source reads the store through tx (and the indexes it holds), never
// scores: scoring is the pure functions' part (score.go, episodes.go).
type source interface {
	add(ctx context.Context, tx graph.Tx, c *candidates) error
}

// sources are the engine's candidate sources, in order.
func (e *Engine) sources() []source {
	return []source{linkSource{e}, bm25Source{e.Index}, nameSource{e}, linkedFactSource{}, walkSource{}, vectorSource{e}, episodeSource{e}}
}

// linkSource links the question's names to entities (before the search:
// the words that tell the named entities' facts apart must not be dropped
// from it as common).
type linkSource struct{ e *Engine }

func (s linkSource) add(ctx context.Context, tx graph.Tx, c *candidates) error {
	if err := c.link(tx); err != nil {
		return err
	}
	if err := c.resolveNames(ctx, tx, s.e); err != nil {
		return err
	}
	var err error
	if c.keep, c.keepFor, err = c.readLinked(tx); err != nil {
		return err
	}
	c.q = newQuestion(lexiconOf(s.e.ontology()), &c.w.Predicate, c.p.a.text, c.linkedNames)
	return nil
}

// searcher is what bm25Source reads of the search index.
type searcher interface {
	Search(ctx context.Context, q search.Query) ([]search.Hit, error)
}

// bm25Source makes candidates of the search's hits. Facts are always
// searched: they seed the walk even when only entities or episodes are
// wanted.
type bm25Source struct{ index searcher }

func (s bm25Source) add(ctx context.Context, tx graph.Tx, c *candidates) error {
	p := c.p
	n := p.candidates
	if n == 0 {
		n = max(candidatesMin, p.limit*candidatesPer)
	}
	var types []string
	if len(p.types) > 0 {
		types = append(append([]string(nil), p.types...), search.TypeFact, search.TypeEntity)
	}
	hits, err := s.index.Search(ctx, search.Query{
		Scope: p.scope, Text: p.a.text, Limit: n, AsOf: p.asOf, KnownAt: p.knownAt, Now: p.now,
		IncludeHistory: p.history, Types: types, Keep: c.keep, KeepFor: c.keepFor,
	})
	if err != nil {
		return err
	}
	var factHits, entityHits []search.Hit
	for _, h := range hits {
		switch h.Type {
		case search.TypeFact:
			factHits = append(factHits, h)
		case search.TypeEntity:
			entityHits = append(entityHits, h)
		case search.TypeEpisode:
			c.episodeHits = append(c.episodeHits, h)
		}
	}
	if len(hits) > 0 {
		c.best = hits[0].Score
		c.scale = max(c.scale, hits[0].Score)
	}
	facts, ents, err := graph.FactsAndEntitiesByID(tx, hitIDs(factHits), hitIDs(entityHits), p.bare())
	if err != nil {
		return err
	}
	c.loadFactHits(factHits, facts)
	c.loadEntityHits(entityHits, ents)
	return nil
}

// nameSource judges the names only the search's entities tell: qualifier
// variants and names written in lower case; then it lists the ambiguous
// ones.
type nameSource struct{ e *Engine }

func (s nameSource) add(ctx context.Context, tx graph.Tx, c *candidates) error {
	if err := c.qualified(ctx, tx, s.e); err != nil {
		return err
	}
	c.findAmbiguous(s.e)
	return nil
}

// linkedFactSource makes candidates of the named entities' facts that
// linkSource read.
type linkedFactSource struct{}

func (linkedFactSource) add(_ context.Context, _ graph.Tx, c *candidates) error {
	c.addLinkedFacts(c.q)
	return nil
}

// walkSource walks the graph (candidates.walk).
type walkSource struct{}

func (walkSource) add(_ context.Context, tx graph.Tx, c *candidates) error { return c.walk(tx) }

// vectorSource adds the vector lists once the question's vector is in (it
// was being embedded meanwhile), and records whether it came in time.
type vectorSource struct{ e *Engine }

func (s vectorSource) add(ctx context.Context, tx graph.Tx, c *candidates) error {
	e := s.e
	if c.p.vec, c.vectors, c.vectorsSkipped = e.vectorFor(ctx, c.p.pending); c.p.vec == nil {
		return nil
	}
	c.q.near = c.nearPredicates(e)
	if err := c.addVectorFacts(tx, e); err != nil {
		return err
	}
	if err := c.addVectorEntities(tx, e); err != nil {
		return err
	}
	if !c.p.wants(search.TypeEpisode) {
		return nil
	}
	// Turns are weighed against the best BM25 score itself, which is far
	// below 1 in a long conversation: on scale the list would outweigh
	// every word of the question.
	var err error
	c.episodeHits, err = e.vectorEpisodeHits(ctx, c, c.episodeHits, c.best)
	return err
}

// episodeSource ranks the episodes: the hits, the turns around them and
// their sessions, and the turns the mention graph reaches.
type episodeSource struct{ e *Engine }

func (s episodeSource) add(ctx context.Context, tx graph.Tx, c *candidates) error {
	if !c.p.wants(search.TypeEpisode) || len(c.episodeHits) == 0 && len(c.linked) == 0 {
		return nil
	}
	return s.e.rankEpisodes(ctx, tx, c, c.episodeHits, c.scale)
}
