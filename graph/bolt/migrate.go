package bolt

import (
	"bytes"
	"fmt"
	"slices"

	"go.etcd.io/bbolt"
)

// Layout 1 kept facts under scope 0 id in the bucket "fact", with a chain
// index "ix_chain" (scope 0 subject 0 predicate 0 id, empty values).
// Layout 2 stores the facts themselves in chain order and keeps only a
// pointer per id; both keep one change entry per record, so layout 1's
// change sequence is valid as it is.
var (
	v1Facts = []byte("fact")
	v1Chain = []byte("ix_chain")
)

// migrateV1 brings a layout-1 file to layout 2 inside btx: every fact moves
// to its chain key and gets its pointer, then the old fact bucket and the
// chain index are dropped. Sequence numbers, the change sequence and the
// other buckets are kept as they are. One transaction: a crash in the
// middle leaves the layout-1 file untouched.
func migrateV1(btx *bbolt.Tx) error {
	old := btx.Bucket(v1Facts)
	if old == nil {
		return fmt.Errorf("no bucket %q", v1Facts)
	}
	facts, err := btx.CreateBucket(bucketNames[bFact])
	if err != nil {
		return err
	}
	places, err := btx.CreateBucket(bucketNames[bFactID])
	if err != nil {
		return err
	}
	places.FillPercent = 0.9 // old keys come in key order
	// bbolt splits nodes only when it commits: keys put in random order
	// into one transaction move ever longer slices (quadratic), so the
	// facts are put in key order.
	type move struct{ key, value []byte }
	var moves []move
	err = old.ForEach(func(k, v []byte) error {
		scope, id, ok := splitScope(k)
		if !ok {
			return fmt.Errorf("malformed fact key %q", k)
		}
		h, _, err := decodeFactHead(v)
		if err != nil {
			return fmt.Errorf("fact %q: %w", k, err)
		}
		moves = append(moves, move{factKey(scope, h.SubjectID, h.Predicate, id), v})
		return places.Put(k, factPlace(h.SubjectID, h.Predicate))
	})
	if err != nil {
		return err
	}
	slices.SortFunc(moves, func(a, b move) int { return bytes.Compare(a.key, b.key) })
	for _, m := range moves {
		if err := facts.Put(m.key, m.value); err != nil {
			return err
		}
	}
	if err := btx.DeleteBucket(v1Facts); err != nil {
		return err
	}
	if btx.Bucket(v1Chain) != nil {
		return btx.DeleteBucket(v1Chain)
	}
	return nil
}
