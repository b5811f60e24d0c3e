package bolt

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// tx is a graph.Tx over one bbolt transaction and one scope.
type tx struct {
	btx     *bbolt.Tx
	scope   string
	buckets [numBuckets]*bbolt.Bucket
	// cursors serve get, one per bucket.
	cursors [numBuckets]*bbolt.Cursor
	// pairs is Chains' scratch list of stored keys and values.
	pairs [][2][]byte
	done  bool
	// last is the highest sequence number the transaction gave.
	last uint64
	// stale are the change entries of the writes this transaction
	// replaced, handed to the sweeper once it commits.
	stale []uint64
	// lastFactID is the highest key (scope 0 id) in the fact id bucket
	// when the transaction first wrote a fact, raised by its own new
	// facts; nil until then. A fact whose key sorts above it is not
	// stored, so PutFacts skips looking it up (ids are time-ordered, so
	// that is every new fact).
	lastFactID []byte
	// gone says, per kind, whether the scope may hold deletions of that
	// kind (0 not yet known, goneNone, goneSome), so a record written for
	// the first time skips the lookup of its deletion when there are none.
	gone [256]byte
}

const (
	goneNone byte = 1 + iota
	goneSome
)

var _ graph.Tx = (*tx)(nil)

func newTx(btx *bbolt.Tx, scope string) *tx { return &tx{btx: btx, scope: scope} }

// end makes later use of t fail cleanly instead of touching unmapped pages.
func (t *tx) end() { t.done = true }

func (t *tx) bucket(i int) *bbolt.Bucket {
	if t.buckets[i] == nil {
		b := t.btx.Bucket(bucketNames[i])
		if t.btx.Writable() {
			switch i {
			case bSeq, bEntity, bFactID, bEpisode:
				// Keys arrive mostly in ascending order (sequence numbers,
				// time-ordered ids): fill pages before splitting.
				b.FillPercent = 0.9
			}
		}
		t.buckets[i] = b
	}
	return t.buckets[i]
}

// get is Bucket.Get through a cursor kept for the transaction: a bbolt
// Get makes a cursor and its stack each time, and the write path reads
// several keys per record. Seek positions the cursor afresh, so writes
// between two gets do not matter.
func (t *tx) get(bucket int, key []byte) []byte {
	c := t.cursors[bucket]
	if c == nil {
		c = t.bucket(bucket).Cursor()
		t.cursors[bucket] = c
	}
	k, v := c.Seek(key)
	if !bytes.Equal(k, key) {
		return nil
	}
	return v
}

func (t *tx) check(op string) error {
	if t.done {
		return entity.Errorf(entity.EINTERNAL, "%s: transaction used after it ended", op)
	}
	return nil
}

// key returns scope 0x00 id.
func (t *tx) key(id string) []byte { return join(t.scope, id) }

// prefix returns scope 0x00 parts... 0x00: the prefix of every key under parts.
func (t *tx) prefix(parts ...string) []byte {
	return append(join(append([]string{t.scope}, parts...)...), sep)
}

// appendPrefix is prefix(part) written into dst (reused across calls).
func (t *tx) appendPrefix(dst []byte, part string) []byte {
	dst = append(append(append(dst[:0], t.scope...), sep), part...)
	return append(dst, sep)
}

func invalid(op, format string, args ...any) error {
	return &entity.Error{Code: entity.EINVALID, Op: op, Message: fmt.Sprintf(format, args...)}
}

// checkItemPart is checkPart for a field of item i of a list, naming it
// list[i].field; the name is only made for an error.
func checkItemPart(op, list string, i int, field, s string, required bool) error {
	if partOK(s, required) {
		return nil
	}
	return checkPart(op, fmt.Sprintf("%s[%d].%s", list, i, field), s, required)
}

// partOK reports whether s can be part of a key (checkPart says why not).
func partOK(s string, required bool) bool {
	return (s != "" || !required) && len(s) <= maxIDLen && strings.IndexByte(s, sep) < 0
}

// checkPart rejects strings that cannot be part of a key.
func checkPart(op, what, s string, required bool) error {
	if partOK(s, required) {
		return nil
	}
	switch {
	case s == "" && required:
		return invalid(op, "%s is required", what)
	case len(s) > maxIDLen:
		return invalid(op, "%s is longer than %d bytes", what, maxIDLen)
	case strings.IndexByte(s, sep) >= 0:
		return invalid(op, "%s contains a NUL byte", what)
	}
	return nil
}

// checkScope fills an empty scope with the transaction's and rejects any
// other: a transaction never writes outside its scope.
func (t *tx) checkScope(op string, s *entity.Scope) error {
	switch *s {
	case "":
		*s = t.scope
	case t.scope:
	default:
		return invalid(op, "record of scope %q written in scope %q", *s, t.scope)
	}
	return nil
}

// scan walks the keys prefix+id of bucket in id order, starting after the
// id in cursor, and returns up to limit (<= 0: no limit) records that get
// accepts. The cursor it returns is non-empty only if another accepted
// record follows, so a cursor never leads to an empty page.
func scan[T any](t *tx, op string, bucket int, prefix []byte, cursor string, limit int, get func(id string, v []byte) (T, bool, error)) ([]T, string, error) {
	after, err := graph.DecodeCursor(op, cursor)
	if err != nil {
		return nil, "", err
	}
	c := t.bucket(bucket).Cursor()
	var k, v []byte
	if after != "" {
		seek := append(bytes.Clone(prefix), after...)
		k, v = c.Seek(seek)
		if bytes.Equal(k, seek) {
			k, v = c.Next()
		}
	} else {
		k, v = c.Seek(prefix)
	}
	var out []T
	var lastID string
	for ; k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		id := string(k[len(prefix):])
		r, ok, err := get(id, v)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			continue
		}
		if limit > 0 && len(out) == limit {
			return out, graph.EncodeCursor(lastID), nil
		}
		out = append(out, r)
		lastID = id
	}
	return out, "", nil
}

// writeSeq gives the record named dataKey (scope 0 id) a new sequence
// number and records the change; prev is the sequence number of the
// record's stored value (0: none). The entry of the previous write (or of
// an earlier deletion) becomes stale: t.stale lists it for the sweeper
// (sweep.go), which removes such entries off the write path.
func (t *tx) writeSeq(kind byte, dataKey []byte, prev uint64, deleted bool) (uint64, error) {
	seqB := t.bucket(bSeq)
	gone := t.bucket(bGone)
	gk := goneKey(kind, dataKey)
	if prev == 0 && !deleted && t.mayBeGone(kind) {
		if g := t.get(bGone, gk); g != nil {
			prev = seqOf(g) // written again after its deletion
			if err := gone.Delete(gk); err != nil {
				return 0, err
			}
		}
	}
	seq, err := seqB.NextSequence()
	if err != nil {
		return 0, err
	}
	t.last = seq
	if err := seqB.Put(be64(seq), changeValue(kind, deleted, dataKey)); err != nil {
		return 0, err
	}
	if prev > 0 {
		t.stale = append(t.stale, prev)
	}
	if deleted {
		if err := gone.Put(gk, be64(seq)); err != nil {
			return 0, err
		}
		t.gone[kind] = goneSome
	}
	return seq, nil
}

// mayBeGone reports whether the scope holds any deletion of kind, looking
// once per transaction.
func (t *tx) mayBeGone(kind byte) bool {
	if t.gone[kind] == 0 {
		p := goneKey(kind, t.key(""))
		t.gone[kind] = goneNone
		if lastUnder(t.bucket(bGone).Cursor(), p) != nil {
			t.gone[kind] = goneSome
		}
	}
	return t.gone[kind] == goneSome
}

// latestSeq is the sequence number of the latest write of the record of
// kind named dataKey (scope 0 id), its deletion included; 0 if there is
// none.
func (t *tx) latestSeq(kind byte, dataKey []byte) uint64 {
	var v []byte
	switch kind {
	case kFact:
		if place := t.get(bFactID, dataKey); place != nil {
			scope, id, _ := splitScope(dataKey)
			v = t.get(bFact, placedKey(scope, id, place))
		}
	default:
		v = t.get(dataBucketOf(kind), dataKey)
	}
	if v == nil {
		v = t.get(bGone, goneKey(kind, dataKey))
	}
	return seqOf(v)
}

// reindex replaces the index entries old with now, touching only those
// that differ.
func (t *tx) reindex(old, now []ixEntry) error {
	for _, o := range old {
		keep := false
		for _, n := range now {
			if o.equal(n) {
				keep = true
				break
			}
		}
		if !keep {
			if err := t.bucket(o.bucket).Delete(o.key); err != nil {
				return err
			}
		}
	}
	for _, n := range now {
		had := false
		for _, o := range old {
			if o.equal(n) {
				had = true
				break
			}
		}
		if !had {
			if err := t.bucket(n.bucket).Put(n.key, n.val); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *tx) wrap(op string, err error) error { return translate(op, err) }

// ---- entities ----

// indexBroken reports an index entry without its record (err nil or
// ENOTFOUND from reading it): a bug or a damaged file, never the caller's
// fault. Use it only where the record is known to be missing or err says
// so.
func indexBroken(op, index, id string, err error) error {
	if err == nil || entity.ErrorCode(err) == entity.ENOTFOUND {
		return &entity.Error{Code: entity.EINTERNAL, Op: op, Message: fmt.Sprintf("%s points at missing record %q", index, id)}
	}
	return err
}

// indexOf names the index entries of a stored value of one kind.
type indexOf func(scope, id string, old []byte) ([]ixEntry, error)

// noIndex names no index entries: for a rewrite that keeps them all.
func noIndex(string, string, []byte) ([]ixEntry, error) { return nil, nil }

// putRecord writes one record: its index entries move from those of the
// stored value (if any) to now, it gets a new change sequence, and encode
// makes its value for that sequence.
func (t *tx) putRecord(op string, b *bbolt.Bucket, kind byte, id string, oldIndex indexOf, now []ixEntry, encode func(seq uint64) ([]byte, error)) error {
	k := t.key(id)
	v, err := t.newValue(op, kind, id, b.Get(k), oldIndex, now, encode)
	if err != nil {
		return err
	}
	return t.wrap(op, b.Put(k, v))
}

// newValue moves a record's index entries from those of its stored value
// old (nil: none) to now, gives it a new change sequence and returns the
// value encode makes for it.
func (t *tx) newValue(op string, kind byte, id string, old []byte, oldIndex indexOf, now []ixEntry, encode func(seq uint64) ([]byte, error)) ([]byte, error) {
	var oldIx []ixEntry
	if old != nil {
		var err error
		if oldIx, err = oldIndex(t.scope, id, old); err != nil {
			return nil, t.wrap(op, err)
		}
	}
	if err := t.reindex(oldIx, now); err != nil {
		return nil, t.wrap(op, err)
	}
	seq, err := t.writeSeq(kind, t.key(id), seqOf(old), false)
	if err != nil {
		return nil, t.wrap(op, err)
	}
	return encode(seq)
}

// deleteRecord deletes one record and its index entries, leaving a
// deletion in the change sequence; indexOf names the entries of the old
// value. Returns ENOTFOUND if there is no such record.
func (t *tx) deleteRecord(op, noun string, bucket int, kind byte, id string, oldIndex indexOf) error {
	if err := t.check(op); err != nil {
		return err
	}
	b := t.bucket(bucket)
	k := t.key(id)
	if err := t.dropValue(op, noun, kind, id, b.Get(k), oldIndex); err != nil {
		return err
	}
	return t.wrap(op, b.Delete(k))
}

// dropValue removes the index entries of a record's stored value old and
// lists its deletion in the change sequence. Returns ENOTFOUND if old is
// nil.
func (t *tx) dropValue(op, noun string, kind byte, id string, old []byte, oldIndex indexOf) error {
	if old == nil {
		return &entity.Error{Code: entity.ENOTFOUND, Op: op, Message: fmt.Sprintf("%s %q not found", noun, id)}
	}
	ix, err := oldIndex(t.scope, id, old)
	if err != nil {
		return t.wrap(op, err)
	}
	if err := t.reindex(ix, nil); err != nil {
		return t.wrap(op, err)
	}
	_, err = t.writeSeq(kind, t.key(id), seqOf(old), true)
	return t.wrap(op, err)
}

// ---- facts ----

// lastUnder positions c on the last key under prefix (nil: none).
func lastUnder(c *bbolt.Cursor, prefix []byte) []byte {
	var k []byte
	if end := prefixEnd(prefix); end == nil {
		k, _ = c.Last()
	} else if k, _ = c.Seek(end); k == nil {
		k, _ = c.Last()
	} else {
		k, _ = c.Prev()
	}
	if k == nil || !bytes.HasPrefix(k, prefix) {
		return nil
	}
	return k
}

// prevUnder moves c one key back, staying under prefix (nil: none left).
func prevUnder(c *bbolt.Cursor, prefix []byte) []byte {
	k, _ := c.Prev()
	if k == nil || !bytes.HasPrefix(k, prefix) {
		return nil
	}
	return k
}

// prefixEnd is the first key after every key under prefix (nil: none).
func prefixEnd(prefix []byte) []byte {
	end := bytes.Clone(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// pageIDs is scan over a sorted list of ids instead of index keys.
func pageIDs[T any](op string, ids []string, cursor string, limit int, get func(id string) (T, bool, error)) ([]T, string, error) {
	after, err := graph.DecodeCursor(op, cursor)
	if err != nil {
		return nil, "", err
	}
	if after != "" {
		i, found := slices.BinarySearch(ids, after)
		if found {
			i++
		}
		ids = ids[i:]
	}
	var out []T
	var lastID string
	for _, id := range ids {
		r, ok, err := get(id)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			continue
		}
		if limit > 0 && len(out) == limit {
			return out, graph.EncodeCursor(lastID), nil
		}
		out = append(out, r)
		lastID = id
	}
	return out, "", nil
}
