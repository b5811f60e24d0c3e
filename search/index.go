package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// Document types.
const (
	TypeFact    = "fact"
	TypeEntity  = "entity"
	TypeEpisode = "episode"
)

// Field names of an index document.
const (
	fType       = "type"
	fScope      = "scope"
	fNames      = "names"
	fText       = "text"
	fContent    = "content"
	fPredicate  = "predicate"
	fSubject    = "subject_id"
	fObject     = "object_id"
	fSession    = "session"
	fSpeaker    = "speaker"
	fTime       = "time"
	fValidTo    = "valid_to"
	fRecordedAt = "recorded_at"
	fExpiredAt  = "expired_at"
	fExpiresAt  = "expires_at"
	fFlags      = "flags"
	fTags       = "tags"
	fMentions   = "mentions"
	// fWords is an episode's length in words, stored only.
	fWords = "words"
	// fHash is a stored digest of the document: Sync skips rewriting a
	// document whose record changed in nothing the index holds (a hit
	// count), which spares the index churn on every recall.
	fHash = "h"
)

// Flags of hidden records.
const (
	flagForgotten = "forgotten"
	flagArchived  = "archived"
	// flagEnded marks a fact whose validity had ended when it was indexed.
	flagEnded = "ended"
	// TagTime marks episodes whose content places something in time.
	TagTime = "time"
	// TagQuestion marks episodes that ask something (a question mark).
	TagQuestion = "question"
)

// Times are indexed as Unix milliseconds (exact in a float64). An open end
// is maxTime and an unknown start minTime, so "valid_to <= as_of" matches
// only closed intervals and "valid_from > as_of" only future ones: the
// filters scan the rare side of each range. Open ends are left out of the
// document (setTimes): the filters only ever exclude what matches, and a
// numeric field costs sixteen terms, more than a fact's text.
const (
	minTime = -1e15
	maxTime = 1e15
)

func millis(t time.Time) float64 {
	if t.IsZero() {
		return minTime
	}
	return float64(t.UnixMilli())
}

func millisOpen(t *time.Time) float64 {
	if t == nil {
		return maxTime
	}
	return float64(t.UnixMilli())
}

// setTimes puts the time fields of a document, leaving out open ends (see
// minTime). fTime is always set: it sorts, bounds time windows, and is the
// valid_from of a fact or an episode (an entity has none).
func setTimes(d map[string]any, t, validTo, recordedAt, expiredAt, expiresAt float64) {
	d[fTime] = t
	for _, f := range [...]struct {
		name string
		v    float64
	}{{fValidTo, validTo}, {fRecordedAt, recordedAt}, {fExpiredAt, expiredAt}, {fExpiresAt, expiresAt}} {
		if f.v > minTime && f.v < maxTime {
			d[f.name] = f.v
		}
	}
}

func fromMillis(v float64) time.Time {
	if v <= minTime || v >= maxTime {
		return time.Time{}
	}
	return time.UnixMilli(int64(v)).UTC()
}

// versionKey holds the layout version of the index: the mapping, the
// analyzer and the document shapes. Bump layoutVersion whenever one of
// them changes.
var versionKey = []byte("graphmem.version")

const layoutVersion = "10"

// Index is the search index. It is safe for concurrent use; Sync calls are
// serialised.
type Index struct {
	bi  bleve.Index
	dir string

	syncMu sync.Mutex // one Sync at a time
	pos    positions
	lag    graph.LagMeter

	scopesMu sync.Mutex
	scopes   map[entity.Scope]*scopeState

	notify chan struct{}

	// queries are the queries in flight, which a sync yields to; yielded
	// is how long syncs waited for them, in nanoseconds (Yielded).
	queries gate
	yielded atomic.Int64

	// flagged is the latest clock reading used to flag facts as ended
	// (flagEnded): every fact flagged ended had ended by then.
	flagged atomic.Int64
	// latest bounds the times (fTime, Unix milliseconds) of the documents
	// the index holds, and expiring says some document may have a TTL
	// (fExpiresAt): a query builds no exclusion that could match nothing
	// (see bounds).
	latest   atomic.Int64
	expiring atomic.Bool
}

// Open opens the index in dir, creating it when dir does not exist. An
// index written with another layout (an older graphmem) is discarded and
// recreated empty: it is derived data, and the next Sync rebuilds it from
// the store. Returns EUNAVAILABLE if the folder cannot be opened (another
// process holds it).
func Open(dir string) (*Index, error) {
	bi, err := bleve.OpenUsing(dir, bleveConfig())
	if err == nil {
		v, verr := bi.GetInternal(versionKey)
		if verr == nil && string(v) != layoutVersion {
			bi.Close()
			if err := os.RemoveAll(dir); err != nil {
				return nil, entity.Wrap(entity.EUNAVAILABLE, "search.Open", err)
			}
			err = bleve.ErrorIndexPathDoesNotExist
		}
	}
	if errors.Is(err, bleve.ErrorIndexPathDoesNotExist) {
		bi, err = create(dir)
	}
	if err != nil {
		return nil, entity.Wrap(entity.EUNAVAILABLE, "search.Open", err)
	}
	x := &Index{bi: bi, dir: dir, notify: make(chan struct{}, 1), scopes: map[entity.Scope]*scopeState{}}
	x.flagged.Store(time.Now().UnixNano())
	if err := x.pos.load(bi); err != nil {
		bi.Close()
		return nil, entity.Wrap(entity.EUNAVAILABLE, "search.Open", err)
	}
	if err := x.loadBounds(); err != nil {
		bi.Close()
		return nil, entity.Wrap(entity.EUNAVAILABLE, "search.Open", err)
	}
	return x, nil
}

func create(dir string) (bleve.Index, error) {
	if err := os.MkdirAll(filepath.Dir(filepath.Clean(dir)), 0o755); err != nil {
		return nil, err
	}
	m, err := newMapping()
	if err != nil {
		return nil, err
	}
	bi, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, bleveConfig())
	if err != nil {
		return nil, err
	}
	if err := bi.SetInternal(versionKey, []byte(layoutVersion)); err != nil {
		bi.Close()
		return nil, err
	}
	// Batches do not wait for the disk; the new index's mapping and
	// layout must, or a crash now would leave a folder Open cannot read.
	ctx, cancel := context.WithTimeout(context.Background(), closeFlushWait)
	defer cancel()
	if err := persisted(ctx, bi, false); err != nil {
		bi.Close()
		return nil, err
	}
	return bi, nil
}

// bleveConfig is the index's runtime configuration. A batch returns once
// its documents are searchable, without waiting for them to reach the disk
// (unsafe_batch): the index is derived data, and the sequence it applied is
// written in the same batch, so a crash leaves an earlier consistent state
// that the next Sync catches up from. Waiting for every batch to be
// persisted made the disk's latency the index's speed.
func bleveConfig() map[string]any {
	return map[string]any{
		"unsafe_batch":           true,
		"scorchPersisterOptions": map[string]any{"PersisterNapTimeMSec": persisterNap.Milliseconds()},
	}
}

// persisterNap is how long Bleve's persister lets batches gather in memory
// before it merges them into one segment file: without it every small
// batch (a few commits of episodes) became a file of its own, and merging
// those files back together took most of the CPU under many small writes.
const persisterNap = 500 * time.Millisecond

// closeFlushWait bounds how long Close waits for applied batches to reach
// the disk; what is left is applied again after the next Open.
const closeFlushWait = 10 * time.Second

// Close writes what the index applied to disk (for at most closeFlushWait)
// and releases the index.
func (x *Index) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeFlushWait)
	_ = x.persisted(ctx, false)
	cancel()
	if err := x.bi.Close(); err != nil {
		return entity.Wrap(entity.EINTERNAL, "search.Close", err)
	}
	return nil
}

// Dir is the folder of the index.
func (x *Index) Dir() string { return x.dir }

// Seq is the sequence number up to which the index applied the changes
// of scope.
func (x *Index) Seq(scope entity.Scope) uint64 { return x.pos.get(scope) }

// Lag is how far the index is behind the store (see Sync).
func (x *Index) Lag() graph.Lag { return x.lag.Lag(x.Seq, time.Now()) }

// DocCount is the number of documents in the index.
func (x *Index) DocCount() (uint64, error) {
	n, err := x.bi.DocCount()
	if err != nil {
		return 0, entity.Wrap(entity.EINTERNAL, "search.DocCount", err)
	}
	return n, nil
}

// Terms calls fn with every term of every field the index holds, in every
// scope, and returns how many there were: a purge can be shown to have left
// no trace of a word.
func (x *Index) Terms(fn func(field, term string)) (int, error) {
	fields, err := x.bi.Fields()
	if err != nil {
		return 0, entity.Wrap(entity.EINTERNAL, "search.Terms", err)
	}
	n := 0
	for _, f := range fields {
		d, err := x.bi.FieldDict(f)
		if err != nil {
			return n, entity.Wrap(entity.EINTERNAL, "search.Terms", err)
		}
		for e, err := d.Next(); e != nil && err == nil; e, err = d.Next() {
			n++
			fn(f, e.Term)
		}
		if err := d.Close(); err != nil {
			return n, entity.Wrap(entity.EINTERNAL, "search.Terms", err)
		}
	}
	return n, nil
}

func newMapping() (mapping.IndexMapping, error) {
	m := bleve.NewIndexMapping()
	m.ScoringModel = index.BM25Scoring
	if err := addAnalyzer(m); err != nil {
		return nil, err
	}
	m.DefaultAnalyzer = AnalyzerName
	m.IndexDynamic, m.StoreDynamic, m.DocValuesDynamic = false, false, false

	text := func() *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = preAnalyzedName
		f.Store, f.IncludeTermVectors, f.IncludeInAll, f.DocValues = false, false, false, false
		return f
	}
	keyword := func(store bool) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Store, f.IncludeTermVectors, f.IncludeInAll, f.DocValues = store, false, false, false
		return f
	}
	number := func(store, docValues bool) *mapping.FieldMapping {
		f := bleve.NewNumericFieldMapping()
		f.Store, f.IncludeInAll, f.DocValues = store, false, docValues
		return f
	}
	d := bleve.NewDocumentStaticMapping()
	for _, f := range []string{fNames, fText, fContent} {
		d.AddFieldMappingsAt(f, text())
	}
	// Stored fields are read for every hit, so only what recall needs
	// before it reads the store is stored: an episode's session, speaker,
	// tags and length. Type and id are parsed from the document id.
	for _, f := range []string{fSession, fSpeaker, fTags} {
		d.AddFieldMappingsAt(f, keyword(true))
	}
	for _, f := range []string{fType, fSubject, fObject, fPredicate, fScope, fMentions} {
		d.AddFieldMappingsAt(f, keyword(false))
	}
	d.AddFieldMappingsAt(fFlags, keyword(false))
	hash := bleve.NewKeywordFieldMapping()
	hash.Index, hash.Store, hash.IncludeTermVectors, hash.IncludeInAll, hash.DocValues = false, true, false, false, false
	d.AddFieldMappingsAt(fHash, hash)
	words := bleve.NewNumericFieldMapping()
	words.Index, words.Store, words.IncludeInAll, words.DocValues = false, true, false, false
	d.AddFieldMappingsAt(fWords, words)
	d.AddFieldMappingsAt(fTime, number(true, true))
	for _, f := range []string{fValidTo, fRecordedAt, fExpiredAt, fExpiresAt} {
		d.AddFieldMappingsAt(f, number(false, false))
	}
	// No composite field: every query names its field, and Bleve would
	// still build the composite "_all" of every document, empty as it is
	// here, at a tenth of what indexing a fact costs.
	d.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())
	m.DefaultMapping = d
	return m, nil
}

// docID names the document of a record: kind, scope and id, so records of
// two scopes never share a document even if their ids collide. Scopes
// cannot contain "|".
func docID(typ string, scope entity.Scope, id string) string {
	return typ[:2] + "|" + scope + "|" + id
}

var typeOfPrefix = map[string]string{TypeFact[:2]: TypeFact, TypeEntity[:2]: TypeEntity, TypeEpisode[:2]: TypeEpisode}

// parseDocID is the inverse of docID.
func parseDocID(d string) (typ, scope, id string) {
	kind, rest, _ := strings.Cut(d, "|")
	scope, id, _ = strings.Cut(rest, "|")
	return typeOfPrefix[kind], scope, id
}

// FactText is the text a fact is indexed by: its subject, predicate (in
// words), object or value, sentence, reason and alternatives. Names of the
// subject and object go into the fact's text, not into the names field:
// that field is for entities, so that a name matches the entity first and
// a term's postings in it stay short.
func FactText(f *entity.Fact) string {
	var text strings.Builder
	for _, s := range []string{f.Subject, strings.ReplaceAll(f.Predicate, "_", " "), f.Object, f.Value, f.Text,
		attrString(f.Attributes, "reason"), attrString(f.Attributes, "alternatives")} {
		if s != "" {
			if text.Len() > 0 {
				text.WriteString("\n")
			}
			text.WriteString(s)
		}
	}
	return text.String()
}

func factDoc(f *entity.Fact, now time.Time) map[string]any {
	d := map[string]any{
		fType: TypeFact, fScope: f.Scope,
		fPredicate: f.Predicate, fSubject: f.SubjectID,
	}
	setTimes(d, millis(f.ValidFrom), millisOpen(f.ValidTo), millis(f.RecordedAt), millisOpen(f.ExpiredAt),
		millisOpen(f.ExpiresAt))
	if f.ObjectID != "" {
		d[fObject] = f.ObjectID
	}
	var flags []string
	if f.ForgottenAt != nil {
		flags = append(flags, flagForgotten)
	}
	if f.ArchivedAt != nil {
		flags = append(flags, flagArchived)
	}
	if f.ValidTo != nil && !f.ValidTo.After(now) {
		flags = append(flags, flagEnded)
	}
	if len(flags) > 0 {
		d[fFlags] = flags
	}
	kind := kindFact
	switch {
	case f.ForgottenAt != nil || f.ArchivedAt != nil:
		return d // never recalled: no text to match
	case f.ExpiredAt != nil && !f.ExpiredAt.After(now):
		kind = kindRetracted
	case f.ValidTo != nil && !f.ValidTo.After(now):
		kind = kindHistory
	}
	d[fText] = scopedTerms(f.Scope, kind, FactText(f))
	return d
}

func entityDoc(e *entity.Entity) map[string]any {
	names := append([]string{e.Name}, e.Aliases...)
	d := map[string]any{
		fType: TypeEntity, fScope: e.Scope,
		fNames: scopedTerms(e.Scope, kindEntity, strings.Join(names, "\n")),
		fText:  scopedTerms(e.Scope, kindEntity, e.Summary+"\n"+e.Type),
	}
	// Entities have no valid time: always valid, never expired.
	c := millis(e.CreatedAt)
	setTimes(d, c, maxTime, c, maxTime, maxTime)
	return d
}

func episodeDoc(e *entity.Episode) map[string]any {
	d := map[string]any{
		fType: TypeEpisode, fScope: e.Scope,
		fContent: scopedTerms(e.Scope, kindEpisode, e.Said()),
		fSession: SessionOf(e),
		fWords:   float64(len(strings.Fields(e.Words()))),
	}
	// An episode is part of the world from the moment it happened.
	setTimes(d, millis(e.ReferenceTime), maxTime, millis(e.RecordedAt), maxTime, maxTime)
	if e.Speaker != "" {
		d[fSpeaker] = entity.Normalize(e.Speaker)
	}
	var tags []string
	if MentionsTime(e.Content) {
		tags = append(tags, TagTime)
	}
	if strings.ContainsAny(e.Content, "?？") {
		tags = append(tags, TagQuestion)
	}
	if len(tags) > 0 {
		d[fTags] = tags
	}
	if ms := entity.Mentions(e.Content); len(ms) > 0 {
		d[fMentions] = ms
	}
	return d
}

// SessionKeys are the episode metadata keys that name the conversation or
// session an episode belongs to, in order of preference.
var SessionKeys = []string{"session_id", "session", "thread_id", "conversation_id"}

// SessionOf names the session of an episode: the first of SessionKeys set
// in its metadata, otherwise the UTC day of its reference time (messages of
// one day form one session), otherwise "".
func SessionOf(e *entity.Episode) string {
	for _, k := range SessionKeys {
		if v, ok := e.Metadata[k]; ok {
			switch v := v.(type) {
			case string:
				if v != "" {
					return "m:" + v
				}
			case float64, int, int64:
				return fmt.Sprintf("m:%v", v)
			}
		}
	}
	if !e.ReferenceTime.IsZero() {
		return "d:" + e.ReferenceTime.UTC().Format(time.DateOnly)
	}
	return ""
}

func attrString(m map[string]any, k string) string {
	switch v := m[k].(type) {
	case string:
		return v
	case []any:
		var parts []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	case []string:
		return strings.Join(v, ", ")
	}
	return ""
}

// AttrString returns the attribute k of a record as text: a string, or a
// list of strings joined with commas; "" otherwise.
func AttrString(m map[string]any, k string) string { return attrString(m, k) }

func ctxErr(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return entity.Wrap(entity.EUNAVAILABLE, op, err)
	}
	return nil
}
