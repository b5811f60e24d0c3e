package search

import (
	"context"

	"github.com/blevesearch/bleve/v2"

	"github.com/graphmem/graphmem/entity"
)

// Counts are how many records of each kind a scope holds, as the index
// knows them: facts that are forgotten or archived are not counted.
type Counts struct {
	Facts    uint64
	Entities uint64
	Episodes uint64
}

// Counts counts the records of scope from the index's postings, without
// reading any document, so it stays fast at any size. It trails the store
// by what the index has not applied yet (CatchUp first for local writes).
func (x *Index) Counts(ctx context.Context, scope entity.Scope) (Counts, error) {
	count := func(typ string, hidden ...string) (uint64, error) {
		q := bleve.NewBooleanQuery()
		q.AddMust(term(fScope, scope), term(fType, typ))
		for _, f := range hidden {
			q.AddMustNot(term(fFlags, f))
		}
		req := bleve.NewSearchRequestOptions(q, 0, 0, false)
		req.Score = "none"
		res, err := x.run(ctx, "search.Counts", req)
		if err != nil {
			return 0, err
		}
		return res.Total, nil
	}
	var c Counts
	var err error
	if c.Facts, err = count(TypeFact, flagForgotten, flagArchived); err != nil {
		return Counts{}, err
	}
	if c.Entities, err = count(TypeEntity); err != nil {
		return Counts{}, err
	}
	if c.Episodes, err = count(TypeEpisode); err != nil {
		return Counts{}, err
	}
	return c, nil
}
