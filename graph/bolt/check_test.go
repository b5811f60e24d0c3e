package bolt

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/graphtest"
)

// TestCheckFindsDamage damages the file behind the store's back in the
// ways a bug in the write path would, and expects Check to notice each.
func TestCheckFindsDamage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(tx *bbolt.Tx) error
	}{
		{"missing fact pointer", func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketNames[bFactID]).Delete(join("s", "f1"))
		}},
		{"fact under another chain", func(tx *bbolt.Tx) error {
			b := tx.Bucket(bucketNames[bFact])
			k := join("s", "e1", "knows", "f1")
			v := bytes.Clone(b.Get(k))
			if err := b.Delete(k); err != nil {
				return err
			}
			return b.Put(join("s", "e1", "likes", "f1"), v)
		}},
		{"stale object entry", func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketNames[bObject]).Put(join("s", "eX", "f1"), nil)
		}},
		{"stale name entry", func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketNames[bName]).Put(join("s", "nobody", "e1"), nil)
		}},
		{"old sequence entry left", func(tx *bbolt.Tx) error {
			b := tx.Bucket(bucketNames[bSeq])
			seq, _ := b.NextSequence()
			return b.Put(be64(seq), changeValue(kFact, false, join("s", "f1")))
		}},
		{"corrupt record", func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketNames[bFact]).Put(join("s", "e1", "knows", "f1"), []byte{0, 0, 0, 0, 0, 0, 0, 1, codecVersion, 200})
		}},
		{"due entry of a done episode", func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketNames[bDue]).Put(append(sortTime(nil, graphtest.T0), join("s", "p2")...), nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(filepath.Join(t.TempDir(), "graph.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			err = s.Update(context.Background(), "s", func(tx graph.Tx) error {
				if err := tx.PutEntities([]entity.Entity{graphtest.NewEntity("e1", "Alice")}); err != nil {
					return err
				}
				if err := tx.PutEpisode(graphtest.NewEpisode("p2", entity.EpisodeDone, graphtest.T0)); err != nil {
					return err
				}
				return tx.PutFacts([]entity.Fact{graphtest.NewFact("f1", "e1", "knows", "e2", graphtest.T0, nil)})
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Check(); err != nil {
				t.Fatalf("Check before damage: %v", err)
			}
			if err := s.db.Update(tc.damage); err != nil {
				t.Fatal(err)
			}
			err = s.Check()
			if entity.ErrorCode(err) != entity.EINTERNAL {
				t.Fatalf("Check after damage = %v, want an internal error", err)
			}
			t.Log(err)
		})
	}
}
