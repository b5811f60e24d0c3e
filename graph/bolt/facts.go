package bolt

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// sameHead reports whether the stored fact old has the indexed fields h.
func sameHead(old []byte, h *factHead) bool {
	oh, _, err := decodeFactHead(old)
	return err == nil && oh == *h
}

func factIndexOf(scope, id string, old []byte) ([]ixEntry, error) {
	h, _, err := decodeFactHead(old)
	return factIndex(scope, id, &h), err
}

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
