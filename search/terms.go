package search

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/graphmem/graphmem/entity"
)

// commonShare: a query term found in more than this share of the scope's
// documents is left out of the query when a rarer term remains. Its BM25
// weight is small, while reading (and, to score it, decoding) its
// postings costs more than all the other terms together ("person" in a
// scope of people).
const commonShare = 0.1

// commonMin: in small scopes no term is common; leaving terms out only
// pays off when postings are long. (commonMin and commonMax are variables
// for the tests.)
var commonMin uint64 = 2000

// commonMax bounds the postings a query reads in full for a term that a
// rarer one stands beside: in a scope of more than commonMax/commonShare
// documents (100,000), a term found in more than commonMax of them, but
// not in more than commonShare, is frequent — matched only in the
// documents that hold a rarer term of the query, where it scores as it
// would anywhere. A query's cost then stops growing with its scope, while
// a tenth of a million facts ("knows", "lives in") was read and scored for
// every question naming one person, to rank documents that held nothing
// else of the question.
var commonMax uint64 = 10000

// queryTerms are the analysed terms of a query with text, by how the query
// reads them.
type queryTerms struct {
	// rare are matched wherever they occur.
	rare []string
	// frequent are matched in the documents that hold a rare term, and
	// those of Query.Keep also in the facts of Query.KeepFor (see
	// commonMax).
	frequent []string
	// kept are the common terms of Query.Keep, matched in the facts of
	// Query.KeepFor only.
	kept []string
}

// queryTerms analyses text like the indexed fields, removes duplicates and
// terms the scope does not hold, and sorts the rest by how many documents
// hold them: rare, frequent (commonMax) and common (commonShare). Common
// terms are left out unless nothing rarer remains, those of q.Keep
// excepted when q names entities (q.KeepFor).
func (x *Index) queryTerms(ctx context.Context, q Query) (queryTerms, error) {
	if strings.TrimSpace(q.Text) == "" {
		return queryTerms{}, nil
	}
	terms := Analyze(q.Text)
	if len(terms) == 0 {
		return queryTerms{}, nil
	}
	now := q.Now
	if now.IsZero() {
		now = time.Now()
	}
	asOf := q.AsOf
	if asOf.IsZero() {
		asOf = now
	}
	srcs := sources(q, asOf, time.Unix(0, x.flagged.Load()))
	ai, err := x.bi.Advanced()
	if err != nil {
		return queryTerms{}, entity.Wrap(entity.EINTERNAL, "search.Search", err)
	}
	r, err := ai.Reader()
	if err != nil {
		return queryTerms{}, entity.Wrap(entity.EINTERNAL, "search.Search", err)
	}
	defer r.Close()
	count := func(field, t string) (uint64, error) {
		tfr, err := r.TermFieldReader(ctx, []byte(t), field, false, false, false)
		if err != nil {
			return 0, entity.Wrap(entity.EINTERNAL, "search.Search", err)
		}
		defer tfr.Close()
		return tfr.Count(), nil
	}
	size, err := count(fScope, q.Scope)
	if err != nil {
		return queryTerms{}, err
	}
	share := max(uint64(commonShare*float64(size)), commonMin)
	bound := max(min(share, commonMax), commonMin)
	var rare, frequent, common []string
	for _, t := range terms {
		var df uint64
		for _, src := range srcs {
			n, err := count(src.field, scopedTerm(q.Scope, src.kind, t))
			if err != nil {
				return queryTerms{}, err
			}
			df += n
		}
		switch {
		case df == 0:
		case df <= bound:
			rare = append(rare, t)
		case df <= share:
			frequent = append(frequent, t)
		default:
			common = append(common, t)
		}
	}
	if len(rare) == 0 {
		rare, frequent = frequent, nil
	}
	if len(rare) == 0 {
		return queryTerms{rare: common}, nil
	}
	var kept []string
	if len(q.KeepFor) > 0 {
		for _, t := range common {
			if slices.Contains(q.Keep, t) {
				kept = append(kept, t)
			}
		}
	}
	return queryTerms{rare: rare, frequent: frequent, kept: kept}, nil
}

// termClauses are the scoped term queries of a query with text, per
// source: one per rare term; one per frequent term limited to the
// documents that hold a rare one; and one per common kept term limited
// to the facts of q.KeepFor. A limited term is a conjunction that leaps
// through its long postings by the short ones of what limits it, which
// add nothing to the score: a document scores as it would were the term
// not limited.
func termClauses(q Query, ts queryTerms, bd bounds) []query.Query {
	srcs := sources(q, q.AsOf, bd.flagged)
	var withRare []query.Query
	if len(ts.frequent) > 0 {
		for _, src := range srcs {
			for _, t := range ts.rare {
				withRare = append(withRare, scoped(q.Scope, src, t, 0))
			}
		}
	}
	var of []query.Query
	for _, id := range q.KeepFor {
		for _, f := range []string{fSubject, fObject} {
			tq := bleve.NewTermQuery(id)
			tq.SetField(f)
			tq.SetBoost(0)
			of = append(of, tq)
		}
	}
	var should []query.Query
	for _, src := range srcs {
		for _, t := range ts.rare {
			should = append(should, scoped(q.Scope, src, t, src.boost))
		}
		factText := src.field == fText && src.kind != kindEntity
		for _, t := range ts.frequent {
			in := withRare
			if factText && slices.Contains(q.Keep, t) {
				in = append(slices.Clip(withRare), of...)
			}
			should = append(should, bleve.NewConjunctionQuery(scoped(q.Scope, src, t, src.boost), bleve.NewDisjunctionQuery(in...)))
		}
		if !factText || len(of) == 0 {
			continue
		}
		for _, t := range ts.kept {
			should = append(should, bleve.NewConjunctionQuery(scoped(q.Scope, src, t, src.boost), bleve.NewDisjunctionQuery(of...)))
		}
	}
	return should
}

// scoped is the query of term t in src, with boost.
func scoped(scope entity.Scope, src source, t string, boost float64) query.Query {
	tq := bleve.NewTermQuery(scopedTerm(scope, src.kind, t))
	tq.SetField(src.field)
	tq.SetBoost(boost)
	return tq
}
