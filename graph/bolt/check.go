package bolt

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/graphmem/graphmem/entity"
)

// Check verifies the file: bbolt's own page consistency, that every record
// decodes (a fact under the key of its chain), that the secondary indexes
// hold exactly the entries the records call for (no stale entry, none
// missing), and that the change sequence lists every live and deleted
// record at the sequence of its latest write, any other entry of it being
// of an earlier write not swept yet. It reads the whole store in one transaction; it is meant for tests
// and for an operator's "check" command, not for the request path.
func (s *Store) Check() error {
	var c checker
	err := s.view(func(btx *bbolt.Tx) error {
		for err := range btx.Check() {
			c.report("bbolt: %v", err)
		}
		c.want = make([]map[string]string, numBuckets)
		for i := range c.want {
			c.want[i] = map[string]string{}
		}
		c.maxSeq = btx.Bucket(bucketNames[bSeq]).Sequence()
		c.latest = map[string]uint64{}
		if err := c.records(btx); err != nil {
			return err
		}
		if err := c.gone(btx); err != nil {
			return err
		}
		return c.indexes(btx)
	})
	if err != nil {
		return translate("bolt.Check", err)
	}
	if len(c.problems) > 0 {
		return entity.Wrap(entity.EINTERNAL, "bolt.Check", errors.New(strings.Join(c.problems, "; ")))
	}
	return nil
}

// checker holds what Check has found and what the records call for.
type checker struct {
	problems []string            // the first 20 found
	want     []map[string]string // bucket → key → value the records call for
	maxSeq   uint64              // the change sequence's last number
	latest   map[string]uint64   // kind scope 0 id → its latest write
}

// report notes a problem; Check lists the first 20.
func (c *checker) report(format string, args ...any) {
	if len(c.problems) < 20 {
		c.problems = append(c.problems, fmt.Sprintf(format, args...))
	}
}

// add expects the index entries ix.
func (c *checker) add(ix []ixEntry) {
	for _, e := range ix {
		c.want[e.bucket][string(e.key)] = string(e.val)
	}
}

// addSeq expects the change sequence to list record k of kind at seq, its
// latest write, and reports a sequence out of range or used twice.
func (c *checker) addSeq(seq uint64, kind byte, deleted bool, k []byte) {
	sk := string(be64(seq))
	if seq == 0 || seq > c.maxSeq {
		c.report("%s %q: sequence %d outside 1..%d", kindName(kind), k, seq, c.maxSeq)
	}
	if _, dup := c.want[bSeq][sk]; dup {
		c.report("sequence %d used twice", seq)
	}
	c.want[bSeq][sk] = string(changeValue(kind, deleted, k))
	c.latest[string(goneKey(kind, k))] = seq
}

// records decodes every record of the data buckets and expects its index
// and change entries.
func (c *checker) records(btx *bbolt.Tx) error {
	for _, b := range []int{bEntity, bFact, bEpisode, bTombstone, bMeta} {
		err := btx.Bucket(bucketNames[b]).ForEach(func(k, v []byte) error {
			scope, id, ok := splitScope(k)
			if b == bFact && ok {
				// scope 0 subject 0 predicate 0 id
				id = id[bytes.LastIndexByte([]byte(id), sep)+1:]
			}
			if !ok || !entity.ValidScope(scope) || id == "" {
				c.report("%s: malformed key %q", bucketNames[b], k)
				return nil
			}
			if err := c.record(b, scope, id, k, v); err != nil {
				c.report("%s %q: %v", bucketNames[b], k, err)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// record decodes the record stored at k in bucket b and expects its index
// and change entries; it returns the decoding error.
func (c *checker) record(b int, scope, id string, k, v []byte) error {
	switch b {
	case bEntity:
		e, err := decodeEntity(scope, id, v)
		if err == nil {
			c.add(entityIndex(scope, id, &entityHead{Name: e.Name, Aliases: e.Aliases}))
			c.addSeq(e.Seq, kEntity, false, k)
		}
		return err
	case bFact:
		f, err := decodeFact(scope, id, v)
		if err == nil {
			if !bytes.Equal(k, factKey(scope, f.SubjectID, f.Predicate, id)) {
				c.report("fact %q stored under the chain key %q", id, k)
			}
			c.add(factIndex(scope, id, &factHead{SubjectID: f.SubjectID, Predicate: f.Predicate, ObjectID: f.ObjectID, Value: f.Value}))
			c.add([]ixEntry{{bucket: bFactID, key: join(scope, id), val: factPlace(f.SubjectID, f.Predicate)}})
			c.addSeq(f.Seq, kFact, false, join(scope, id))
		}
		return err
	case bEpisode:
		e, err := decodeEpisode(scope, id, v)
		if err == nil {
			c.add(episodeIndex(scope, id, &episodeHead{Status: e.Status, IdempotencyKey: e.IdempotencyKey, ReferenceTime: e.ReferenceTime, NextAttemptAt: e.NextAttemptAt}))
			c.addSeq(e.Seq, kEpisode, false, k)
		}
		return err
	case bTombstone:
		_, err := decodeTombstone(scope, id, v)
		if err == nil {
			c.addSeq(seqOf(v), kTombstone, false, k)
		}
		return err
	case bMeta:
		if len(v) == 0 || v[0] != metaMarker {
			return errCorrupt
		}
	}
	return nil
}

// gone expects the change entry of every deleted record and reports one
// that is deleted and live.
func (c *checker) gone(btx *bbolt.Tx) error {
	return btx.Bucket(bucketNames[bGone]).ForEach(func(k, v []byte) error {
		if len(k) < 2 || len(v) != 8 {
			c.report("gone: malformed entry %q", k)
			return nil
		}
		kind, dk := k[0], k[1:]
		if _, live := c.latest[string(k)]; live {
			c.report("gone: %s %q is deleted and live", kindName(kind), dk)
		}
		c.addSeq(seqOf(v), kind, true, dk)
		return nil
	})
}

// indexes compares the index buckets and the change sequence with the
// entries the records call for.
func (c *checker) indexes(btx *bbolt.Tx) error {
	for _, b := range []int{bFactID, bName, bObject, bPredicate, bEpKey, bEpStatus, bDue, bSeq} {
		seen := 0
		err := btx.Bucket(bucketNames[b]).ForEach(func(k, v []byte) error {
			wv, ok := c.want[b][string(k)]
			switch {
			case !ok && b == bSeq:
				// Only an earlier write of a record still stored or
				// listed as deleted may stay in the change sequence
				// (the sweeper had not removed it yet).
				if len(k) != 8 || len(v) < 2 || seqOf(k) >= c.latest[string(goneKey(v[0], v[2:]))] {
					c.report("%s: entry %x (%q) is no earlier write of a record", bucketNames[b], k, v)
				}
			case !ok:
				c.report("%s: stale entry %q", bucketNames[b], k)
			case wv != string(v):
				c.report("%s: entry %q has value %q, want %q", bucketNames[b], k, v, wv)
			default:
				seen++
			}
			return nil
		})
		if err != nil {
			return err
		}
		if seen != len(c.want[b]) {
			c.report("%s: %d entries missing", bucketNames[b], len(c.want[b])-seen)
		}
	}
	return nil
}

func dataBucketOf(kind byte) int {
	switch kind {
	case kEntity:
		return bEntity
	case kFact:
		return bFactID
	case kEpisode:
		return bEpisode
	}
	return bTombstone
}
