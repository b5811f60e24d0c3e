package neo4j_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/graphtest"
	"github.com/graphmem/graphmem/graph/neo4j"
)

// openMore opens another Store on the test server without wiping it: a
// second replica, or another process.
func openMore(tb testing.TB, cacheBytes int64) *neo4j.Store {
	tb.Helper()
	cfg := config(tb)
	cfg.FactCacheBytes = cacheBytes
	s, err := neo4j.Open(ctx, cfg)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// readPaths reads the fact id of scope (about subject, of predicate pred)
// through every read that takes bodies from the cache, and returns what
// each one found ("" for not found), keyed by the read's name.
func readPaths(t *testing.T, s graph.Store, scope, subject, pred, id string) map[string]entity.Fact {
	t.Helper()
	out := map[string]entity.Fact{}
	err := s.View(ctx, scope, func(tx graph.Tx) error {
		around, err := tx.FactsAround([]string{subject}, graph.Around{Limit: 100})
		if err != nil {
			return err
		}
		for _, f := range around[subject] {
			if f.ID == id {
				out["FactsAround"] = f
			}
		}
		byID, err := graph.FactsByID(tx, []string{id})
		if err != nil {
			return err
		}
		out["FactsByID"] = byID[id]
		both, _, err := graph.FactsAndEntitiesByID(tx, []string{id}, []string{subject})
		if err != nil {
			return err
		}
		out["FactsAndEntitiesByID"] = both[id]
		chains, err := tx.Chains([]graph.ChainKey{{SubjectID: subject, Predicate: pred}})
		if err != nil {
			return err
		}
		for _, f := range chains[graph.ChainKey{SubjectID: subject, Predicate: pred}] {
			if f.ID == id {
				out["Chains"] = f
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// wantText fails unless every read path found the fact with text want.
func wantText(t *testing.T, got map[string]entity.Fact, want string) {
	t.Helper()
	for _, path := range []string{"FactsAround", "FactsByID", "FactsAndEntitiesByID", "Chains"} {
		if got[path].Text != want {
			t.Errorf("%s: text %q, want %q", path, got[path].Text, want)
		}
	}
}

func putText(t *testing.T, s graph.Store, scope, text string) entity.Fact {
	t.Helper()
	f := graphtest.NewValueFact("f1", "e1", "likes", "tea", graphtest.T0, nil)
	f.Text = text
	if err := s.Update(ctx, scope, func(tx graph.Tx) error { return tx.PutFacts([]entity.Fact{f}) }); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFactCacheNeverStale checks that a Store never answers a fact body
// it cached once the store holds another content of the fact, whoever
// wrote it: another Store on the same database, a process that wiped the
// database and wrote the same ids again (change numbers start over), or
// a writer that knows nothing of versions. It also checks that a record
// of another scope with the same id is never answered.
func TestFactCacheNeverStale(t *testing.T) {
	s1 := mustOpenClosing(t)
	const scope = "s"
	putText(t, s1, scope, "A")
	first := readPaths(t, s1, scope, "e1", "likes", "f1")
	wantText(t, first, "A")
	wantText(t, readPaths(t, s1, scope, "e1", "likes", "f1"), "A") // from the cache

	t.Run("another store rewrites", func(t *testing.T) {
		putText(t, openMore(t, 0), scope, "B")
		wantText(t, readPaths(t, s1, scope, "e1", "likes", "f1"), "B")
	})
	t.Run("another scope, same id", func(t *testing.T) {
		putText(t, s1, "other", "O")
		wantText(t, readPaths(t, s1, "other", "e1", "likes", "f1"), "O")
		wantText(t, readPaths(t, s1, scope, "e1", "likes", "f1"), "B")
	})
	t.Run("wiped and written again", func(t *testing.T) {
		// s1 caches f1 at change number 1 of a fresh database; another
		// process wipes it and writes f1 again, also at number 1.
		if err := s1.Wipe(ctx); err != nil {
			t.Fatal(err)
		}
		s1b := openMore(t, 0)
		putText(t, s1b, scope, "A")
		before := readPaths(t, s1b, scope, "e1", "likes", "f1")["FactsByID"]
		wantText(t, readPaths(t, s1b, scope, "e1", "likes", "f1"), "A")
		other := openMore(t, 0)
		if err := other.Wipe(ctx); err != nil {
			t.Fatal(err)
		}
		putText(t, openMore(t, 0), scope, "C")
		got := readPaths(t, s1b, scope, "e1", "likes", "f1")
		if got["FactsByID"].Seq != before.Seq {
			t.Fatalf("change numbers %d and %d: the test does not write the same number twice", before.Seq, got["FactsByID"].Seq)
		}
		wantText(t, got, "C")
	})
	t.Run("writer without versions", func(t *testing.T) {
		// A writer that knows nothing of versions changes a fact and its
		// change number, and leaves the version as it was.
		wantText(t, readPaths(t, s1, scope, "e1", "likes", "f1"), "C")
		err := s1.Exec(ctx, `MATCH (f:Fact {scope: $scope, id: 'f1'}) SET f.text = 'D', f.seq = f.seq + 1000`,
			map[string]any{"scope": scope})
		if err != nil {
			t.Fatal(err)
		}
		wantText(t, readPaths(t, s1, scope, "e1", "likes", "f1"), "D")
		// A fact written before versions existed has none: read whole.
		err = s1.Exec(ctx, `MATCH (f:Fact {scope: $scope, id: 'f1'}) SET f.text = 'E' REMOVE f.ver`,
			map[string]any{"scope": scope})
		if err != nil {
			t.Fatal(err)
		}
		wantText(t, readPaths(t, s1, scope, "e1", "likes", "f1"), "E")
		putText(t, s1, scope, "F")
		wantText(t, readPaths(t, s1, scope, "e1", "likes", "f1"), "F")
	})
}

// TestFactCacheMisses reads realistic facts through Stores that hold them
// all (the writer), none yet (another replica: every body a miss, read in
// one more statement), none ever (a cache too small for any fact) and no
// cache at all, and wants the same answers from each; and a returned fact
// changed by the caller must not change the cache.
func TestFactCacheMisses(t *testing.T) {
	writer := mustOpenClosing(t)
	const scope = "s"
	fs := graphtest.GenFacts(0, 300)
	if err := writer.Update(ctx, scope, func(tx graph.Tx) error { return tx.PutFacts(fs) }); err != nil {
		t.Fatal(err)
	}
	var subjects, ids []string
	var keys []graph.ChainKey
	for _, f := range fs {
		if !slices.Contains(subjects, f.SubjectID) && len(subjects) < 40 {
			subjects = append(subjects, f.SubjectID)
			keys = append(keys, graph.ChainKey{SubjectID: f.SubjectID, Predicate: f.Predicate})
		}
		ids = append(ids, f.ID)
	}
	type answer struct {
		Around, Bare, Hub map[string][]entity.Fact
		ByID, Both        map[string]entity.Fact
		Chains            map[graph.ChainKey][]entity.Fact
	}
	read := func(s graph.Store) answer {
		var a answer
		err := s.View(ctx, scope, func(tx graph.Tx) error {
			var err error
			if a.Around, err = tx.FactsAround(subjects, graph.Around{Limit: 50, Now: graphtest.T0}); err != nil {
				return err
			}
			if a.Bare, err = tx.FactsAround(subjects, graph.Around{Limit: 50, Bare: true}); err != nil {
				return err
			}
			if a.Hub, err = tx.FactsAround(subjects, graph.Around{Limit: 50, Hub: 1}); err != nil {
				return err
			}
			if a.ByID, err = graph.FactsByID(tx, append(ids, "missing")); err != nil {
				return err
			}
			if a.Both, _, err = graph.FactsAndEntitiesByID(tx, ids[:50], nil); err != nil {
				return err
			}
			a.Chains, err = tx.Chains(keys)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	want := read(openMore(t, -1))
	if len(want.ByID) != len(fs) || len(want.Around) == 0 || len(want.Chains) == 0 {
		t.Fatalf("the data does not exercise the reads: %d by id, %d around, %d chains", len(want.ByID), len(want.Around), len(want.Chains))
	}
	cold := openMore(t, 0)
	for name, s := range map[string]graph.Store{"writer": writer, "cold": cold, "cold again": cold, "tiny": openMore(t, 1)} {
		if got := read(s); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the reads differ from those of a store without a cache", name)
		}
	}

	// A caller changing what it got leaves the cache alone.
	for range 2 {
		a := read(writer)
		for _, f := range a.ByID {
			f.Claims[0].Text, f.EpisodeIDs[0] = "changed", "changed"
		}
	}
	if got := read(writer); !reflect.DeepEqual(got, want) {
		t.Error("a caller's change to a fact it read changed the cache")
	}
}
