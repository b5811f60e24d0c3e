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
	var problems []string
	report := func(format string, args ...any) {
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	err := s.view(func(btx *bbolt.Tx) error {
		for err := range btx.Check() {
			report("bbolt: %v", err)
		}
		want := make([]map[string]string, numBuckets) // bucket → key → value
		for i := range want {
			want[i] = map[string]string{}
		}
		add := func(ix []ixEntry) {
			for _, e := range ix {
				want[e.bucket][string(e.key)] = string(e.val)
			}
		}
		maxSeq := btx.Bucket(bucketNames[bSeq]).Sequence()
		latest := map[string]uint64{} // kind scope 0 id → its latest write
		addSeq := func(seq uint64, kind byte, deleted bool, k []byte) {
			sk := string(be64(seq))
			if seq == 0 || seq > maxSeq {
				report("%s %q: sequence %d outside 1..%d", kindName(kind), k, seq, maxSeq)
			}
			if _, dup := want[bSeq][sk]; dup {
				report("sequence %d used twice", seq)
			}
			want[bSeq][sk] = string(changeValue(kind, deleted, k))
			latest[string(goneKey(kind, k))] = seq
		}
		for _, b := range []int{bEntity, bFact, bEpisode, bTombstone, bMeta} {
			err := btx.Bucket(bucketNames[b]).ForEach(func(k, v []byte) error {
				scope, id, ok := splitScope(k)
				if b == bFact && ok {
					// scope 0 subject 0 predicate 0 id
					id = id[bytes.LastIndexByte([]byte(id), sep)+1:]
				}
				if !ok || !entity.ValidScope(scope) || id == "" {
					report("%s: malformed key %q", bucketNames[b], k)
					return nil
				}
				var err error
				switch b {
				case bEntity:
					var e entity.Entity
					if e, err = decodeEntity(scope, id, v); err == nil {
						add(entityIndex(scope, id, &entityHead{Name: e.Name, Aliases: e.Aliases}))
						addSeq(e.Seq, kEntity, false, k)
					}
				case bFact:
					var f entity.Fact
					if f, err = decodeFact(scope, id, v); err == nil {
						if !bytes.Equal(k, factKey(scope, f.SubjectID, f.Predicate, id)) {
							report("fact %q stored under the chain key %q", id, k)
						}
						add(factIndex(scope, id, &factHead{SubjectID: f.SubjectID, Predicate: f.Predicate, ObjectID: f.ObjectID, Value: f.Value}))
						add([]ixEntry{{bucket: bFactID, key: join(scope, id), val: factPlace(f.SubjectID, f.Predicate)}})
						addSeq(f.Seq, kFact, false, join(scope, id))
					}
				case bEpisode:
					var e entity.Episode
					if e, err = decodeEpisode(scope, id, v); err == nil {
						add(episodeIndex(scope, id, &episodeHead{Status: e.Status, IdempotencyKey: e.IdempotencyKey, ReferenceTime: e.ReferenceTime, NextAttemptAt: e.NextAttemptAt}))
						addSeq(e.Seq, kEpisode, false, k)
					}
				case bTombstone:
					if _, err = decodeTombstone(scope, id, v); err == nil {
						addSeq(seqOf(v), kTombstone, false, k)
					}
				case bMeta:
					if len(v) == 0 || v[0] != metaMarker {
						err = errCorrupt
					}
				}
				if err != nil {
					report("%s %q: %v", bucketNames[b], k, err)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		err := btx.Bucket(bucketNames[bGone]).ForEach(func(k, v []byte) error {
			if len(k) < 2 || len(v) != 8 {
				report("gone: malformed entry %q", k)
				return nil
			}
			kind, dk := k[0], k[1:]
			if _, live := latest[string(k)]; live {
				report("gone: %s %q is deleted and live", kindName(kind), dk)
			}
			addSeq(seqOf(v), kind, true, dk)
			return nil
		})
		if err != nil {
			return err
		}
		for _, b := range []int{bFactID, bName, bObject, bPredicate, bEpKey, bEpStatus, bDue, bSeq} {
			seen := 0
			err := btx.Bucket(bucketNames[b]).ForEach(func(k, v []byte) error {
				wv, ok := want[b][string(k)]
				switch {
				case !ok && b == bSeq:
					// Only an earlier write of a record still stored or
					// listed as deleted may stay in the change sequence
					// (the sweeper had not removed it yet).
					if len(k) != 8 || len(v) < 2 || seqOf(k) >= latest[string(goneKey(v[0], v[2:]))] {
						report("%s: entry %x (%q) is no earlier write of a record", bucketNames[b], k, v)
					}
				case !ok:
					report("%s: stale entry %q", bucketNames[b], k)
				case wv != string(v):
					report("%s: entry %q has value %q, want %q", bucketNames[b], k, v, wv)
				default:
					seen++
				}
				return nil
			})
			if err != nil {
				return err
			}
			if seen != len(want[b]) {
				report("%s: %d entries missing", bucketNames[b], len(want[b])-seen)
			}
		}
		return nil
	})
	if err != nil {
		return translate("bolt.Check", err)
	}
	if len(problems) > 0 {
		return entity.Wrap(entity.EINTERNAL, "bolt.Check", errors.New(strings.Join(problems, "; ")))
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
