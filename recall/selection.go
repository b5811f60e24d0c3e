package recall

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/search"
)

// Nothing is destroyed on a guess. FindFacts selects what a forget or
// purge by query acts on, and judges the names the query mentions the way
// Context does (linking.go): a name memory does not know, one that names
// several entities, or one that only a spelling near it resolves, leaves
// the selection empty and is reported with its candidates, so the caller
// refuses instead of acting on another entity. When every name resolved,
// a fact is selected only if it touches one of the named entities; and
// only if it holds every word of the query the index keeps (the names and
// aliases of the entities it touches count), so "Bob Marley" never
// selects the facts of Bob Lindqvist, alias Bob. A query that selects
// nothing reports the words no record holds as unknown names. And it must match the query about as well as the
// best match does (Limits.ForgetScoreRatio).

// closeToBest is the hits, best first, down to the first that scores
// below ratio × the best hit's score.
func closeToBest(hits []search.Hit, ratio float64) []search.Hit {
	for i, h := range hits {
		if h.Score < ratio*hits[0].Score {
			return hits[:i]
		}
	}
	return hits
}

// FindFacts returns the facts, history included, best first (at most
// limit), that a forget query names, with how its names resolved.
func (e *Engine) FindFacts(ctx context.Context, scope entity.Scope, query string, limit int) (entity.Selection, error) {
	if err := validateScope(scope); err != nil {
		return entity.Selection{}, err
	}
	fe := entity.FieldErrors{}
	validateQuery(fe, query)
	if err := fe.Err(); err != nil {
		return entity.Selection{}, err
	}
	if err := e.Index.CatchUp(ctx, e.Store, scope); err != nil {
		return entity.Selection{}, err
	}
	limit = max(1, min(limit, search.MaxLimit))
	now := e.now()
	p := params{scope: scope, now: now, asOf: now, history: true, types: []string{search.TypeFact}, limit: limit, hops: 1}
	p.a = analyze(query, now)
	var sel entity.Selection
	err := e.Store.View(ctx, scope, func(tx graph.Tx) error {
		c, err := e.retrieve(ctx, tx, p)
		if err != nil {
			return err
		}
		named := c.nameMatches(&sel)
		if len(sel.Unresolved) > 0 || len(sel.Ambiguous) > 0 {
			return nil
		}
		hits, err := e.Index.Search(ctx, search.Query{Scope: scope, Text: query, Limit: limit, Now: now,
			IncludeHistory: true, Types: []string{search.TypeFact}})
		if err != nil {
			return err
		}
		facts, err := graph.FactsByID(tx, hitIDs(hits))
		if err != nil {
			return err
		}
		words := search.Analyze(query)
		for _, h := range closeToBest(hits, c.w.Limits.ForgetScoreRatio) {
			f, ok := facts[h.ID]
			touches := named[f.SubjectID] != nil || f.ObjectID != "" && named[f.ObjectID] != nil
			if ok && (len(named) == 0 || touches) && holdsAll(&f, named, words) {
				sel.FactIDs = append(sel.FactIDs, f.ID)
			}
		}
		if len(sel.FactIDs) == 0 {
			return c.unheard(ctx, e.Index, words, &sel)
		}
		return nil
	})
	return sel, err
}

// unheard lists, when a query selected nothing, the words of it that no
// record of the scope holds, as names memory does not know, with the
// entities the query did name as candidates.
func (c *candidates) unheard(ctx context.Context, idx *search.Index, words []string, sel *entity.Selection) error {
	var near []string
	for _, n := range sel.Resolved {
		near = append(near, n.Entity)
	}
	for _, w := range words {
		hits, err := idx.Holding(ctx, c.p.scope, w, 1)
		if err != nil {
			return err
		}
		if len(hits) == 0 {
			sel.Unresolved = append(sel.Unresolved, entity.NameMatch{Name: w, Candidates: near})
		}
	}
	return nil
}

// nameMatches fills sel with how the question's names resolved and
// returns the ids of the entities they name exactly or by alias. A name
// linked only by a spelling near it is unresolved: its entity is the
// candidate offered, not used.
func (c *candidates) nameMatches(sel *entity.Selection) map[string]*entity.Entity {
	for _, n := range c.unresolved {
		sel.Unresolved = append(sel.Unresolved, entity.NameMatch{Name: n.Name, Candidates: n.Candidates})
	}
	for _, n := range c.ambiguous {
		sel.Ambiguous = append(sel.Ambiguous, entity.NameMatch{Name: n.Name, Candidates: n.Candidates})
	}
	named := map[string]*entity.Entity{}
	grams := make([]string, 0, len(c.gramLinks))
	for g := range c.gramLinks {
		grams = append(grams, g)
	}
	sort.Strings(grams)
	for _, g := range grams {
		ids := c.gramLinks[g]
		if len(ids) != 1 || slices.ContainsFunc(grams, func(o string) bool { return within(g, o) && len(c.gramLinks[o]) > 0 }) {
			continue // ambiguous (listed), or part of a longer name
		}
		it := c.entities[ids[0]]
		if it == nil {
			continue
		}
		if entity.Resolve(g, "", []entity.Entity{*it.entity}).Kind == entity.MatchFuzzy {
			sel.Unresolved = append(sel.Unresolved, entity.NameMatch{Name: c.written(g), Candidates: []string{it.entity.Name}})
			continue
		}
		named[ids[0]] = it.entity
		sel.Resolved = append(sel.Resolved, entity.NameMatch{Name: c.written(g), Entity: it.entity.Name, EntityID: it.entity.ID})
	}
	return named
}

// holdsAll reports whether f holds every one of words (a query's
// analysed terms) in its sentence, its parts, or the names and aliases of
// the named entities it touches.
func holdsAll(f *entity.Fact, named map[string]*entity.Entity, words []string) bool {
	parts := []string{f.Subject, f.Predicate, strings.ReplaceAll(f.Predicate, "_", " "), f.ObjectText(), f.Text}
	for _, id := range []string{f.SubjectID, f.ObjectID} {
		if en := named[id]; id != "" && en != nil {
			parts = append(append(parts, en.Name), en.Aliases...)
		}
	}
	have := map[string]bool{}
	for _, w := range search.Analyze(strings.Join(parts, " ")) {
		have[w] = true
	}
	for _, w := range words {
		if !have[w] {
			return false
		}
	}
	return true
}

// written is how the question wrote the name of n-gram g.
func (c *candidates) written(g string) string {
	for _, m := range c.p.a.names {
		if m.key == g {
			return m.text
		}
	}
	return g
}
