package bolt

import (
	"github.com/graphmem/graphmem/entity"
)

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
