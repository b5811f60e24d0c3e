package search

import (
	"cmp"
	"container/heap"
	"context"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/graphmem/graphmem/entity"
)

// checkDoneEvery is how many matches topScored scores between two looks at
// its context.
const checkDoneEvery = 1024

// topScored runs q for the limit best scores, equal scores in id order,
// not in the order of the index's segments, which their background merging
// changes. It walks Bleve's searcher itself rather than asking Bleve's
// collector: that collector reads the id of every match once the id is a
// sort key (a look-up in the segment's stored fields each), and equal
// scores at the cut are the rule, not the exception — a thousand facts of
// one predicate, all of one length, score alike. Here a match's id is read
// only when its score ties with one of the best kept so far, in one pass.
func (x *Index) topScored(ctx context.Context, q query.Query, limit int) (search.DocumentMatchCollection, error) {
	ai, err := x.bi.Advanced()
	if err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, "search.Search", err)
	}
	r, err := ai.Reader()
	if err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, "search.Search", err)
	}
	defer r.Close()
	// Bleve's own search tells its searchers the scoring model this way.
	sctx := context.WithValue(ctx, search.GetScoringModelCallbackKey, search.GetScoringModelCallbackFn(bm25Model))
	s, err := q.Searcher(sctx, r, x.bi.Mapping(), search.SearcherOptions{})
	if err != nil {
		return nil, x.searchErr(ctx, err)
	}
	defer s.Close()
	t := &best{limit: limit, reader: r}
	sc := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(s.DocumentMatchPoolSize()+limit+1, 0)}
	for n := 1; ; n++ {
		if n%checkDoneEvery == 0 {
			if err := ctxErr(ctx, "search.Search"); err != nil {
				return nil, err
			}
		}
		d, err := s.Next(sc)
		if err != nil {
			return nil, x.searchErr(ctx, err)
		}
		if d == nil {
			break
		}
		t.add(sc, d)
		if t.err != nil {
			return nil, entity.Wrap(entity.EINTERNAL, "search.Search", t.err)
		}
	}
	return t.sorted()
}

func bm25Model() string { return index.BM25Scoring }

// searchErr is EUNAVAILABLE when ctx ended, EINTERNAL otherwise.
func (x *Index) searchErr(ctx context.Context, err error) error {
	if cerr := ctxErr(ctx, "search.Search"); cerr != nil {
		return cerr
	}
	return entity.Wrap(entity.EINTERNAL, "search.Search", err)
}

// best keeps the limit best matches: a heap whose root is the worst kept,
// by score, then by id (a greater id is worse). Ids are read from the
// index only to compare equal scores.
type best struct {
	limit  int
	reader index.IndexReader
	kept   []*search.DocumentMatch
	err    error
}

// add offers d; a match not kept goes back to the pool.
func (b *best) add(sc *search.SearchContext, d *search.DocumentMatch) {
	if len(b.kept) < b.limit {
		heap.Push(b, d)
		return
	}
	if !b.worse(b.kept[0], d) {
		sc.DocumentMatchPool.Put(d)
		return
	}
	sc.DocumentMatchPool.Put(b.kept[0])
	b.kept[0] = d
	heap.Fix(b, 0)
}

// id reads d's id once.
func (b *best) id(d *search.DocumentMatch) string {
	if d.ID == "" && b.err == nil {
		d.ID, b.err = b.reader.ExternalID(d.IndexInternalID)
	}
	return d.ID
}

// worse reports whether a ranks below c.
func (b *best) worse(a, c *search.DocumentMatch) bool {
	if a.Score != c.Score {
		return a.Score < c.Score
	}
	return b.id(a) > b.id(c)
}

func (b *best) Less(i, j int) bool { return b.worse(b.kept[i], b.kept[j]) }
func (b *best) Len() int           { return len(b.kept) }
func (b *best) Swap(i, j int)      { b.kept[i], b.kept[j] = b.kept[j], b.kept[i] }
func (b *best) Push(v any)         { b.kept = append(b.kept, v.(*search.DocumentMatch)) }
func (b *best) Pop() any {
	v := b.kept[len(b.kept)-1]
	b.kept = b.kept[:len(b.kept)-1]
	return v
}

// sorted returns the kept matches, best first, each with its id.
func (b *best) sorted() (search.DocumentMatchCollection, error) {
	for _, d := range b.kept {
		b.id(d)
	}
	if b.err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, "search.Search", b.err)
	}
	out := slices.Clone(b.kept)
	slices.SortFunc(out, func(a, c *search.DocumentMatch) int {
		if a.Score != c.Score {
			return cmp.Compare(c.Score, a.Score)
		}
		return strings.Compare(a.ID, c.ID)
	})
	return out, nil
}
