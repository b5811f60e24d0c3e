package bolt

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

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

func (t *tx) getEntity(op, id string) (entity.Entity, error) {
	v := t.get(bEntity, t.key(id))
	if v == nil {
		return entity.Entity{}, &entity.Error{Code: entity.ENOTFOUND, Op: op, Message: fmt.Sprintf("entity %q not found", id)}
	}
	e, err := decodeEntity(t.scope, id, v)
	return e, t.wrap(op, err)
}

func (t *tx) Entity(id string) (entity.Entity, error) {
	const op = "bolt.Entity"
	if err := t.check(op); err != nil {
		return entity.Entity{}, err
	}
	return t.getEntity(op, id)
}

func (t *tx) EntitiesByKey(keys []string) (map[string][]entity.Entity, error) {
	const op = "bolt.EntitiesByKey"
	if err := t.check(op); err != nil {
		return nil, err
	}
	out := make(map[string][]entity.Entity, len(keys))
	// One cursor and one key buffer serve every name.
	c := t.bucket(bName).Cursor()
	var prefix []byte
	for _, key := range keys {
		if _, done := out[key]; done {
			continue
		}
		norm := entity.Normalize(key)
		if norm == "" {
			continue
		}
		prefix = t.appendPrefix(prefix, truncKey(norm))
		var found []entity.Entity
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			id := string(k[len(prefix):])
			e, err := t.getEntity(op, id)
			if err != nil {
				return nil, indexBroken(op, "ix_name", id, err)
			}
			// A key cut to maxKeyPart may be shared by longer names.
			if len(norm) <= maxKeyPart || hasKey(&e, norm) {
				found = append(found, e)
			}
		}
		if len(found) > 0 {
			out[key] = found
		}
	}
	return out, nil
}

func hasKey(e *entity.Entity, key string) bool {
	for _, k := range e.Keys() {
		if k == key {
			return true
		}
	}
	return false
}

func hasKeyPrefix(e *entity.Entity, prefix string) bool {
	for _, k := range e.Keys() {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

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

func (t *tx) EntitiesByPrefix(prefix string, limit int) ([]entity.Entity, error) {
	const op = "bolt.EntitiesByPrefix"
	if err := t.check(op); err != nil {
		return nil, err
	}
	p := append(t.key(""), truncKey(prefix)...)
	seen := map[string]bool{}
	var out []entity.Entity
	c := t.bucket(bName).Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		if limit > 0 && len(out) >= limit {
			break
		}
		id := keyID(k)
		if seen[id] {
			continue
		}
		seen[id] = true
		e, err := t.getEntity(op, id)
		if err != nil {
			return nil, indexBroken(op, "ix_name", id, err)
		}
		if len(prefix) <= maxKeyPart || hasKeyPrefix(&e, prefix) {
			out = append(out, e)
		}
	}
	return out, nil
}

func (t *tx) Entities(cursor string, limit int) ([]entity.Entity, string, error) {
	const op = "bolt.Entities"
	if err := t.check(op); err != nil {
		return nil, "", err
	}
	return scan(t, op, bEntity, t.key(""), cursor, limit, func(id string, v []byte) (entity.Entity, bool, error) {
		e, err := decodeEntity(t.scope, id, v)
		return e, true, t.wrap(op, err)
	})
}

func (t *tx) PutEntities(es []entity.Entity) error {
	const op = "bolt.PutEntities"
	if err := t.check(op); err != nil {
		return err
	}
	b := t.bucket(bEntity)
	for i := range es {
		e := es[i]
		if err := checkItemPart(op, "entities", i, "id", e.ID, true); err != nil {
			return err
		}
		if strings.TrimSpace(e.Name) == "" {
			return invalid(op, "entities[%d].name is required", i)
		}
		if err := t.checkScope(op, &e.Scope); err != nil {
			return err
		}
		err := t.putRecord(op, b, kEntity, e.ID, entityIndexOf, entityIndex(t.scope, e.ID, &entityHead{Name: e.Name, Aliases: e.Aliases}),
			func(seq uint64) ([]byte, error) {
				v, err := encodeEntity(seq, &e)
				if err != nil {
					return nil, invalid(op, "entities[%d].attributes: %v", i, err)
				}
				return v, nil
			})
		if err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) DeleteEntity(id string) error {
	return t.deleteRecord("bolt.DeleteEntity", "entity", bEntity, kEntity, id, entityIndexOf)
}

// indexOf names the index entries of a stored value of one kind.
type indexOf func(scope, id string, old []byte) ([]ixEntry, error)

func entityIndexOf(scope, id string, old []byte) ([]ixEntry, error) {
	h, _, err := decodeEntityHead(old)
	return entityIndex(scope, id, &h), err
}

// sameHead reports whether the stored fact old has the indexed fields h.
func sameHead(old []byte, h *factHead) bool {
	oh, _, err := decodeFactHead(old)
	return err == nil && oh == *h
}

// noIndex names no index entries: for a rewrite that keeps them all.
func noIndex(string, string, []byte) ([]ixEntry, error) { return nil, nil }

func factIndexOf(scope, id string, old []byte) ([]ixEntry, error) {
	h, _, err := decodeFactHead(old)
	return factIndex(scope, id, &h), err
}

func episodeIndexOf(scope, id string, old []byte) ([]ixEntry, error) {
	h, _, err := decodeEpisodeHead(old)
	return episodeIndex(scope, id, &h), err
}

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

// factAt returns the key and stored value of fact id, nil if there is no
// such fact.
func (t *tx) factAt(op, id string) ([]byte, []byte, error) {
	place := t.get(bFactID, t.key(id))
	if place == nil {
		return nil, nil, nil
	}
	k := placedKey(t.scope, id, place)
	v := t.get(bFact, k)
	if v == nil {
		return nil, nil, indexBroken(op, "fact_id", id, nil)
	}
	return k, v, nil
}

// factToWrite is factAt for PutFacts: a fact whose key sorts above every
// stored one is new, with no lookup.
func (t *tx) factToWrite(op, id string) ([]byte, []byte, error) {
	if t.lastFactID == nil {
		p := t.key("")
		t.lastFactID = append([]byte{}, lastUnder(t.bucket(bFactID).Cursor(), p)...)
		if len(t.lastFactID) == 0 {
			t.lastFactID = p
		}
	}
	if k := t.key(id); bytes.Compare(k, t.lastFactID) > 0 {
		t.lastFactID = k
		return nil, nil, nil
	}
	return t.factAt(op, id)
}

// factValue is the stored value of fact id, nil if there is none.
func (t *tx) factValue(op, id string) ([]byte, error) {
	_, v, err := t.factAt(op, id)
	return v, err
}

func (t *tx) getFact(op, id string) (entity.Fact, error) {
	v, err := t.factValue(op, id)
	if err != nil {
		return entity.Fact{}, err
	}
	if v == nil {
		return entity.Fact{}, &entity.Error{Code: entity.ENOTFOUND, Op: op, Message: fmt.Sprintf("fact %q not found", id)}
	}
	f, err := decodeFact(t.scope, id, v)
	return f, t.wrap(op, err)
}

func (t *tx) Fact(id string) (entity.Fact, error) {
	const op = "bolt.Fact"
	if err := t.check(op); err != nil {
		return entity.Fact{}, err
	}
	return t.getFact(op, id)
}

func (t *tx) Chains(keys []graph.ChainKey) (map[graph.ChainKey][]entity.Fact, error) {
	const op = "bolt.Chains"
	if err := t.check(op); err != nil {
		return nil, err
	}
	// The stored pairs of every chain are gathered first, then decoded,
	// on two goroutines when there are many: the transaction writes
	// nothing meanwhile, so the pages stay put, and a batch's chains are
	// most of its reading.
	type span struct {
		key        graph.ChainKey
		start, end int
	}
	var spans []span
	raw := t.pairs[:0]
	c := t.bucket(bFact).Cursor()
	seen := make(map[graph.ChainKey]bool, len(keys))
	for _, ck := range keys {
		if ck.SubjectID == "" || seen[ck] {
			continue
		}
		seen[ck] = true
		prefix := t.prefix(ck.SubjectID, ck.Predicate)
		start := len(raw)
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			raw = append(raw, [2][]byte{k, v})
		}
		if len(raw) > start {
			spans = append(spans, span{ck, start, len(raw)})
		}
	}
	t.pairs = raw[:0]
	facts := make([]entity.Fact, len(raw))
	decode := func(lo, hi int) (err error) {
		for i := lo; i < hi && err == nil; i++ {
			facts[i], err = decodeFact(t.scope, keyID(raw[i][0]), raw[i][1])
		}
		return err
	}
	var err error
	if half := len(raw) / 2; len(raw) >= parallelDecode {
		done := make(chan error, 1)
		go func() { done <- decode(half, len(raw)) }()
		err = errors.Join(decode(0, half), <-done)
	} else {
		err = decode(0, len(raw))
	}
	if err != nil {
		return nil, t.wrap(op, err)
	}
	out := make(map[graph.ChainKey][]entity.Fact, len(spans))
	for _, sp := range spans {
		out[sp.key] = facts[sp.start:sp.end:sp.end]
	}
	return out, nil
}

// parallelDecode is the number of stored facts from which Chains decodes
// on two goroutines.
const parallelDecode = 256

func (t *tx) FactsOf(entityID string, limit int) ([]entity.Fact, error) {
	const op = "bolt.FactsOf"
	if err := t.check(op); err != nil {
		return nil, err
	}
	if entityID == "" {
		return nil, nil
	}
	out, _, err := pageIDs(op, t.factIDsOf(entityID), "", limit, func(id string) (entity.Fact, bool, error) {
		f, err := t.getFact(op, id)
		if err != nil {
			return f, false, indexBroken(op, "fact index", id, err)
		}
		return f, true, nil
	})
	return out, err
}

// FactsAround reads, for each entity, the ids of its facts from the keys
// of its chains and of the object index, newest first, and decodes them
// until a.Limit pass the filters.
func (t *tx) FactsAround(entityIDs []string, a graph.Around) (map[string][]entity.Fact, error) {
	const op = "bolt.FactsAround"
	if err := t.check(op); err != nil {
		return nil, err
	}
	out := make(map[string][]entity.Fact, len(entityIDs))
	for _, id := range entityIDs {
		if _, done := out[id]; done || id == "" {
			continue
		}
		var fs []entity.Fact
		err := t.newestFacts(op, id, func(fid string, v []byte) (bool, error) {
			if !a.AsOf.IsZero() && !storedValidAt(v, a.AsOf) {
				return true, nil
			}
			f, err := decodeFact(t.scope, fid, v)
			if err != nil {
				return false, t.wrap(op, err)
			}
			if a.Admits(&f) {
				fs = append(fs, f)
			}
			return a.Limit <= 0 || len(fs) < a.Limit, nil
		})
		if err != nil {
			return nil, err
		}
		if len(fs) > 0 {
			out[id] = fs
		}
	}
	return out, nil
}

// newestFacts calls fn with the id and stored value of each fact whose
// subject or object the entity is, newest (highest id) first, until fn says
// stop. The object index is read backwards as far as needed, so a hub (a
// city thousands of facts point at) costs what is taken from it, not all it
// holds; a subject's own facts come straight from its chains.
func (t *tx) newestFacts(op, entityID string, fn func(id string, v []byte) (bool, error)) error {
	subj := t.subjectFacts(entityID)
	prefix := t.prefix("e" + entityID)
	c := t.bucket(bObject).Cursor()
	k := lastUnder(c, prefix)
	for i := len(subj) - 1; i >= 0 || k != nil; {
		var id string
		var v []byte
		switch {
		case k == nil:
			id, v, i = subj[i].id, subj[i].v, i-1
		case i < 0 || string(k[len(prefix):]) > subj[i].id:
			id = string(k[len(prefix):])
			k = prevUnder(c, prefix)
		default:
			id, v = subj[i].id, subj[i].v
			if id == string(k[len(prefix):]) { // a fact about itself
				k = prevUnder(c, prefix)
			}
			i--
		}
		if v == nil {
			var err error
			if v, err = t.factValue(op, id); err != nil {
				return err
			}
			if v == nil {
				return indexBroken(op, "object index", id, nil)
			}
		}
		if more, err := fn(id, v); err != nil || !more {
			return err
		}
	}
	return nil
}

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

// factIDsOf returns the ids of the facts whose subject or object is the
// entity, in id order.
func (t *tx) factIDsOf(entityID string) []string {
	ids := append(t.subjectFactIDs(entityID), t.keySuffixes(bObject, t.prefix("e"+entityID))...)
	slices.Sort(ids)
	return slices.Compact(ids) // a fact about itself is found twice
}

// subjectFactIDs returns the ids of the facts of a subject, in id order,
// from the keys of its chains.
func (t *tx) subjectFactIDs(subjectID string) []string {
	fs := t.subjectFacts(subjectID)
	ids := make([]string, len(fs))
	for i, f := range fs {
		ids[i] = f.id
	}
	return ids
}

// placedFact is a fact's id and its stored value.
type placedFact struct {
	id string
	v  []byte
}

// subjectFacts returns the facts of a subject, read from its chains (one
// range of the fact bucket), in id order.
func (t *tx) subjectFacts(subjectID string) []placedFact {
	prefix := t.prefix(subjectID)
	var out []placedFact
	c := t.bucket(bFact).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		out = append(out, placedFact{keyID(k), v})
	}
	slices.SortFunc(out, func(a, b placedFact) int { return strings.Compare(a.id, b.id) })
	return out
}

// keySuffixes returns what follows prefix in every key of bucket under it.
func (t *tx) keySuffixes(bucket int, prefix []byte) []string {
	var out []string
	c := t.bucket(bucket).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		out = append(out, string(k[len(prefix):]))
	}
	return out
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

// Facts picks the most selective index the filter allows, then checks every
// candidate against the whole filter (indexes on cut keys and the
// adjacency index return more than they match).
func (t *tx) Facts(f graph.FactFilter) ([]entity.Fact, string, error) {
	const op = "bolt.Facts"
	if err := t.check(op); err != nil {
		return nil, "", err
	}
	want := factHead{SubjectID: f.SubjectID, Predicate: f.Predicate, ObjectID: f.ObjectID}
	if f.Value != "" {
		want.Value = entity.Normalize(f.Value)
	}
	var bucket int
	var prefix []byte
	switch {
	case f.SubjectID != "" && f.Predicate != "":
		bucket, prefix = bFact, t.prefix(f.SubjectID, f.Predicate)
	case f.ObjectID != "":
		bucket, prefix = bObject, t.prefix("e"+f.ObjectID)
	case f.Value != "":
		bucket, prefix = bObject, t.prefix("v"+truncKey(want.Value))
	case f.SubjectID != "":
		// The subject's chains hold its facts, ordered by predicate first.
		return pageIDs(op, t.subjectFactIDs(f.SubjectID), f.Cursor, f.Limit, func(id string) (entity.Fact, bool, error) {
			v, err := t.factValue(op, id)
			if v == nil {
				return entity.Fact{}, false, indexBroken(op, "fact_chain", id, err)
			}
			return t.matchFact(op, id, v, &want, f.Value != "")
		})
	case f.Predicate != "":
		bucket, prefix = bPredicate, t.prefix(f.Predicate)
	default:
		bucket, prefix = bFactID, t.key("")
	}
	return scan(t, op, bucket, prefix, f.Cursor, f.Limit, func(id string, v []byte) (entity.Fact, bool, error) {
		if bucket != bFact {
			var err error
			if v, err = t.factValue(op, id); v == nil {
				return entity.Fact{}, false, indexBroken(op, string(bucketNames[bucket]), id, err)
			}
		}
		return t.matchFact(op, id, v, &want, f.Value != "")
	})
}

// matchFact decodes the stored fact v if it matches the filter, reading
// only its indexed fields when it does not.
func (t *tx) matchFact(op, id string, v []byte, want *factHead, byValue bool) (entity.Fact, bool, error) {
	h, _, err := decodeFactHead(v)
	if err != nil || !matches(&h, want, byValue) {
		return entity.Fact{}, false, t.wrap(op, err)
	}
	fact, err := decodeFact(t.scope, id, v)
	return fact, true, t.wrap(op, err)
}

func matches(h, want *factHead, byValue bool) bool {
	switch {
	case want.SubjectID != "" && h.SubjectID != want.SubjectID,
		want.Predicate != "" && h.Predicate != want.Predicate,
		want.ObjectID != "" && h.ObjectID != want.ObjectID:
		return false
	case byValue:
		return h.ObjectID == "" && entity.Normalize(h.Value) == want.Value
	}
	return true
}

func (t *tx) checkFact(op string, i int, f *entity.Fact) error {
	if err := checkItemPart(op, "facts", i, "id", f.ID, true); err != nil {
		return err
	}
	if err := checkItemPart(op, "facts", i, "subject_id", f.SubjectID, true); err != nil {
		return err
	}
	if err := checkItemPart(op, "facts", i, "predicate", f.Predicate, true); err != nil {
		return err
	}
	if err := checkItemPart(op, "facts", i, "object_id", f.ObjectID, false); err != nil {
		return err
	}
	if err := f.Validate(); err != nil {
		if e, ok := err.(*entity.Error); ok {
			fields := make(map[string]string, len(e.Fields))
			for k, v := range e.Fields {
				fields[fmt.Sprintf("facts[%d].%s", i, k)] = v
			}
			return &entity.Error{Code: e.Code, Op: op, Message: e.Message, Fields: fields}
		}
		return err
	}
	return t.checkScope(op, &f.Scope)
}

func (t *tx) PutFacts(fs []entity.Fact) error {
	const op = "bolt.PutFacts"
	if err := t.check(op); err != nil {
		return err
	}
	b, places := t.bucket(bFact), t.bucket(bFactID)
	for i := range fs {
		f := fs[i]
		if err := t.checkFact(op, i, &f); err != nil {
			return err
		}
		oldKey, old, err := t.factToWrite(op, f.ID)
		if err != nil {
			return err
		}
		h := factHead{SubjectID: f.SubjectID, Predicate: f.Predicate, ObjectID: f.ObjectID, Value: f.Value}
		oldIndex, ix := factIndexOf, []ixEntry(nil)
		if old != nil && sameHead(old, &h) {
			// A rewrite with the same indexed fields (a fact ended, a hit
			// counted) keeps its index entries as they are.
			oldIndex = noIndex
		} else {
			ix = factIndex(t.scope, f.ID, &h)
		}
		v, err := t.newValue(op, kFact, f.ID, old, oldIndex, ix,
			func(seq uint64) ([]byte, error) {
				v, err := encodeFact(seq, &f)
				if err != nil {
					return nil, invalid(op, "facts[%d].attributes: %v", i, err)
				}
				return v, nil
			})
		if err != nil {
			return err
		}
		k := factKey(t.scope, f.SubjectID, f.Predicate, f.ID)
		if !bytes.Equal(oldKey, k) {
			// New, or moved to another chain (its subject was merged).
			if oldKey != nil {
				if err := b.Delete(oldKey); err != nil {
					return t.wrap(op, err)
				}
			}
			if err := places.Put(t.key(f.ID), factPlace(f.SubjectID, f.Predicate)); err != nil {
				return t.wrap(op, err)
			}
		}
		if err := b.Put(k, v); err != nil {
			return t.wrap(op, err)
		}
	}
	return nil
}

// TouchFacts counts a hit on each fact of hits, in place: the value is
// rewritten under its own change number, and no change is listed.
func (t *tx) TouchFacts(hits map[string]time.Time) error {
	const op = "bolt.TouchFacts"
	if err := t.check(op); err != nil {
		return err
	}
	b := t.bucket(bFact)
	for _, id := range slices.Sorted(maps.Keys(hits)) {
		k, v, err := t.factAt(op, id)
		if err != nil {
			return err
		}
		if v == nil {
			continue
		}
		f, err := decodeFact(t.scope, id, v)
		if err != nil {
			return t.wrap(op, err)
		}
		f.Hits++
		if at := hits[id]; f.LastAccessedAt == nil || at.After(*f.LastAccessedAt) {
			if !at.IsZero() {
				f.LastAccessedAt = &at
			}
		}
		nv, err := encodeFact(f.Seq, &f)
		if err != nil {
			return t.wrap(op, err)
		}
		if err := b.Put(k, nv); err != nil {
			return t.wrap(op, err)
		}
	}
	return nil
}

func (t *tx) DeleteFact(id string) error {
	const op = "bolt.DeleteFact"
	if err := t.check(op); err != nil {
		return err
	}
	k, old, err := t.factAt(op, id)
	if err != nil {
		return err
	}
	if err := t.dropValue(op, "fact", kFact, id, old, factIndexOf); err != nil {
		return err
	}
	if err := t.bucket(bFact).Delete(k); err != nil {
		return t.wrap(op, err)
	}
	return t.wrap(op, t.bucket(bFactID).Delete(t.key(id)))
}

// ---- episodes ----

func (t *tx) getEpisode(op, id string) (entity.Episode, error) {
	v := t.get(bEpisode, t.key(id))
	if v == nil {
		return entity.Episode{}, &entity.Error{Code: entity.ENOTFOUND, Op: op, Message: fmt.Sprintf("episode %q not found", id)}
	}
	e, err := decodeEpisode(t.scope, id, v)
	return e, t.wrap(op, err)
}

func (t *tx) Episode(id string) (entity.Episode, error) {
	const op = "bolt.Episode"
	if err := t.check(op); err != nil {
		return entity.Episode{}, err
	}
	return t.getEpisode(op, id)
}

func (t *tx) EpisodeByKey(key string) (entity.Episode, error) {
	const op = "bolt.EpisodeByKey"
	if err := t.check(op); err != nil {
		return entity.Episode{}, err
	}
	if key != "" {
		if id := t.get(bEpKey, t.key(key)); id != nil {
			e, err := t.getEpisode(op, string(id))
			if err != nil {
				return e, indexBroken(op, "ix_episode_key", string(id), err)
			}
			return e, nil
		}
	}
	return entity.Episode{}, &entity.Error{Code: entity.ENOTFOUND, Op: op, Message: "no episode with that idempotency key"}
}

func (t *tx) Episodes(status string, cursor string, limit int) ([]entity.Episode, string, error) {
	const op = "bolt.Episodes"
	if err := t.check(op); err != nil {
		return nil, "", err
	}
	get := func(id string, v []byte) (entity.Episode, bool, error) {
		e, err := decodeEpisode(t.scope, id, v)
		return e, true, t.wrap(op, err)
	}
	if status == "" {
		return scan(t, op, bEpisode, t.key(""), cursor, limit, get)
	}
	eps := t.bucket(bEpisode)
	return scan(t, op, bEpStatus, t.prefix(status), cursor, limit, func(id string, _ []byte) (entity.Episode, bool, error) {
		v := eps.Get(t.key(id))
		if v == nil {
			return entity.Episode{}, false, indexBroken(op, "ix_episode_status", id, nil)
		}
		return get(id, v)
	})
}

func (t *tx) PutEpisode(e entity.Episode) error {
	const op = "bolt.PutEpisode"
	if err := t.check(op); err != nil {
		return err
	}
	if err := checkPart(op, "id", e.ID, true); err != nil {
		return err
	}
	if err := checkPart(op, "status", e.Status, true); err != nil {
		return err
	}
	if err := checkPart(op, "idempotency_key", e.IdempotencyKey, false); err != nil {
		return err
	}
	if err := t.checkScope(op, &e.Scope); err != nil {
		return err
	}
	if e.IdempotencyKey != "" {
		if other := t.get(bEpKey, t.key(e.IdempotencyKey)); other != nil && string(other) != e.ID {
			return &entity.Error{Code: entity.ECONFLICT, Op: op, Message: fmt.Sprintf("idempotency key already used by episode %q", other)}
		}
	}
	h := episodeHead{Status: e.Status, IdempotencyKey: e.IdempotencyKey, ReferenceTime: e.ReferenceTime, NextAttemptAt: e.NextAttemptAt}
	return t.putRecord(op, t.bucket(bEpisode), kEpisode, e.ID, episodeIndexOf, episodeIndex(t.scope, e.ID, &h),
		func(seq uint64) ([]byte, error) {
			v, err := encodeEpisode(seq, &e)
			if err != nil {
				return nil, invalid(op, "metadata: %v", err)
			}
			return v, nil
		})
}

func (t *tx) DeleteEpisode(id string) error {
	return t.deleteRecord("bolt.DeleteEpisode", "episode", bEpisode, kEpisode, id, episodeIndexOf)
}

// ---- tombstones ----

func (t *tx) Tombstones(fingerprints []string) (map[string]entity.Tombstone, error) {
	const op = "bolt.Tombstones"
	if err := t.check(op); err != nil {
		return nil, err
	}
	out := make(map[string]entity.Tombstone)
	b := t.bucket(bTombstone)
	if lastUnder(b.Cursor(), t.key("")) == nil {
		return out, nil // the scope holds no tombstone: no lookups
	}
	for _, fp := range fingerprints {
		if fp == "" {
			continue
		}
		if v := b.Get(t.key(fp)); v != nil {
			ts, err := decodeTombstone(t.scope, fp, v)
			if err != nil {
				return nil, t.wrap(op, err)
			}
			out[fp] = ts
		}
	}
	return out, nil
}

func (t *tx) ListTombstones(cursor string, limit int) ([]entity.Tombstone, string, error) {
	const op = "bolt.ListTombstones"
	if err := t.check(op); err != nil {
		return nil, "", err
	}
	return scan(t, op, bTombstone, t.key(""), cursor, limit, func(fp string, v []byte) (entity.Tombstone, bool, error) {
		ts, err := decodeTombstone(t.scope, fp, v)
		return ts, true, t.wrap(op, err)
	})
}

func (t *tx) PutTombstone(ts entity.Tombstone) error {
	const op = "bolt.PutTombstone"
	if err := t.check(op); err != nil {
		return err
	}
	if err := checkPart(op, "fingerprint", ts.Fingerprint, true); err != nil {
		return err
	}
	if err := t.checkScope(op, &ts.Scope); err != nil {
		return err
	}
	b := t.bucket(bTombstone)
	k := t.key(ts.Fingerprint)
	seq, err := t.writeSeq(kTombstone, k, seqOf(b.Get(k)), false)
	if err != nil {
		return t.wrap(op, err)
	}
	return t.wrap(op, b.Put(k, encodeTombstone(seq, &ts)))
}

// ---- meta ----

const metaMarker = 'm'

func (t *tx) Meta(key string) (string, bool, error) {
	const op = "bolt.Meta"
	if err := t.check(op); err != nil {
		return "", false, err
	}
	v := t.get(bMeta, t.key(key))
	if len(v) == 0 {
		return "", false, nil
	}
	return string(v[1:]), true, nil
}

func (t *tx) PutMeta(key, value string) error {
	const op = "bolt.PutMeta"
	if err := t.check(op); err != nil {
		return err
	}
	if err := checkPart(op, "key", key, true); err != nil {
		return err
	}
	// A marker byte keeps an empty value distinguishable from no value.
	v := append(make([]byte, 0, 1+len(value)), metaMarker)
	return t.wrap(op, t.bucket(bMeta).Put(t.key(key), append(v, value...)))
}
