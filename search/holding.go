package search

import (
	"context"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/graphmem/graphmem/entity"
)

// Holding returns up to limit records of scope whose text holds every term
// of text (as Analyze sees it): entities by name, alias or summary, facts
// current or past (never retracted, forgotten or archived ones, which are
// off every read path), episodes by what was said. Unscored, in no
// particular order; none when text has no term. The index keeps no
// positions: whether the terms stand together, as a name, is for the
// caller to check in the records themselves.
func (x *Index) Holding(ctx context.Context, scope entity.Scope, text string, limit int) ([]Hit, error) {
	if scope == "" {
		return nil, entity.Errorf(entity.EINVALID, "search: scope is required")
	}
	terms := Analyze(text)
	if len(terms) == 0 {
		return nil, nil
	}
	srcs := []source{{kindEntity, fNames, 1}, {kindEntity, fText, 1}, {kindFact, fText, 1}, {kindHistory, fText, 1},
		{kindEpisode, fContent, 1}}
	all := make([]query.Query, 0, len(terms))
	for _, t := range terms {
		either := make([]query.Query, len(srcs))
		for i, s := range srcs {
			either[i] = term(s.field, scopedTerm(scope, s.kind, t))
		}
		all = append(all, bleve.NewDisjunctionQuery(either...))
	}
	req := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(all...), max(1, min(limit, MaxLimit)), 0, false)
	req.Score = "none"
	res, err := x.run(ctx, "search.Holding", req)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		hits = append(hits, hitOf(scope, h))
	}
	return hits, nil
}
