package memory

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// Record is one line of an export: exactly one of its fields is set. Facts
// keep both time axes, claims and revisions, so a round trip is lossless.
type Record struct {
	Tombstone *entity.Tombstone `json:"tombstone,omitempty"`
	Entity    *entity.Entity    `json:"entity,omitempty"`
	Episode   *entity.Episode   `json:"episode,omitempty"`
	Fact      *entity.Fact      `json:"fact,omitempty"`
}

const exportPage = 500

// Export writes everything in the scope as JSON Lines: tombstones, then
// entities, episodes and facts. Each kind is read page by page, each page in
// its own read transaction.
func (s *Service) Export(ctx context.Context, scope entity.Scope, w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	page := func(list func(tx graph.Tx, cursor string) ([]Record, string, error)) error {
		cursor := ""
		for {
			var recs []Record
			var next string
			err := s.Store.View(ctx, scope, func(tx graph.Tx) error {
				var err error
				recs, next, err = list(tx, cursor)
				return err
			})
			if err != nil {
				return err
			}
			for i := range recs {
				if err := enc.Encode(&recs[i]); err != nil {
					return err
				}
			}
			if next == "" {
				return nil
			}
			cursor = next
		}
	}
	steps := []func(tx graph.Tx, cursor string) ([]Record, string, error){
		func(tx graph.Tx, c string) ([]Record, string, error) {
			ts, next, err := tx.ListTombstones(c, exportPage)
			out := make([]Record, len(ts))
			for i := range ts {
				out[i].Tombstone = &ts[i]
			}
			return out, next, err
		},
		func(tx graph.Tx, c string) ([]Record, string, error) {
			es, next, err := tx.Entities(c, exportPage)
			out := make([]Record, len(es))
			for i := range es {
				out[i].Entity = &es[i]
			}
			return out, next, err
		},
		func(tx graph.Tx, c string) ([]Record, string, error) {
			es, next, err := tx.Episodes("", c, exportPage)
			out := make([]Record, len(es))
			for i := range es {
				out[i].Episode = &es[i]
			}
			return out, next, err
		},
		func(tx graph.Tx, c string) ([]Record, string, error) {
			fs, next, err := tx.Facts(graph.FactFilter{Cursor: c, Limit: exportPage})
			out := make([]Record, len(fs))
			for i := range fs {
				out[i].Fact = &fs[i]
			}
			return out, next, err
		},
	}
	for _, st := range steps {
		if err := page(st); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ImportResult counts what an import wrote.
type ImportResult struct {
	Tombstones int `json:"tombstones"`
	Entities   int `json:"entities"`
	Episodes   int `json:"episodes"`
	Facts      int `json:"facts"`
	// Blocked counts facts left out because the scope forgot them.
	Blocked int `json:"blocked_by_tombstone"`
}

// MaxRecordBytes bounds one line of an import. The largest record the API
// can make is an episode: MaxEpisodeBytes of content, at worst six bytes of
// JSON each once escaped, and a full set of metadata. Four times that
// leaves room for a fact whose claims each carry their own attributes.
const MaxRecordBytes = 4 * (6*entity.MaxEpisodeBytes + attributesJSON)

// MaxRecordValues and MaxRecordObjects bound the values (array items and
// object members) and the objects of one line of an import, since a value
// of a few bytes of JSON takes tens once decoded, and an object hundreds.
// Values: twice the most a full set of attributes holds, each a digit and
// a comma. Objects: a fact with thousands of claims, each with attributes.
const (
	MaxRecordValues  = 2 * entity.MaxAttributes * entity.MaxAttributeBytes / 2
	MaxRecordObjects = 16 << 10
)

// attributesJSON is the most JSON one set of attributes (or metadata) takes
// within the limits: MaxAttributes values of MaxAttributeBytes, each named
// by MaxAttributeKeyLen characters of at most six bytes once escaped.
const attributesJSON = entity.MaxAttributes * (entity.MaxAttributeBytes + 6*entity.MaxAttributeKeyLen + 4)

// Import reads an export into the scope, keeping ids and times. Tombstones
// are honoured: a fact matching one is left out unless it was itself
// forgotten (and stays so) or is an explicit user statement recorded after
// the forget.
//
// Nothing is written before the whole stream is read and checked: each line
// as it is read, against the API's limits and in at most MaxRecordBytes (a
// longer line is refused as soon as it passes them, never held whole), then
// every id a record refers to, which must be in the import or already in
// the scope. A refused import is EINVALID naming the line and the field
// ("line[3].fact.subject_id") and leaves the scope untouched. Meanwhile the
// stream waits in a file, so memory does not grow with it.
//
// A checked import is written in transactions of bounded size. With a
// journal (Service.Journal) it is all-or-nothing across a crash too: it is
// committed there before its first write, written whether or not the
// caller is still waiting, and an import a crash or a store failure cut
// short is finished by ResumeImports.
func (s *Service) Import(ctx context.Context, scope entity.Scope, r io.Reader) (ImportResult, error) {
	spool, err := s.spoolFile()
	if err != nil {
		return ImportResult{}, entity.Wrap(entity.EINTERNAL, "memory.Import", err)
	}
	path := spool.Name()
	defer func() {
		spool.Close()
		if path != "" {
			s.dropEntry(path)
		}
	}()
	if err := s.checkImport(ctx, scope, r, spool); err != nil {
		return ImportResult{}, err
	}
	if path, err = s.commitSpool(spool, scope); err != nil {
		return ImportResult{}, entity.Wrap(entity.EINTERNAL, "memory.Import", err)
	}
	res, err := s.writeSpool(context.WithoutCancel(ctx), scope, spool)
	if err != nil && s.Journal != "" {
		path = "" // kept for ResumeImports
		return res, &entity.Error{Code: entity.EUNAVAILABLE, Op: "memory.Import", Err: err, Message: fmt.Sprintf(
			"the import was checked and kept, and writing it stopped after %d facts (%v): the server finishes it when it next starts",
			res.Facts, entity.ErrorMessage(err))}
	}
	return res, err
}

// checkImport reads r into spool, checking every line and then every
// reference, and leaves spool at its start.
func (s *Service) checkImport(ctx context.Context, scope entity.Scope, r io.Reader, spool *os.File) error {
	w := bufio.NewWriter(spool)
	refs := newRefs()
	add := func(line, _ int, rec *Record) error { return refs.add(line, rec) }
	if err := readRecords(io.TeeReader(r, w), true, add); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return entity.Wrap(entity.EINTERNAL, "memory.Import", err)
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return entity.Wrap(entity.EINTERNAL, "memory.Import", err)
	}
	if err := refs.check(ctx, s.Store, scope, spool); err != nil {
		return err
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return entity.Wrap(entity.EINTERNAL, "memory.Import", err)
	}
	return nil
}

// writeSpool writes a checked stream into the scope, in transactions of at
// most exportPage records and importBatchBytes of JSON.
func (s *Service) writeSpool(ctx context.Context, scope entity.Scope, spool io.Reader) (ImportResult, error) {
	var res ImportResult
	var batch []Record
	batchBytes := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		batchBytes = 0
		var got ImportResult
		err := s.update(ctx, scope, func(tx graph.Tx) error {
			got = ImportResult{} // a retried transaction counts once
			return s.importBatch(tx, scope, batch, &got)
		})
		batch = batch[:0]
		if err == nil {
			res.Tombstones += got.Tombstones
			res.Entities += got.Entities
			res.Episodes += got.Episodes
			res.Facts += got.Facts
			res.Blocked += got.Blocked
		}
		return err
	}
	err := readRecords(spool, false, func(_, size int, rec *Record) error {
		batch = append(batch, *rec)
		if batchBytes += size; len(batch) == exportPage || batchBytes >= importBatchBytes {
			return flush()
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	return res, flush()
}

// importBatchBytes bounds the JSON one import transaction writes (besides
// exportPage records), so that a batch of large episodes (up to 256 KiB of
// content each) is not hundreds of MB in memory at once.
const importBatchBytes = 4 << 20

// readRecords reads JSON Lines of Records, one line at a time, and calls fn
// with each record, its line and the line's size in bytes; blank lines are
// skipped. With check, each
// record is checked (checkRecord) and a bad line is EINVALID naming it
// ("line[3]", "line[3].fact.text").
func readRecords(r io.Reader, check bool, fn func(line, size int, rec *Record) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for line := 1; ; line++ {
		if _, err := br.Peek(1); err == io.EOF {
			return nil
		}
		lr := &lineReader{br: br, max: MaxRecordBytes}
		var rec Record
		err := decodeLine(lr, &rec)
		if err == errBlank {
			continue
		}
		at := func() string { return fmt.Sprintf("line[%d]", line) }
		if err != nil {
			return entity.FieldErrors{at(): lineMessage(lr, err)}.Err()
		}
		if check {
			if fe := checkRecord(&rec); len(fe) > 0 {
				out := entity.FieldErrors{}
				for field, msg := range fe {
					out.Add(strings.TrimSuffix(at()+"."+field, "."), msg)
				}
				return out.Err()
			}
		}
		if err := fn(line, lr.n, &rec); err != nil {
			return err
		}
	}
}

var (
	errBlank         = errors.New("blank line")
	errTrailing      = errors.New("more than one JSON value on the line")
	errLineTooLong   = errors.New("line too long")
	errTooManyValues = errors.New("too many values")
)

// decodeLine decodes the one record on lr's line, refusing unknown fields
// and anything after the record; errBlank when the line holds none.
func decodeLine(lr *lineReader, rec *Record) error {
	dec := json.NewDecoder(lr)
	dec.DisallowUnknownFields()
	if err := dec.Decode(rec); err != nil {
		if err == io.EOF {
			return errBlank
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		if lr.err != nil {
			return lr.err
		}
		return errTrailing
	}
	return nil
}

// lineMessage says what is wrong with a line decodeLine refused.
func lineMessage(lr *lineReader, err error) string {
	var se *json.SyntaxError
	switch {
	case lr.err == errLineTooLong:
		return fmt.Sprintf("longer than %d bytes, more than any record holds within the API's limits", MaxRecordBytes)
	case lr.err == errTooManyValues:
		return fmt.Sprintf("holds more than %d values or %d objects, more than any record holds within the API's limits",
			MaxRecordValues, MaxRecordObjects)
	case lr.err != nil:
		return "could not be read: " + lr.err.Error()
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "malformed JSON: the record ends before its line does"
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d of the line: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// lineReader reads one line of br: io.EOF after its newline (or at the end
// of br), errLineTooLong as soon as the line passes max bytes and
// errTooManyValues as soon as it holds more than MaxRecordValues values or
// MaxRecordObjects objects, so a line is never read further than the
// limits. err keeps the first error that did not come from the JSON.
type lineReader struct {
	br   *bufio.Reader
	n    int
	max  int
	done bool
	err  error
	// values and objects count the commas and braces outside strings so
	// far; inString and escaped say where the last byte read left the JSON.
	values, objects   int
	inString, escaped bool
}

func (l *lineReader) Read(p []byte) (int, error) {
	if l.done || l.err != nil {
		return 0, cmp.Or(l.err, io.EOF)
	}
	if _, err := l.br.Peek(1); err == io.EOF {
		return 0, io.EOF
	} else if err != nil {
		l.err = err
		return 0, err
	}
	b, _ := l.br.Peek(min(len(p), l.br.Buffered()))
	size := len(b)
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b, size, l.done = b[:i+1], i, true
	}
	if l.n+size > l.max {
		l.err = errLineTooLong
		return 0, l.err
	}
	if l.count(b); l.values > MaxRecordValues || l.objects > MaxRecordObjects {
		l.err = errTooManyValues
		return 0, l.err
	}
	n := copy(p, b)
	l.br.Discard(n)
	l.n += n
	return n, nil
}

// count counts the values b adds to the line.
func (l *lineReader) count(b []byte) {
	for _, c := range b {
		switch {
		case l.escaped:
			l.escaped = false
		case l.inString:
			l.escaped = c == '\\'
			l.inString = c != '"'
		case c == '"':
			l.inString = true
		case c == ',':
			l.values++
		case c == '{':
			l.objects++
		}
	}
}

// checkRecord says what is wrong with a record, each problem under its
// field ("fact.text"; "" for the record): the limits of the API, so an
// import holds nothing the API would have refused, and the stores' rules
// on ids, so that no write fails once an import has begun.
func checkRecord(rec *Record) entity.FieldErrors {
	fe := entity.FieldErrors{}
	n := 0
	for _, set := range []bool{rec.Tombstone != nil, rec.Entity != nil, rec.Episode != nil, rec.Fact != nil} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		fe.Add("", "exactly one of tombstone, entity, episode, fact")
	case rec.Tombstone != nil:
		t := rec.Tombstone
		checkID(fe, "tombstone.fingerprint", t.Fingerprint, true)
		entity.CheckLen(fe, "tombstone.reason", t.Reason, entity.MaxReasonLen)
		checkIDs(fe, "tombstone.fact_ids", t.FactIDs)
	case rec.Entity != nil:
		e := rec.Entity
		checkID(fe, "entity.id", e.ID, true)
		if strings.TrimSpace(e.Name) == "" {
			fe.Add("entity.name", "required")
		}
		entity.CheckLen(fe, "entity.name", e.Name, entity.MaxNameLen)
		entity.CheckLen(fe, "entity.type", e.Type, entity.MaxPredicateLen)
		entity.CheckLen(fe, "entity.summary", e.Summary, entity.MaxTextLen)
		for i, a := range e.Aliases {
			if len(a) > entity.MaxNameLen {
				entity.CheckLen(fe, fmt.Sprintf("entity.aliases[%d]", i), a, entity.MaxNameLen)
			}
		}
		entity.CheckAttributes(fe, "entity.attributes", e.Attributes)
	case rec.Episode != nil:
		e := rec.Episode
		checkID(fe, "episode.id", e.ID, true)
		checkID(fe, "episode.idempotency_key", e.IdempotencyKey, false)
		switch e.Status {
		case entity.EpisodeQueued, entity.EpisodeProcessing, entity.EpisodeDone, entity.EpisodeFailed:
		default:
			fe.Add("episode.status", "must be queued, processing, done or failed")
		}
		addFields(fe, "episode.", ValidateEpisode(&EpisodeInput{Content: e.Content, Kind: e.Kind, Speaker: e.Speaker,
			Role: e.Role, SourceKind: e.SourceKind, IdempotencyKey: e.IdempotencyKey, Metadata: e.Metadata}))
		checkIDs(fe, "episode.fact_ids", e.FactIDs)
		checkYear(fe, "episode.reference_time", e.ReferenceTime)
	case rec.Fact != nil:
		f := rec.Fact
		checkID(fe, "fact.id", f.ID, true)
		checkID(fe, "fact.subject_id", f.SubjectID, true)
		checkID(fe, "fact.object_id", f.ObjectID, false)
		checkID(fe, "fact.predicate", f.Predicate, true)
		checkID(fe, "fact.supersedes", f.Supersedes, false)
		checkID(fe, "fact.superseded_by", f.SupersededBy, false)
		checkIDs(fe, "fact.episode_ids", f.EpisodeIDs)
		addFields(fe, "fact.", f.Validate())
		entity.CheckLen(fe, "fact.subject", f.Subject, entity.MaxNameLen)
		entity.CheckLen(fe, "fact.predicate", f.Predicate, entity.MaxPredicateLen)
		entity.CheckLen(fe, "fact.object", f.Object, entity.MaxNameLen)
		entity.CheckLen(fe, "fact.value", f.Value, entity.MaxValueLen)
		entity.CheckLen(fe, "fact.text", f.Text, entity.MaxTextLen)
		checkYear(fe, "fact.valid_from", f.ValidFrom)
		if f.ValidTo != nil {
			checkYear(fe, "fact.valid_to", *f.ValidTo)
		}
		for i := range f.Claims {
			c := &f.Claims[i]
			p := fmt.Sprintf("fact.claims[%d].", i)
			checkYear(fe, p+"from", c.From)
			if c.To != nil {
				checkYear(fe, p+"to", *c.To)
			}
			checkYear(fe, p+"said", c.Said)
			checkID(fe, p+"episode_id", c.EpisodeID, false)
			entity.CheckLen(fe, p+"text", c.Text, entity.MaxTextLen)
			entity.CheckAttributes(fe, p+"attributes", c.Attributes)
		}
		for i := range f.Revisions {
			p := fmt.Sprintf("fact.revisions[%d].", i)
			checkID(fe, p+"supersedes", f.Revisions[i].Supersedes, false)
			checkID(fe, p+"superseded_by", f.Revisions[i].SupersededBy, false)
		}
	}
	return fe
}

// checkID adds to fe what keeps id from being a key in the stores.
func checkID(fe entity.FieldErrors, field, id string, required bool) {
	switch {
	case id == "" && required:
		fe.Add(field, "required")
	case len(id) > entity.MaxIDBytes:
		fe.Add(field, fmt.Sprintf("at most %d bytes", entity.MaxIDBytes))
	case strings.IndexByte(id, 0) >= 0:
		fe.Add(field, "must not contain a NUL character")
	}
}

// checkYear refuses a time outside the years every other interface reads
// (entity.ParseTime); the zero time is an unknown start, not year 1.
func checkYear(fe entity.FieldErrors, field string, t time.Time) {
	if y := t.UTC().Year(); !t.IsZero() && (y < entity.MinYear || y > entity.MaxYear) {
		fe.Add(field, fmt.Sprintf("the year must be %d to %d", entity.MinYear, entity.MaxYear))
	}
}

// checkIDs checks a list of ids, naming each by its index.
func checkIDs(fe entity.FieldErrors, field string, ids []string) {
	for i, id := range ids {
		if len(id) > entity.MaxIDBytes || strings.IndexByte(id, 0) >= 0 {
			checkID(fe, fmt.Sprintf("%s[%d]", field, i), id, false)
		}
	}
}

// addFields adds the field errors of err, a FieldErrors error or nil, to
// fe under prefix.
func addFields(fe entity.FieldErrors, prefix string, err error) {
	var e *entity.Error
	if errors.As(err, &e) {
		for field, msg := range e.Fields {
			fe.Add(prefix+field, msg)
		}
	}
}

// maxImportIDs bounds what checking an import's references keeps in
// memory: the ids of its records, the idempotency keys of its episodes
// and the ids it refers to that it had not defined when they were read,
// each as a keyed 64-bit hash (a few bytes each, so a few tens of MB in
// all, however the import is made).
const maxImportIDs = 2 << 20

// refs checks that the ids an import's records refer to name records of
// the right kind, in the import or already in the scope, and that no
// idempotency key would name two episodes. The hashes are keyed with a
// random seed, so an id could pass for another only by a collision no
// input can aim at.
type refs struct {
	seed    maphash.Seed
	defined map[uint64]struct{}
	// pending are the ids referred to before the import defined them:
	// defined later, in the scope, or nowhere.
	pending map[uint64]struct{}
	// keys maps each idempotency key to the first episode holding it.
	keys map[uint64]keyUse
}

// keyUse is the episode (hashed id) and line that first hold a key.
type keyUse struct {
	episode uint64
	line    int
}

func newRefs() *refs {
	return &refs{seed: maphash.MakeSeed(), defined: map[uint64]struct{}{}, pending: map[uint64]struct{}{}, keys: map[uint64]keyUse{}}
}

func (r *refs) key(kind, id string) uint64 {
	return maphash.Comparable(r.seed, [2]string{kind, id})
}

// eachRef calls fn with every id rec refers to, the field that holds it
// (with %d for the index i) and the kind of record it must name: a fact's
// subject, object, episodes (its own and its claims') and the facts it
// supersedes or is superseded by. Former beliefs (revisions), the facts a
// tombstone forgot and the facts an episode led to are history that a
// purge may have deleted since; they are kept as they are.
func eachRef(rec *Record, fn func(field string, i int, kind, id string) error) error {
	f := rec.Fact
	if f == nil {
		return nil
	}
	for _, r := range []struct{ field, kind, id string }{
		{"fact.subject_id", graph.KindEntity, f.SubjectID}, {"fact.object_id", graph.KindEntity, f.ObjectID},
		{"fact.supersedes", graph.KindFact, f.Supersedes}, {"fact.superseded_by", graph.KindFact, f.SupersededBy},
	} {
		if err := fn(r.field, 0, r.kind, r.id); err != nil {
			return err
		}
	}
	for i, id := range f.EpisodeIDs {
		if err := fn("fact.episode_ids[%d]", i, graph.KindEpisode, id); err != nil {
			return err
		}
	}
	for i := range f.Claims {
		if err := fn("fact.claims[%d].episode_id", i, graph.KindEpisode, f.Claims[i].EpisodeID); err != nil {
			return err
		}
	}
	return nil
}

// add notes what rec defines and refers to; a reference to a record
// already read is settled at once.
func (r *refs) add(line int, rec *Record) error {
	full := func() error {
		if len(r.defined)+len(r.pending)+len(r.keys) <= maxImportIDs {
			return nil
		}
		return entity.FieldErrors{fmt.Sprintf("line[%d]", line): fmt.Sprintf("the import holds more than %d records, "+
			"idempotency keys and references to records after them: split it (entities, episodes, then facts)", maxImportIDs)}.Err()
	}
	switch {
	case rec.Entity != nil:
		r.defined[r.key(graph.KindEntity, rec.Entity.ID)] = struct{}{}
	case rec.Episode != nil:
		e := rec.Episode
		id := r.key(graph.KindEpisode, e.ID)
		r.defined[id] = struct{}{}
		if e.IdempotencyKey == "" {
			break
		}
		k := r.key("idempotency_key", e.IdempotencyKey)
		if u, ok := r.keys[k]; !ok {
			r.keys[k] = keyUse{episode: id, line: line}
		} else if u.episode != id {
			return entity.FieldErrors{fmt.Sprintf("line[%d].episode.idempotency_key", line): fmt.Sprintf(
				"the key of another episode, on line %d", u.line)}.Err()
		}
	case rec.Fact != nil:
		r.defined[r.key(graph.KindFact, rec.Fact.ID)] = struct{}{}
	}
	err := eachRef(rec, func(_ string, _ int, kind, id string) error {
		if id == "" {
			return nil
		}
		if h := r.key(kind, id); !has(r.defined, h) {
			r.pending[h] = struct{}{}
			return full()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return full()
}

func has(set map[uint64]struct{}, h uint64) bool {
	_, ok := set[h]
	return ok
}

// maxProblems bounds the problems one refusal names.
const maxProblems = 10

// lookup is a reference, or an idempotency key of episode, to look up in
// the scope.
type lookup struct {
	line         int
	field        string
	i            int
	kind, id     string
	key, episode string
}

// check reads the import again from spool when it must: to look up in
// the scope the references the import did not settle and the idempotency
// keys of its episodes. It refuses the import naming (up to maxProblems
// of) the references to nothing and the keys another episode of the scope
// holds.
func (r *refs) check(ctx context.Context, store graph.Store, scope entity.Scope, spool io.Reader) error {
	for h := range r.pending {
		if has(r.defined, h) {
			delete(r.pending, h)
		}
	}
	if len(r.pending) == 0 && len(r.keys) == 0 {
		return nil
	}
	c := refCheck{ctx: ctx, r: r, store: store, scope: scope, fe: entity.FieldErrors{}}
	err := readRecords(spool, false, func(line, _ int, rec *Record) error {
		if e := rec.Episode; e != nil && e.IdempotencyKey != "" {
			if err := c.add(lookup{line: line, field: "episode.idempotency_key", key: e.IdempotencyKey, episode: e.ID}); err != nil {
				return err
			}
		}
		return eachRef(rec, func(field string, i int, kind, id string) error {
			if id == "" || !has(r.pending, r.key(kind, id)) {
				return nil
			}
			return c.add(lookup{line: line, field: field, i: i, kind: kind, id: id})
		})
	})
	if err == nil {
		err = c.lookUp()
	}
	if err != nil && err != errEnough {
		return err
	}
	if c.conflicts > 0 && c.conflicts == len(c.fe) {
		// Every problem is a key the scope already gives another episode:
		// the import is well formed but clashes with what is stored.
		return &entity.Error{Code: entity.ECONFLICT, Message: "an idempotency key of the import is another episode's in the scope",
			Fields: map[string]string(c.fe)}
	}
	return c.fe.Err()
}

// refCheck looks up the references and keys of an import in the scope, a
// page at a time, and gathers the problems.
type refCheck struct {
	ctx       context.Context
	r         *refs
	store     graph.Store
	scope     entity.Scope
	fe        entity.FieldErrors
	conflicts int      // of fe's problems, keys another episode of the scope holds
	page      []lookup // not looked up yet
}

// add queues l, looking the page up when it is full.
func (c *refCheck) add(l lookup) error {
	c.page = append(c.page, l)
	if len(c.page) < exportPage {
		return nil
	}
	return c.lookUp()
}

// lookUp looks the page up in one read, settles the references found and
// reports the others; it returns errEnough once maxProblems are found.
func (c *refCheck) lookUp() error {
	found, got, err := c.find()
	if err != nil {
		return err
	}
	for _, h := range found {
		delete(c.r.pending, h)
	}
	for _, l := range got {
		field, msg := l.field, fmt.Sprintf("no %s %q in the import or the scope", l.kind, l.id)
		if l.key != "" {
			msg = fmt.Sprintf("the key of episode %q in the scope", l.id)
			c.conflicts++
		} else if strings.Contains(field, "%d") {
			field = fmt.Sprintf(field, l.i)
		}
		if len(c.fe) < maxProblems {
			c.fe.Add(fmt.Sprintf("line[%d].%s", l.line, field), msg)
		}
	}
	c.page = c.page[:0]
	if len(c.fe) >= maxProblems {
		return errEnough
	}
	return nil
}

// find looks the page up in the scope: it returns the pending references
// the scope holds, and the lookups that fail, references to nothing and
// keys another episode holds (its id in the lookup's id).
func (c *refCheck) find() (found []uint64, got []lookup, err error) {
	err = c.store.View(c.ctx, c.scope, func(tx graph.Tx) error {
		found, got = found[:0], got[:0]
		for _, l := range c.page {
			if l.key != "" {
				other, err := tx.EpisodeByKey(l.key)
				if err == nil && other.ID != l.episode {
					l.id = other.ID
					got = append(got, l)
				} else if err != nil && entity.ErrorCode(err) != entity.ENOTFOUND {
					return err
				}
				continue
			}
			h := c.r.key(l.kind, l.id)
			if !has(c.r.pending, h) || slices.Contains(found, h) {
				continue
			}
			ok, err := exists(tx, l.kind, l.id)
			if err != nil {
				return err
			}
			if ok {
				found = append(found, h)
			} else {
				got = append(got, l)
			}
		}
		return nil
	})
	return found, got, err
}

var errEnough = errors.New("enough problems found")

// exists reports whether the scope holds a record of the kind with the id.
func exists(tx graph.Tx, kind, id string) (bool, error) {
	var err error
	switch kind {
	case graph.KindEntity:
		_, err = tx.Entity(id)
	case graph.KindEpisode:
		_, err = tx.Episode(id)
	default:
		_, err = tx.Fact(id)
	}
	if entity.ErrorCode(err) == entity.ENOTFOUND {
		return false, nil
	}
	return err == nil, err
}

func (s *Service) importBatch(tx graph.Tx, scope entity.Scope, batch []Record, res *ImportResult) error {
	var ents []entity.Entity
	var facts []entity.Fact
	fps := map[string]bool{}
	for _, r := range batch {
		if r.Fact != nil {
			r.Fact.Scope = scope
			fps[FactFingerprint(r.Fact)] = true
		}
	}
	tombs, err := tx.Tombstones(mapKeys(fps))
	if err != nil {
		return err
	}
	for _, r := range batch {
		switch {
		case r.Tombstone != nil:
			t := *r.Tombstone
			t.Scope = scope
			if err := tx.PutTombstone(t); err != nil {
				return err
			}
			tombs[t.Fingerprint] = t
			res.Tombstones++
		case r.Entity != nil:
			e := *r.Entity
			e.Scope, e.Seq = scope, 0
			ents = append(ents, e)
		case r.Episode != nil:
			e := *r.Episode
			e.Scope, e.Seq = scope, 0
			// An episode the scope has since forgotten stays forgotten.
			if old, err := tx.Episode(e.ID); err == nil && old.ForgottenAt != nil && e.ForgottenAt == nil {
				e.ForgottenAt = old.ForgottenAt
			} else if err != nil && entity.ErrorCode(err) != entity.ENOTFOUND {
				return err
			}
			if err := tx.PutEpisode(e); err != nil {
				return err
			}
			res.Episodes++
		case r.Fact != nil:
			f := *r.Fact
			f.Scope, f.Seq = scope, 0
			if t, ok := tombs[FactFingerprint(&f)]; ok && f.ForgottenAt == nil &&
				!(f.SourceKind == entity.UserExplicit && f.RecordedAt.After(t.At)) {
				res.Blocked++
				continue
			}
			facts = append(facts, f)
		}
	}
	if err := tx.PutEntities(ents); err != nil {
		return err
	}
	res.Entities += len(ents)
	if err := tx.PutFacts(facts); err != nil {
		return err
	}
	res.Facts += len(facts)
	return nil
}
