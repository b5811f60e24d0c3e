package bolt

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"time"
	"unsafe"

	"github.com/graphmem/graphmem/entity"
)

// A stored value is the 8-byte big-endian sequence number of the write,
// a format version byte, then the record's fields in a fixed order. The
// scope and id are not repeated: they are the key. Fields that decide index
// keys come first so a rewrite can find the old index keys without decoding
// the whole previous record.
//
// Fields may only ever be appended at the end, with a new format version:
// a record of an older version decodes with zero values for the fields it
// lacks, and a record of the current version must be whole.
const codecVersion = 4

var errCorrupt = errors.New("corrupt record")

type writer struct{ b []byte }

func (w *writer) byte(c byte)      { w.b = append(w.b, c) }
func (w *writer) uvarint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *writer) varint(v int64)   { w.b = binary.AppendVarint(w.b, v) }

func (w *writer) str(s string) {
	w.uvarint(uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *writer) strs(ss []string) {
	w.uvarint(uint64(len(ss)))
	for _, s := range ss {
		w.str(s)
	}
}

func (w *writer) bool(v bool) {
	if v {
		w.byte(1)
	} else {
		w.byte(0)
	}
}

func (w *writer) float(f float64) {
	w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(f))
}

// Times are stored as a tag (0 nil pointer, 1 zero time, 2 set) then Unix
// seconds and nanoseconds; they decode in UTC.
func (w *writer) time(t time.Time) {
	if t.IsZero() {
		w.byte(1)
		return
	}
	w.byte(2)
	w.varint(t.Unix())
	w.uvarint(uint64(t.Nanosecond()))
}

func (w *writer) ptime(t *time.Time) {
	if t == nil {
		w.byte(0)
		return
	}
	w.time(*t)
}

// anyMap stores a free-form map as JSON; nil and empty both read back nil.
func (w *writer) anyMap(m map[string]any) error {
	if len(m) == 0 {
		w.uvarint(0)
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	w.uvarint(uint64(len(b)))
	w.b = append(w.b, b...)
	return nil
}

type reader struct {
	b       []byte
	err     error
	version byte
	// owned: b is a view of a string copied from the stored value (see
	// bodyOwned), so str slices it instead of copying.
	owned bool
	// times holds what ptime points at, so a record's optional times
	// share an allocation.
	times []time.Time
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errCorrupt
	}
	r.b = nil
}

// more reports whether fields remain; see the note on appending fields.
func (r *reader) more() bool { return len(r.b) > 0 }

func (r *reader) byte() byte {
	if len(r.b) < 1 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

// str copies, unless the reader owns its bytes: the bytes belong to the
// database and die with the transaction.
func (r *reader) str() string {
	b := r.bytes()
	if r.owned && len(b) > 0 {
		return unsafe.String(&b[0], len(b))
	}
	return string(b)
}

func (r *reader) strs() []string {
	n := r.uvarint()
	if n == 0 {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = r.str()
	}
	return ss
}

func (r *reader) bool() bool { return r.byte() != 0 }

func (r *reader) float() float64 {
	if len(r.b) < 8 {
		r.fail()
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return math.Float64frombits(v)
}

func (r *reader) time() time.Time {
	t, _ := r.timeTag()
	return t
}

func (r *reader) timeTag() (time.Time, byte) {
	switch tag := r.byte(); tag {
	case 0, 1:
		return time.Time{}, tag
	case 2:
		sec := r.varint()
		nsec := r.uvarint()
		if nsec >= 1e9 {
			r.fail()
			return time.Time{}, 0
		}
		return time.Unix(sec, int64(nsec)).UTC(), tag
	default:
		r.fail()
		return time.Time{}, 0
	}
}

func (r *reader) ptime() *time.Time {
	t, tag := r.timeTag()
	if tag == 0 {
		return nil
	}
	if len(r.times) == cap(r.times) {
		r.times = make([]time.Time, 0, 8) // never grown: pointers stay put
	}
	r.times = append(r.times, t)
	return &r.times[len(r.times)-1]
}

func (r *reader) anyMap() map[string]any {
	b := r.bytes()
	if len(b) == 0 {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		r.fail()
		return nil
	}
	return m
}

// header starts a stored value: sequence number and format version.
func header(seq uint64, sizeHint int) writer {
	w := writer{b: make([]byte, 0, sizeHint)}
	w.b = binary.BigEndian.AppendUint64(w.b, seq)
	w.byte(codecVersion)
	return w
}

// body checks the header of a stored value and returns a reader over its
// fields and the sequence number.
func body(v []byte) (reader, uint64) {
	if len(v) < 9 || v[8] < 1 || v[8] > codecVersion {
		return reader{err: errCorrupt}, 0
	}
	return reader{b: v[9:], version: v[8]}, binary.BigEndian.Uint64(v)
}

// bodyOwned is body for a whole record's decoding: the fields are copied
// out of the database once, as one string, and the record's strings are
// parts of it (one allocation instead of one per string).
func bodyOwned(v []byte) (reader, uint64) {
	r, seq := body(v)
	if r.err == nil && len(r.b) > 0 {
		own := string(r.b)
		r.b, r.owned = unsafe.Slice(unsafe.StringData(own), len(own)), true
	}
	return r, seq
}

// seqOf returns the sequence number a stored value was written at.
func seqOf(v []byte) uint64 {
	if len(v) < 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

// factHead holds the fields of a fact that decide its index keys.
type factHead struct {
	SubjectID, Predicate, ObjectID, Value string
}

func encodeFact(seq uint64, f *entity.Fact) ([]byte, error) {
	w := header(seq, 256+len(f.Text)+len(f.Value)+96*len(f.Claims)+64*len(f.Revisions))
	w.str(f.SubjectID)
	w.str(f.Predicate)
	w.str(f.ObjectID)
	w.str(f.Value)
	w.str(f.Subject)
	w.str(f.Object)
	w.str(f.Text)
	w.time(f.ValidFrom)
	w.ptime(f.ValidTo)
	w.time(f.RecordedAt)
	w.ptime(f.ExpiredAt)
	w.str(f.Supersedes)
	w.str(f.SupersededBy)
	w.strs(f.EpisodeIDs)
	w.str(string(f.SourceKind))
	w.float(f.Confidence)
	w.varint(int64(f.Importance))
	if err := w.anyMap(f.Attributes); err != nil {
		return nil, err
	}
	w.varint(f.Hits)
	w.ptime(f.LastAccessedAt)
	w.ptime(f.ExpiresAt)
	w.ptime(f.ForgottenAt)
	w.ptime(f.ArchivedAt)
	w.uvarint(uint64(len(f.Claims)))
	for i := range f.Claims {
		c := &f.Claims[i]
		w.time(c.From)
		w.ptime(c.To)
		w.bool(c.End)
		w.str(c.EpisodeID)
		w.str(string(c.SourceKind))
		w.float(c.Confidence)
		w.time(c.RecordedAt)
	}
	w.uvarint(uint64(len(f.Revisions)))
	for i := range f.Revisions {
		v := &f.Revisions[i]
		w.time(v.Until)
		w.time(v.ValidFrom)
		w.ptime(v.ValidTo)
		w.str(v.Supersedes)
		w.str(v.SupersededBy)
	}
	w.time(f.UpdatedAt)
	// Appended later: the claims' reference times and payload, conflicts
	// and the waiting mark.
	for i := range f.Claims {
		c := &f.Claims[i]
		w.time(c.Said)
		w.bool(c.Dated)
		w.str(c.Text)
		w.varint(int64(c.Importance))
		if err := w.anyMap(c.Attributes); err != nil {
			return nil, err
		}
	}
	w.strs(f.Conflicts)
	w.bool(f.Waiting)
	return w.b, nil
}

func readFactHead(r *reader) factHead {
	return factHead{SubjectID: r.str(), Predicate: r.str(), ObjectID: r.str(), Value: r.str()}
}

// decodeFactHead reads only the indexed fields of a stored fact.
func decodeFactHead(v []byte) (factHead, uint64, error) {
	r, seq := body(v)
	h := readFactHead(&r)
	return h, seq, r.err
}

// storedValidAt reports whether a stored fact may be valid at t, reading
// only its interval: a walk around a hub skips the superseded versions
// without decoding them. A value it cannot read may be valid (decodeFact
// then reports it).
func storedValidAt(v []byte, t time.Time) bool {
	r, _ := body(v)
	for range 7 { // the head's four fields, subject, object, text
		r.bytes()
	}
	var f entity.Fact
	f.ValidFrom = r.time()
	to, tag := r.timeTag()
	if tag != 0 {
		f.ValidTo = &to
	}
	return r.err != nil || f.ValidAt(t)
}

func decodeFact(scope, id string, v []byte) (entity.Fact, error) {
	r, seq := bodyOwned(v)
	h := readFactHead(&r)
	f := entity.Fact{
		ID: id, Scope: scope, Seq: seq,
		SubjectID: h.SubjectID, Predicate: h.Predicate, ObjectID: h.ObjectID, Value: h.Value,
	}
	f.Subject = r.str()
	f.Object = r.str()
	f.Text = r.str()
	f.ValidFrom = r.time()
	f.ValidTo = r.ptime()
	f.RecordedAt = r.time()
	f.ExpiredAt = r.ptime()
	f.Supersedes = r.str()
	f.SupersededBy = r.str()
	f.EpisodeIDs = r.strs()
	f.SourceKind = entity.SourceKind(r.str())
	f.Confidence = r.float()
	f.Importance = int(r.varint())
	f.Attributes = r.anyMap()
	f.Hits = r.varint()
	f.LastAccessedAt = r.ptime()
	f.ExpiresAt = r.ptime()
	f.ForgottenAt = r.ptime()
	f.ArchivedAt = r.ptime()
	if n := r.uvarint(); n > 0 && n <= uint64(len(r.b)) {
		f.Claims = make([]entity.Claim, n)
		for i := range f.Claims {
			c := &f.Claims[i]
			c.From = r.time()
			c.To = r.ptime()
			c.End = r.bool()
			c.EpisodeID = r.str()
			c.SourceKind = entity.SourceKind(r.str())
			c.Confidence = r.float()
			c.RecordedAt = r.time()
		}
	} else if n > 0 {
		r.fail()
	}
	if n := r.uvarint(); n > 0 && n <= uint64(len(r.b)) {
		f.Revisions = make([]entity.Revision, n)
		for i := range f.Revisions {
			v := &f.Revisions[i]
			v.Until = r.time()
			v.ValidFrom = r.time()
			v.ValidTo = r.ptime()
			v.Supersedes = r.str()
			v.SupersededBy = r.str()
		}
	} else if n > 0 {
		r.fail()
	}
	f.UpdatedAt = r.time()
	if r.version < 2 {
		return f, r.err
	}
	for i := range f.Claims {
		c := &f.Claims[i]
		c.Said = r.time()
		c.Dated = r.bool()
		c.Text = r.str()
		c.Importance = int(r.varint())
		c.Attributes = r.anyMap()
	}
	f.Conflicts = r.strs()
	f.Waiting = r.bool()
	if r.more() {
		r.fail()
	}
	return f, r.err
}

// entityHead holds the fields of an entity that decide its index keys.
type entityHead struct {
	Name    string
	Aliases []string
}

func encodeEntity(seq uint64, e *entity.Entity) ([]byte, error) {
	w := header(seq, 96+len(e.Name)+len(e.Summary))
	w.str(e.Name)
	w.strs(e.Aliases)
	w.str(e.Type)
	w.str(e.Summary)
	if err := w.anyMap(e.Attributes); err != nil {
		return nil, err
	}
	w.time(e.CreatedAt)
	w.time(e.UpdatedAt)
	w.ptime(e.ForgottenAt)
	return w.b, nil
}

func decodeEntityHead(v []byte) (entityHead, uint64, error) {
	r, seq := body(v)
	h := entityHead{Name: r.str(), Aliases: r.strs()}
	return h, seq, r.err
}

func decodeEntity(scope, id string, v []byte) (entity.Entity, error) {
	r, seq := bodyOwned(v)
	e := entity.Entity{ID: id, Scope: scope, Seq: seq}
	e.Name = r.str()
	e.Aliases = r.strs()
	e.Type = r.str()
	e.Summary = r.str()
	e.Attributes = r.anyMap()
	e.CreatedAt = r.time()
	e.UpdatedAt = r.time()
	e.ForgottenAt = r.ptime()
	return e, r.err
}

// episodeHead holds the fields of an episode that decide its index keys.
type episodeHead struct {
	Status         string
	IdempotencyKey string
	ReferenceTime  time.Time
	NextAttemptAt  *time.Time
}

func encodeEpisode(seq uint64, e *entity.Episode) ([]byte, error) {
	w := header(seq, 128+len(e.Content))
	w.str(e.Status)
	w.str(e.IdempotencyKey)
	w.time(e.ReferenceTime)
	w.ptime(e.NextAttemptAt)
	w.str(e.Kind)
	w.str(e.Content)
	w.str(e.Speaker)
	w.str(e.Role)
	w.time(e.RecordedAt)
	w.str(string(e.SourceKind))
	w.str(e.Error)
	w.varint(int64(e.Attempts))
	if err := w.anyMap(e.Metadata); err != nil {
		return nil, err
	}
	w.strs(e.FactIDs)
	w.ptime(e.ForgottenAt)
	w.varint(e.PromptTokens)
	w.varint(e.CompletionTokens)
	var x []byte
	if e.Extraction != nil {
		var err error
		if x, err = json.Marshal(e.Extraction); err != nil {
			return nil, err
		}
	}
	w.str(string(x))
	return w.b, nil
}

func readEpisodeHead(r *reader) episodeHead {
	return episodeHead{Status: r.str(), IdempotencyKey: r.str(), ReferenceTime: r.time(), NextAttemptAt: r.ptime()}
}

func decodeEpisodeHead(v []byte) (episodeHead, uint64, error) {
	r, seq := body(v)
	h := readEpisodeHead(&r)
	return h, seq, r.err
}

func decodeEpisode(scope, id string, v []byte) (entity.Episode, error) {
	r, seq := bodyOwned(v)
	h := readEpisodeHead(&r)
	e := entity.Episode{
		ID: id, Scope: scope, Seq: seq,
		Status: h.Status, IdempotencyKey: h.IdempotencyKey,
		ReferenceTime: h.ReferenceTime, NextAttemptAt: h.NextAttemptAt,
	}
	e.Kind = r.str()
	e.Content = r.str()
	e.Speaker = r.str()
	e.Role = r.str()
	e.RecordedAt = r.time()
	e.SourceKind = entity.SourceKind(r.str())
	e.Error = r.str()
	e.Attempts = int(r.varint())
	e.Metadata = r.anyMap()
	e.FactIDs = r.strs()
	e.ForgottenAt = r.ptime()
	if r.version >= 3 {
		e.PromptTokens = r.varint()
		e.CompletionTokens = r.varint()
	}
	if r.version >= 4 {
		if x := r.str(); x != "" && r.err == nil {
			e.Extraction = new(entity.Extraction)
			if err := json.Unmarshal([]byte(x), e.Extraction); err != nil {
				return e, errCorrupt
			}
		}
	}
	return e, r.err
}

func encodeTombstone(seq uint64, t *entity.Tombstone) []byte {
	w := header(seq, 64+len(t.Reason))
	w.time(t.At)
	w.str(t.Reason)
	w.strs(t.FactIDs)
	return w.b
}

func decodeTombstone(scope, fingerprint string, v []byte) (entity.Tombstone, error) {
	r, _ := body(v)
	t := entity.Tombstone{Scope: scope, Fingerprint: fingerprint}
	t.At = r.time()
	t.Reason = r.str()
	t.FactIDs = r.strs()
	return t, r.err
}
