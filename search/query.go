package search

import (
	"context"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"

	"github.com/graphmem/graphmem/entity"
)

// Field boosts: a word that names an entity says more than one in a fact's
// text, which says more than one in an episode's content.
const (
	BoostNames   = 3.0
	BoostText    = 2.0
	BoostContent = 1.0
)

// LengthNorm is BM25's b, how much a long field's score is lowered for its
// length (Bleve's default is 0.75). A conversation's long turn tells more
// than a short one, not less: chosen over 0.75, 0.5, 0.3, 0.15 and 0 on the
// dev parts of LoCoMo (R@10 0.799 → 0.806) and of the coding-assistant
// conversations (0.789 → 0.817), the catalog's tuning seed unchanged
// (hit@1 0.955). Bleve reads it from a package variable, so it holds for
// every index of the process.
const LengthNorm = 0.15

// init sets Bleve's two process-wide scoring settings: BM25's b, and the
// clause order of a disjunction's sum. Bleve scores a document that matches
// a disjunction by summing the scores of its matching clauses; above
// DisjunctionHeapTakeover clauses (10) in the order a heap pops them, which
// follows the order the index numbered its documents in (batches,
// background merges), not the data. The same document then scored
// differently in its last bits from index to index, and a near tie between
// two documents fell either way: two runs, or two stores, gave different
// results. The slice form sums in clause order at any size.
func init() {
	search.BM25_b = LengthNorm
	searcher.DisjunctionHeapTakeover = math.MaxInt
}

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
	// Mentions restricts to the episodes that mention one of these keys
	// (entity.Mentions).
	Mentions []string
	// Predicates restricts facts to these predicates.
	Predicates []string
	// IDs restricts to these records (ids of the Types asked for, of any
	// type when Types is empty).
	IDs []string
	// From and To, when set, restrict to documents whose time (an
	// episode's reference time, a fact's valid_from) is in [From, To).
	From, To time.Time
	// SortByTime orders by time, oldest first, instead of by score.
	SortByTime bool
	// Keep are analysed terms never left out as common (see commonShare):
	// words that tell apart the facts of the entities KeepFor (ids) the
	// query names, however common they are across the scope ("memory" in
	// "the memory limit of identity-worker"). A kept term that is common is
	// matched only in the facts of those entities, where its postings are
	// short.
	Keep    []string
	KeepFor []string
	// FactTimes reads each fact hit's valid_from into Hit.Time.
	FactTimes bool
}

// Hit is one matching document.
type Hit struct {
	Type  string       `json:"type"`
	ID    string       `json:"id"`
	Scope entity.Scope `json:"scope"`
	Score float64      `json:"score"`
	// Time is an episode's reference time, or a fact's valid_from when the
	// query asked for FactTimes. It and the fields below are stored fields,
	// read for episodes only: callers read facts and entities from the
	// store.
	Time time.Time `json:"time"`
	// Session and Speaker (normalised) of an episode.
	Session string `json:"session,omitempty"`
	Speaker string `json:"speaker,omitempty"`
	// Tags of an episode (TagTime, TagQuestion).
	Tags []string `json:"tags,omitempty"`
	// Words is an episode's length in words (without the speaker).
	Words int `json:"words,omitempty"`
}

var hitFields = []string{fTime, fSession, fSpeaker, fTags, fWords}

// Search runs q. Returns EINVALID if q has no scope.
func (x *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	if q.Scope == "" {
		return nil, entity.Errorf(entity.EINVALID, "search: scope is required")
	}
	if q.Limit <= 0 {
		q.Limit = 20
	}
	q.Limit = min(q.Limit, MaxLimit)
	if q.Now.IsZero() {
		q.Now = time.Now()
	}
	if q.AsOf.IsZero() {
		q.AsOf = q.Now
	}
	terms, err := x.queryTerms(ctx, q)
	if err != nil {
		return nil, err
	}
	if none, err := x.filteredOut(ctx, q); err != nil || none {
		return []Hit{}, err
	}
	asOf := millis(q.AsOf)
	bd := x.bounds()
	var ms search.DocumentMatchCollection
	byScore := !q.SortByTime && strings.TrimSpace(q.Text) != ""
	for {
		bq := buildQuery(q, terms, bd)
		if byScore {
			ms, err = x.topScored(ctx, bq, q.Limit)
		} else {
			ms, err = x.byTime(ctx, bq, q)
		}
		if err != nil {
			return nil, err
		}
		// A document indexed meanwhile may be one an exclusion left out
		// would have matched: the bounds are raised before it is visible.
		now := x.bounds()
		if now.same(bd, asOf) {
			break
		}
		bd = now
	}
	if err := x.loadFields(ctx, ms, q.FactTimes); err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(ms))
	for _, h := range ms {
		hits = append(hits, hitOf(q.Scope, h))
	}
	return hits, nil
}

// byTime runs an unscored query for its q.Limit newest documents (oldest
// with q.SortByTime), equal times in id order.
func (x *Index) byTime(ctx context.Context, bq query.Query, q Query) (search.DocumentMatchCollection, error) {
	req := bleve.NewSearchRequestOptions(bq, q.Limit, 0, false)
	req.Score = "none"
	if q.SortByTime {
		req.SortBy([]string{fTime, "_id"})
	} else {
		req.SortBy([]string{"-" + fTime, "_id"})
	}
	res, err := x.run(ctx, "search.Search", req)
	if err != nil {
		return nil, err
	}
	return res.Hits, nil
}

// run runs one search request on the index; op names the caller in its
// errors (EUNAVAILABLE when ctx ended).
func (x *Index) run(ctx context.Context, op string, req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	res, err := x.bi.SearchInContext(ctx, req)
	if err != nil {
		if cerr := ctxErr(ctx, op); cerr != nil {
			return nil, cerr
		}
		return nil, entity.Wrap(entity.EINTERNAL, op, err)
	}
	return res, nil
}

// loadFields reads the stored fields of the episodes among ms, and of the
// facts too with facts: one look-up by document id, so a search that finds
// only facts and entities reads no stored field.
func (x *Index) loadFields(ctx context.Context, ms search.DocumentMatchCollection, facts bool) error {
	byID := map[string]*search.DocumentMatch{}
	for _, m := range ms {
		if typ, _, _ := parseDocID(m.ID); typ == TypeEpisode || facts && typ == TypeFact {
			byID[m.ID] = m
		}
	}
	if len(byID) == 0 {
		return nil
	}
	req := bleve.NewSearchRequestOptions(query.NewDocIDQuery(slices.Collect(maps.Keys(byID))), len(byID), 0, false)
	req.Fields = hitFields
	req.Score = "none"
	res, err := x.run(ctx, "search.Search", req)
	if err != nil {
		return err
	}
	for _, f := range res.Hits {
		if m := byID[f.ID]; m != nil {
			m.Fields = f.Fields
		}
	}
	return nil
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
	if v, ok := d.Fields[fWords].(float64); ok {
		h.Words = int(v)
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

// source is one (kind, field) whose scoped terms a query reads.
type source struct {
	kind, field string
	boost       float64
}

// sources lists what a text query reads: its scope's entities (names
// first), facts and episodes, as its types ask; facts that had ended when
// indexed only for history, past as_of or known_at queries; retracted ones
// only for known_at queries.
func sources(q Query, asOf, flagged time.Time) []source {
	wants := func(t string) bool { return len(q.Types) == 0 || slices.Contains(q.Types, t) }
	var out []source
	if wants(TypeEntity) {
		out = append(out, source{kindEntity, fNames, BoostNames}, source{kindEntity, fText, BoostText})
	}
	if wants(TypeFact) {
		out = append(out, source{kindFact, fText, BoostText})
		if q.IncludeHistory || !q.KnownAt.IsZero() || asOf.Before(flagged) {
			out = append(out, source{kindHistory, fText, BoostText})
		}
		if !q.KnownAt.IsZero() {
			out = append(out, source{kindRetracted, fText, BoostText})
		}
	}
	if wants(TypeEpisode) {
		out = append(out, source{kindEpisode, fContent, BoostContent})
	}
	return out
}

// buildQuery makes the Bleve query. With text, the query reads only the
// scoped terms of its scope and of the kinds it wants (see scopedTerms):
// no document of another scope can be scored, and no filter has to walk
// the scope's postings. The remaining exclusions scan the rare side of
// each range (see minTime). Without text, the keyword filters drive:
// scope first, then type, session, predicate, status.
// q.Now and q.AsOf are set (Search fills them).
func buildQuery(q Query, terms queryTerms, bd bounds) query.Query {
	excl := exclusions(q, bd)
	filters := keywordFilters(q)
	if strings.TrimSpace(q.Text) == "" {
		return keywordQuery(q, bd, filters, excl)
	}
	if len(terms.rare) == 0 {
		// Only stop words, or words the scope does not hold.
		return bleve.NewMatchNoneQuery()
	}
	should := termClauses(q, terms, bd)
	if len(should) == 0 {
		return bleve.NewMatchNoneQuery()
	}
	b := bleve.NewBooleanQuery()
	b.AddMust(bleve.NewDisjunctionQuery(should...))
	b.AddMustNot(excl...)
	if len(filters) > 0 {
		b.AddFilter(bleve.NewConjunctionQuery(filters...))
	}
	return b
}

// current reports whether q asks for what holds now (no history, no
// earlier knowledge).
func current(q Query) bool {
	return !q.IncludeHistory && q.KnownAt.IsZero()
}

// exclusions are the time clauses a document must not match, with or
// without text: expired, not yet recorded or already retracted at
// q.KnownAt, and, for what holds now, starting after or ended before
// q.AsOf.
func exclusions(q Query, bd bounds) []query.Query {
	flagged, now, asOf := bd.flagged, q.Now, q.AsOf
	var excl []query.Query
	if bd.expiring {
		excl = append(excl, numRange(fExpiresAt, nil, ptr(millis(now)), true))
	}
	if !q.KnownAt.IsZero() {
		known := q.KnownAt
		excl = append(excl, numRange(fRecordedAt, ptr(millis(known)+1), nil, false))
		excl = append(excl, numRange(fExpiredAt, nil, ptr(millis(known)), true))
	}
	if current(q) && bd.future(millis(asOf)) {
		// A fact's or episode's time is its valid_from; an entity has
		// none (always valid).
		future := bleve.NewBooleanQuery()
		future.AddMust(numRange(fTime, ptr(millis(asOf)+1), nil, false))
		future.AddMustNot(term(fType, TypeEntity))
		excl = append(excl, future)
	}
	if current(q) && asOf.Before(flagged) {
		excl = append(excl, numRange(fValidTo, nil, ptr(millis(asOf)), true))
	}
	return excl
}

// keywordFilters are the clauses every document must match: the ids,
// session, predicates, mentions and time range q names.
func keywordFilters(q Query) []query.Query {
	var filters []query.Query
	if len(q.IDs) > 0 {
		types := q.Types
		if len(types) == 0 {
			types = []string{TypeFact, TypeEntity, TypeEpisode}
		}
		var ids []string
		for _, t := range types {
			for _, id := range q.IDs {
				ids = append(ids, docID(t, q.Scope, id))
			}
		}
		filters = append(filters, query.NewDocIDQuery(ids))
	}
	if q.Session != "" {
		filters = append(filters, term(fSession, q.Session))
	}
	if len(q.Predicates) > 0 {
		filters = append(filters, anyTerm(fPredicate, q.Predicates))
	}
	if len(q.Mentions) > 0 {
		filters = append(filters, anyTerm(fMentions, q.Mentions))
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
	return filters
}

// keywordQuery is the query without text: the scope, types and filters
// must match, and neither excl nor the flags of what is forgotten,
// archived, expired or (for what holds now) ended may.
func keywordQuery(q Query, bd bounds, filters, excl []query.Query) query.Query {
	// Scope first: every other clause only ever sees this scope's
	// documents.
	must := []query.Query{term(fScope, q.Scope)}
	if len(q.Types) > 0 {
		must = append(must, anyTerm(fType, q.Types))
	}
	must = append(must, filters...)
	excl = append(excl, term(fFlags, flagForgotten), term(fFlags, flagArchived))
	if q.KnownAt.IsZero() {
		excl = append(excl, numRange(fExpiredAt, nil, ptr(millis(q.Now)), true))
	}
	if current(q) && !q.AsOf.Before(bd.flagged) {
		excl = append(excl, term(fFlags, flagEnded))
	}
	b := bleve.NewBooleanQuery()
	b.AddMust(must...)
	b.AddMustNot(excl...)
	return b
}

// filteredOut reports whether a query without text has a filter that no
// document passes: a predicate or mention none holds ("constraint" facts
// and mentions in a scope of facts alone). Its search would still build
// and run every exclusion.
func (x *Index) filteredOut(ctx context.Context, q Query) (bool, error) {
	if strings.TrimSpace(q.Text) != "" || len(q.Predicates) == 0 && len(q.Mentions) == 0 {
		return false, nil
	}
	ai, err := x.bi.Advanced()
	if err != nil {
		return false, entity.Wrap(entity.EINTERNAL, "search.Search", err)
	}
	r, err := ai.Reader()
	if err != nil {
		return false, entity.Wrap(entity.EINTERNAL, "search.Search", err)
	}
	defer r.Close()
	holds := func(field string, vs []string) (bool, error) {
		for _, v := range vs {
			tfr, err := r.TermFieldReader(ctx, []byte(v), field, false, false, false)
			if err != nil {
				return false, entity.Wrap(entity.EINTERNAL, "search.Search", err)
			}
			n := tfr.Count()
			tfr.Close()
			if n > 0 {
				return true, nil
			}
		}
		return len(vs) == 0, nil
	}
	for _, f := range []struct {
		field string
		vs    []string
	}{{fPredicate, q.Predicates}, {fMentions, q.Mentions}} {
		if ok, err := holds(f.field, f.vs); err != nil || !ok {
			return err == nil, err
		}
	}
	return false, nil
}

// Speakers returns those of names (normalised, entity.Normalize) that name
// a speaker of an episode in scope, in full or by the first word of the
// speaker's name ("caroline" for "Caroline Smith").
func (x *Index) Speakers(ctx context.Context, scope entity.Scope, names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		first := bleve.NewPrefixQuery(n + " ")
		first.SetField(fSpeaker)
		q := bleve.NewBooleanQuery()
		q.AddMust(term(fScope, scope), term(fType, TypeEpisode), bleve.NewDisjunctionQuery(term(fSpeaker, n), first))
		req := bleve.NewSearchRequestOptions(q, 1, 0, false)
		req.Score = "none"
		res, err := x.bi.SearchInContext(ctx, req)
		if err != nil {
			return nil, entity.Wrap(entity.EINTERNAL, "search.Speakers", err)
		}
		if res.Total > 0 {
			out = append(out, n)
		}
	}
	return out, nil
}
