package search

import (
	"context"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/graphmem/graphmem/entity"
)

// Field boosts: a word that names an entity says more than one in a fact's
// text, which says more than one in an episode's content.
const (
	BoostNames   = 3.0
	BoostText    = 2.0
	BoostContent = 1.0
)

// MaxLimit bounds Query.Limit.
const MaxLimit = 2000

// Query is one search.
type Query struct {
	Scope entity.Scope
	// Text is matched against names, fact text and episode content. Empty
	// matches every document that passes the filters, newest first.
	Text  string
	Limit int // 20 when 0, at most MaxLimit
	// AsOf is the valid time (default Now): outside history mode only
	// facts valid then, and episodes that had happened by then, match.
	AsOf time.Time
	// KnownAt, when set, is a transaction time in the past: records
	// recorded after it are left out and facts retracted after it are
	// kept. Validity is then not filtered here, because the interval
	// believed at KnownAt may differ from the current one; the caller
	// checks it with entity.Fact.AsKnownAt.
	KnownAt time.Time
	// Now is the clock for TTLs (default time.Now).
	Now time.Time
	// IncludeHistory keeps facts that are not valid at AsOf (superseded,
	// ended, future). Retracted, forgotten, TTL-expired and archived facts
	// never match.
	IncludeHistory bool
	// Types restricts the document types (TypeFact, TypeEntity,
	// TypeEpisode); empty means all.
	Types []string
	// Session restricts to the episodes of one session (see SessionOf).
	Session string
	// Predicates restricts facts to these predicates.
	Predicates []string
	// From and To, when set, restrict to documents whose time (an
	// episode's reference time, a fact's valid_from) is in [From, To).
	From, To time.Time
	// SortByTime orders by time, oldest first, instead of by score.
	SortByTime bool
}

// Hit is one matching document.
type Hit struct {
	Type  string       `json:"type"`
	ID    string       `json:"id"`
	Scope entity.Scope `json:"scope"`
	Score float64      `json:"score"`
	// Time is an episode's reference time or a fact's valid_from.
	Time time.Time `json:"time"`
	// Session and Speaker (normalised) of an episode.
	Session string `json:"session,omitempty"`
	Speaker string `json:"speaker,omitempty"`
	// Tags of an episode (TagTime).
	Tags []string `json:"tags,omitempty"`
}

var hitFields = []string{fTime, fSession, fSpeaker, fTags}

// Search runs q. Returns EINVALID if q has no scope.
func (x *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	if q.Scope == "" {
		return nil, entity.Errorf(entity.EINVALID, "search: scope is required")
	}
	if q.Limit <= 0 {
		q.Limit = 20
	}
	q.Limit = min(q.Limit, MaxLimit)
	terms, err := x.queryTerms(ctx, q.Text)
	if err != nil {
		return nil, err
	}
	req := bleve.NewSearchRequestOptions(buildQuery(q, terms, time.Unix(0, x.flagged.Load())), q.Limit, 0, false)
	req.Fields = hitFields
	if q.SortByTime || strings.TrimSpace(q.Text) == "" {
		req.Score = "none"
		if q.SortByTime {
			req.SortBy([]string{fTime, "_id"})
		} else {
			req.SortBy([]string{"-" + fTime, "_id"})
		}
	}
	res, err := x.bi.SearchInContext(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, entity.Wrap(entity.EUNAVAILABLE, "search.Search", ctx.Err())
		}
		return nil, entity.Wrap(entity.EINTERNAL, "search.Search", err)
	}
	hits := make([]Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		hits = append(hits, hitOf(q.Scope, h))
	}
	return hits, nil
}

func hitOf(scope entity.Scope, d *search.DocumentMatch) Hit {
	s := func(k string) string {
		v, _ := d.Fields[k].(string)
		return v
	}
	typ, _, id := parseDocID(d.ID)
	h := Hit{Type: typ, ID: id, Scope: scope, Score: d.Score, Session: s(fSession), Speaker: s(fSpeaker)}
	switch v := d.Fields[fTags].(type) {
	case string:
		h.Tags = []string{v}
	case []any:
		for _, t := range v {
			if s, ok := t.(string); ok {
				h.Tags = append(h.Tags, s)
			}
		}
	}
	if v, ok := d.Fields[fTime].(float64); ok {
		h.Time = fromMillis(v)
	}
	return h
}

func term(field, v string) query.Query {
	t := bleve.NewTermQuery(v)
	t.SetField(field)
	return t
}

func anyTerm(field string, vs []string) query.Query {
	if len(vs) == 1 {
		return term(field, vs[0])
	}
	qs := make([]query.Query, len(vs))
	for i, v := range vs {
		qs[i] = term(field, v)
	}
	return bleve.NewDisjunctionQuery(qs...)
}

// numRange matches field values in [lo, hi) (nil bounds are open).
func numRange(field string, lo, hi *float64, incHi bool) query.Query {
	incLo := true
	r := bleve.NewNumericRangeInclusiveQuery(lo, hi, &incLo, &incHi)
	r.SetField(field)
	return r
}

func ptr(v float64) *float64 { return &v }

// buildQuery makes the Bleve query. The text drives the search (a
// document must hold one of the terms), and the filters — scope first, then type, session, predicate, time — are
// checked only on those candidates, so a scope holding most of the index
// is never scanned document by document. Without text, the filters drive.
// Status exclusions scan the rare side of each range (see minTime).
func buildQuery(q Query, terms []string, flagged time.Time) query.Query {
	now := q.Now
	if now.IsZero() {
		now = time.Now()
	}
	asOf := q.AsOf
	if asOf.IsZero() {
		asOf = now
	}
	// Scope first: every other clause only ever sees this scope's documents.
	filters := []query.Query{term(fScope, q.Scope)}
	if len(q.Types) > 0 {
		filters = append(filters, anyTerm(fType, q.Types))
	}
	if q.Session != "" {
		filters = append(filters, term(fSession, q.Session))
	}
	if len(q.Predicates) > 0 {
		filters = append(filters, anyTerm(fPredicate, q.Predicates))
	}
	if !q.From.IsZero() || !q.To.IsZero() {
		var lo, hi *float64
		if !q.From.IsZero() {
			lo = ptr(millis(q.From))
		}
		if !q.To.IsZero() {
			hi = ptr(millis(q.To))
		}
		filters = append(filters, numRange(fTime, lo, hi, false))
	}
	// Exclusions scan the rare side of each range (see minTime).
	excl := []query.Query{term(fFlags, flagForgotten), term(fFlags, flagArchived),
		numRange(fExpiresAt, nil, ptr(millis(now)), true)}
	known := now
	if !q.KnownAt.IsZero() {
		known = q.KnownAt
		excl = append(excl, numRange(fRecordedAt, ptr(millis(known)+1), nil, false))
	}
	excl = append(excl, numRange(fExpiredAt, nil, ptr(millis(known)), true))
	if !q.IncludeHistory && q.KnownAt.IsZero() {
		excl = append(excl, numRange(fValidFrom, ptr(millis(asOf)+1), nil, false))
		if asOf.Before(flagged) {
			excl = append(excl, numRange(fValidTo, nil, ptr(millis(asOf)), true))
		} else {
			// Facts that had ended when indexed: one term instead of a range
			// over every end time in the scope. A fact ending after it was
			// indexed still matches until its next change; recall re-checks
			// validity against the store.
			excl = append(excl, term(fFlags, flagEnded))
		}
	}
	// The filter runs without scoring, so its postings are skipped through
	// rather than decoded one by one.
	filter := bleve.NewBooleanQuery()
	filter.AddMust(filters...)
	filter.AddMustNot(excl...)
	switch {
	case strings.TrimSpace(q.Text) == "":
		return filter
	case len(terms) == 0:
		// Only stop words, or words no document holds.
		return bleve.NewMatchNoneQuery()
	}
	b := bleve.NewBooleanQuery()
	b.AddMust(textQuery(terms))
	b.AddFilter(filter)
	return b
}

// textQuery matches any of terms in any text field, with the field boosts.
func textQuery(terms []string) query.Query {
	var qs []query.Query
	for _, f := range []struct {
		name  string
		boost float64
	}{{fNames, BoostNames}, {fText, BoostText}, {fContent, BoostContent}} {
		for _, t := range terms {
			tq := bleve.NewTermQuery(t)
			tq.SetField(f.name)
			tq.SetBoost(f.boost)
			qs = append(qs, tq)
		}
	}
	return bleve.NewDisjunctionQuery(qs...)
}

// commonShare: a query term found in more than this share of the
// documents is left out of the query when a rarer term remains. Its BM25
// weight is small, while reading (and, to score it, decoding) its
// postings costs more than all the other terms together ("person" in a
// scope of people, "the" in a language without a stop list).
const commonShare = 0.1

// commonMin: in small indexes no term is common; leaving terms out only
// pays off when postings are long.
const commonMin = 2000

// queryTerms analyses text like the indexed fields, removes duplicates and
// terms no document holds, and leaves out the common ones (commonShare)
// unless nothing rarer remains.
func (x *Index) queryTerms(ctx context.Context, text string) ([]string, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	an := x.bi.Mapping().AnalyzerNamed(AnalyzerName)
	if an == nil {
		return nil, entity.Errorf(entity.EINTERNAL, "search: analyzer %s missing", AnalyzerName)
	}
	seen := map[string]bool{}
	var terms []string
	for _, t := range an.Analyze([]byte(text)) {
		if s := string(t.Term); !seen[s] {
			seen[s] = true
			terms = append(terms, s)
		}
	}
	ai, err := x.bi.Advanced()
	if err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, "search.Search", err)
	}
	r, err := ai.Reader()
	if err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, "search.Search", err)
	}
	defer r.Close()
	total, err := r.DocCount()
	if err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, "search.Search", err)
	}
	limit := max(uint64(commonShare*float64(total)), commonMin)
	var rare, common []string
	for _, t := range terms {
		var df uint64
		for _, f := range []string{fNames, fText, fContent} {
			tfr, err := r.TermFieldReader(ctx, []byte(t), f, false, false, false)
			if err != nil {
				return nil, entity.Wrap(entity.EINTERNAL, "search.Search", err)
			}
			df += tfr.Count()
			tfr.Close()
		}
		switch {
		case df == 0:
		case df <= limit:
			rare = append(rare, t)
		default:
			common = append(common, t)
		}
	}
	if len(rare) == 0 {
		return common, nil
	}
	return rare, nil
}
