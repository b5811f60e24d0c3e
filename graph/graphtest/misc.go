package graphtest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

func testTombstones(t *testing.T, open Opener) {
	s := fresh(t, open)
	fp1 := entity.Fingerprint(ScopeA, "Alice", "works_at", "Acme")
	fp2 := entity.Fingerprint(ScopeA, "Alice", "likes", "tea")
	fp3 := entity.Fingerprint(ScopeA, "Bob", "likes", "tea")
	t1, t2, t3 := NewTombstone(fp1, "forgotten by the user"), NewTombstone(fp2, "privacy request"), NewTombstone(fp3, "")
	update(t, s, ScopeA, func(tx graph.Tx) error {
		for _, ts := range []entity.Tombstone{t1, t2, t3} {
			if err := tx.PutTombstone(ts); err != nil {
				return err
			}
		}
		return nil
	})
	// B holds the same fingerprint string: isolation, not a real collision.
	tb := NewTombstone(fp1, "B's own")
	update(t, s, ScopeB, func(tx graph.Tx) error { return tx.PutTombstone(tb) })

	got := must(t, s, ScopeA, func(tx graph.Tx) (map[string]entity.Tombstone, error) {
		return tx.Tombstones([]string{fp1, fp2, "unknown", fp1})
	})
	if len(got) != 2 {
		t.Errorf("Tombstones: %d found, want 2 (%v)", len(got), got)
	}
	sameRecord(t, "Tombstones[fp1]", got[fp1], t1, ScopeA)
	sameRecord(t, "Tombstones[fp2]", got[fp2], t2, ScopeA)
	gotB := must(t, s, ScopeB, func(tx graph.Tx) (map[string]entity.Tombstone, error) { return tx.Tombstones([]string{fp1, fp2}) })
	if len(gotB) != 1 {
		t.Errorf("Tombstones in B: %d found, want 1", len(gotB))
	}
	sameRecord(t, "Tombstones[fp1] in B", gotB[fp1], tb, ScopeB)

	want := sortedSet([]string{fp1, fp2, fp3})
	for _, limit := range []int{1, 2, 10} {
		all := pages(t, "ListTombstones", limit, func(c string) ([]entity.Tombstone, string, error) {
			return readPage(t, s, ScopeA, func(tx graph.Tx) ([]entity.Tombstone, string, error) { return tx.ListTombstones(c, limit) })
		})
		var fps []string
		for _, ts := range all {
			fps = append(fps, ts.Fingerprint)
		}
		wantIDs(t, fmt.Sprintf("ListTombstones limit %d", limit), fps, want...)
	}

	// Writing a tombstone again replaces it.
	t1.Reason, t1.At = "forgotten again", Day(9)
	update(t, s, ScopeA, func(tx graph.Tx) error { return tx.PutTombstone(t1) })
	got = must(t, s, ScopeA, func(tx graph.Tx) (map[string]entity.Tombstone, error) { return tx.Tombstones([]string{fp1}) })
	sameRecord(t, "Tombstones[fp1] after rewrite", got[fp1], t1, ScopeA)

	err := s.Update(ctx, ScopeA, func(tx graph.Tx) error { return tx.PutTombstone(NewTombstone("", "x")) })
	wantCode(t, "PutTombstone without fingerprint", err, entity.EINVALID)
	other := NewTombstone(fp2, "x")
	other.Scope = ScopeB
	err = s.Update(ctx, ScopeA, func(tx graph.Tx) error { return tx.PutTombstone(other) })
	wantCode(t, "PutTombstone of another scope", err, entity.EINVALID)
}

func testMeta(t *testing.T, open Opener) {
	s := fresh(t, open)
	type kv struct {
		v  string
		ok bool
	}
	meta := func(scope entity.Scope, key string) kv {
		t.Helper()
		return must(t, s, scope, func(tx graph.Tx) (kv, error) {
			v, ok, err := tx.Meta(key)
			return kv{v, ok}, err
		})
	}
	if got := meta(ScopeA, "cardinality:works_at"); got.ok {
		t.Errorf("Meta of an unset key = %+v", got)
	}
	update(t, s, ScopeA, func(tx graph.Tx) error {
		if err := tx.PutMeta("cardinality:works_at", "one"); err != nil {
			return err
		}
		return tx.PutMeta("empty", "")
	})
	update(t, s, ScopeB, func(tx graph.Tx) error { return tx.PutMeta("cardinality:works_at", "many") })
	for _, tc := range []struct {
		scope entity.Scope
		key   string
		want  kv
	}{
		{ScopeA, "cardinality:works_at", kv{"one", true}},
		{ScopeA, "empty", kv{"", true}},
		{ScopeB, "cardinality:works_at", kv{"many", true}},
		{ScopeB, "empty", kv{"", false}},
	} {
		if got := meta(tc.scope, tc.key); got != tc.want {
			t.Errorf("Meta(%q) in %s = %+v, want %+v", tc.key, tc.scope, got, tc.want)
		}
	}
	update(t, s, ScopeA, func(tx graph.Tx) error { return tx.PutMeta("cardinality:works_at", "many") })
	if got := meta(ScopeA, "cardinality:works_at"); got != (kv{"many", true}) {
		t.Errorf("Meta after overwrite = %+v", got)
	}
	err := s.Update(ctx, ScopeA, func(tx graph.Tx) error { return tx.PutMeta("", "x") })
	wantCode(t, "PutMeta with an empty key", err, entity.EINVALID)
}

type changeKey struct{ scope, kind, id string }

func keyOf(c graph.Change) changeKey { return changeKey{c.Scope, c.Kind, c.ID} }

// checkFeed checks that seqs strictly increase and no record is listed
// twice, and returns the changes by record.
func checkFeed(t testing.TB, cs []graph.Change) map[changeKey]graph.Change {
	t.Helper()
	out := make(map[changeKey]graph.Change, len(cs))
	for i, c := range cs {
		if i > 0 && c.Seq <= cs[i-1].Seq {
			t.Errorf("Changes: seq %d after %d", c.Seq, cs[i-1].Seq)
		}
		if prev, dup := out[keyOf(c)]; dup {
			t.Errorf("Changes: %v listed at %d and %d", keyOf(c), prev.Seq, c.Seq)
		}
		out[keyOf(c)] = c
	}
	return out
}

func testChanges(t *testing.T, open Opener) {
	s := fresh(t, open)
	if cs := allChanges(t, s, 0); len(cs) != 0 {
		t.Fatalf("Changes on an empty store: %v", cs)
	}
	fp := entity.Fingerprint(ScopeA, "a", "b", "c")
	update(t, s, ScopeA, func(tx graph.Tx) error {
		if err := tx.PutEntities([]entity.Entity{NewEntity("e1", "Alice")}); err != nil {
			return err
		}
		if err := tx.PutFacts([]entity.Fact{NewFact("f1", "e1", "knows", "e2", Day(0), nil)}); err != nil {
			return err
		}
		if err := tx.PutEpisode(NewEpisode("p1", entity.EpisodeQueued, Day(0))); err != nil {
			return err
		}
		if err := tx.PutMeta("k", "v"); err != nil {
			return err
		}
		return tx.PutTombstone(NewTombstone(fp, "x"))
	})
	first := allChanges(t, s, 0)
	byKey := checkFeed(t, first)
	for _, k := range []changeKey{
		{ScopeA, graph.KindEntity, "e1"}, {ScopeA, graph.KindFact, "f1"},
		{ScopeA, graph.KindEpisode, "p1"}, {ScopeA, graph.KindTombstone, fp},
	} {
		if c, ok := byKey[k]; !ok || c.Deleted {
			t.Errorf("Changes after the first write: %v missing (%+v)", k, c)
		}
	}
	if len(first) != 4 {
		t.Errorf("Changes after the first write: %d changes, want 4 (meta is not a record): %+v", len(first), first)
	}
	last := first[len(first)-1].Seq

	// Another scope continues the same sequence.
	update(t, s, ScopeB, putFacts(NewFact("f1", "e1", "knows", "e2", Day(0), nil)))
	cs := allChanges(t, s, last)
	if len(cs) != 1 || cs[0].Scope != ScopeB || cs[0].ID != "f1" || cs[0].Seq <= last {
		t.Fatalf("Changes after B's write: %+v", cs)
	}
	bSeq := cs[0].Seq

	// Rewriting lists the record once, at its new sequence number; deleting
	// lists it as deleted; recreating lists it as live again.
	update(t, s, ScopeA, putFacts(NewFact("f1", "e1", "knows", "e3", Day(0), nil)))
	update(t, s, ScopeA, func(tx graph.Tx) error { return tx.DeleteEntity("e1") })
	update(t, s, ScopeA, func(tx graph.Tx) error { return tx.DeleteEpisode("p1") })
	update(t, s, ScopeA, putEpisodes(NewEpisode("p1", entity.EpisodeDone, Day(0))))
	all := allChanges(t, s, 0)
	byKey = checkFeed(t, all)
	f1 := byKey[changeKey{ScopeA, graph.KindFact, "f1"}]
	if f1.Seq <= bSeq || f1.Deleted {
		t.Errorf("A's f1 after rewrite: %+v, want a live change after %d", f1, bSeq)
	}
	stored := must(t, s, ScopeA, func(tx graph.Tx) (entity.Fact, error) { return tx.Fact("f1") })
	if stored.Seq != f1.Seq {
		t.Errorf("Fact(f1).Seq = %d, Changes lists it at %d", stored.Seq, f1.Seq)
	}
	if e1 := byKey[changeKey{ScopeA, graph.KindEntity, "e1"}]; !e1.Deleted || e1.Seq <= f1.Seq {
		t.Errorf("e1 after delete: %+v, want a deleted change after %d", e1, f1.Seq)
	}
	if p1 := byKey[changeKey{ScopeA, graph.KindEpisode, "p1"}]; p1.Deleted {
		t.Errorf("p1 after delete and recreate: %+v, want live", p1)
	}
	if len(all) != 5 {
		t.Errorf("Changes: %d, want 5 (one per record): %+v", len(all), all)
	}

	// Paging with any limit gives the same feed.
	for _, limit := range []int{1, 2, 3} {
		var paged []graph.Change
		after := uint64(0)
		for {
			page, err := s.Changes(ctx, after, limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) > limit {
				t.Fatalf("Changes(%d, %d) returned %d", after, limit, len(page))
			}
			if len(page) == 0 {
				break
			}
			paged = append(paged, page...)
			after = page[len(page)-1].Seq
		}
		if !slices.Equal(paged, all) {
			t.Errorf("Changes paged by %d: %+v, want %+v", limit, paged, all)
		}
	}
	if cs := allChanges(t, s, all[len(all)-1].Seq); len(cs) != 0 {
		t.Errorf("Changes after the last seq: %+v", cs)
	}
}

var errBoom = errors.New("boom")

func testRollback(t *testing.T, open Opener) {
	writeAll := func(tx graph.Tx) error {
		if err := tx.PutEntities([]entity.Entity{NewEntity("e9", "Zed")}); err != nil {
			return err
		}
		if err := tx.PutFacts([]entity.Fact{NewFact("f9", "e9", "knows", "e1", Day(0), nil), NewValueFact("f1", "e9", "likes", "x", Day(0), nil)}); err != nil {
			return err
		}
		if err := tx.PutEpisode(NewEpisode("p9", entity.EpisodeQueued, Day(0))); err != nil {
			return err
		}
		if err := tx.PutTombstone(NewTombstone("fp9", "x")); err != nil {
			return err
		}
		if err := tx.DeleteEntity("e1"); err != nil {
			return err
		}
		return tx.PutMeta("k9", "v")
	}
	setup := func(t *testing.T) (graph.Store, entity.Fact, uint64) {
		s := fresh(t, open)
		f1 := NewFact("f1", "e1", "knows", "e2", Day(0), nil)
		update(t, s, ScopeA, putEntities(NewEntity("e1", "Alice")))
		update(t, s, ScopeA, putFacts(f1))
		cs := allChanges(t, s, 0)
		return s, f1, cs[len(cs)-1].Seq
	}
	unchanged := func(t *testing.T, s graph.Store, f1 entity.Fact, last uint64) {
		t.Helper()
		if cs := allChanges(t, s, last); len(cs) != 0 {
			t.Errorf("Changes after a rolled-back Update: %+v", cs)
		}
		got := must(t, s, ScopeA, func(tx graph.Tx) (entity.Fact, error) { return tx.Fact("f1") })
		sameRecord(t, "Fact(f1) after rollback", got, f1, ScopeA)
		must(t, s, ScopeA, func(tx graph.Tx) (entity.Entity, error) { return tx.Entity("e1") })
		wantIDs(t, "Facts(subject e1)", factIDs(allFacts(t, s, ScopeA, graph.FactFilter{SubjectID: "e1"})), "f1")
		wantIDs(t, "Facts(subject e9)", factIDs(allFacts(t, s, ScopeA, graph.FactFilter{SubjectID: "e9"})))
		wantIDs(t, "Entities", entityIDs(allEntities(t, s, ScopeA)), "e1")
		wantIDs(t, "Episodes", episodeIDs(allEpisodes(t, s, ScopeA, "")))
		if ts := allTombstones(t, s, ScopeA); len(ts) != 0 {
			t.Errorf("tombstones after rollback: %+v", ts)
		}
		if got := must(t, s, ScopeA, func(tx graph.Tx) (bool, error) { _, ok, err := tx.Meta("k9"); return ok, err }); got {
			t.Error("meta written by a rolled-back Update")
		}
		if refs, err := s.DueEpisodes(ctx, Day(100), 10); err != nil || len(refs) != 0 {
			t.Errorf("DueEpisodes after rollback: %v, %v", refs, err)
		}
		// The store still takes writes, and the feed goes on from there.
		update(t, s, ScopeA, putEntities(NewEntity("e2", "Bob")))
		cs := allChanges(t, s, last)
		if len(cs) != 1 || cs[0].ID != "e2" {
			t.Errorf("Changes after the next write: %+v", cs)
		}
	}

	t.Run("Error", func(t *testing.T) {
		s, f1, last := setup(t)
		err := s.Update(ctx, ScopeA, func(tx graph.Tx) error {
			if err := writeAll(tx); err != nil {
				return err
			}
			return fmt.Errorf("late failure: %w", errBoom)
		})
		if !errors.Is(err, errBoom) {
			t.Errorf("Update returned %v, want the error of fn", err)
		}
		unchanged(t, s, f1, last)
	})

	t.Run("Panic", func(t *testing.T) {
		s, f1, last := setup(t)
		var err error
		panicked := func() (p any) {
			defer func() { p = recover() }()
			err = s.Update(ctx, ScopeA, func(tx graph.Tx) error {
				if err := writeAll(tx); err != nil {
					return err
				}
				panic(errBoom)
			})
			return nil
		}()
		if panicked == nil && err == nil {
			t.Error("Update whose fn panicked returned nil")
		}
		unchanged(t, s, f1, last)
	})

	t.Run("FailedWrite", func(t *testing.T) {
		// An invalid record late in the transaction undoes the valid
		// writes before it.
		s, f1, last := setup(t)
		err := s.Update(ctx, ScopeA, func(tx graph.Tx) error {
			if err := writeAll(tx); err != nil {
				return err
			}
			return tx.PutFacts([]entity.Fact{NewFact("", "e1", "knows", "e2", Day(0), nil)})
		})
		wantCode(t, "Update with an invalid fact", err, entity.EINVALID)
		unchanged(t, s, f1, last)
	})
}

func testScopes(t *testing.T, open Opener) {
	s := fresh(t, open)
	scopes := func() []string {
		t.Helper()
		got, err := s.Scopes(ctx)
		if err != nil {
			t.Fatalf("Scopes: %v", err)
		}
		return sortedSet(got)
	}
	wantIDs(t, "Scopes of an empty store", scopes())
	const c, d = "test:c", "test"
	update(t, s, ScopeA, putEntities(NewEntity("e1", "A")))
	update(t, s, ScopeB, putFacts(NewFact("f1", "e1", "knows", "e2", Day(0), nil)))
	update(t, s, c, putEpisodes(NewEpisode("p1", entity.EpisodeDone, Day(0))))
	update(t, s, d, func(tx graph.Tx) error { return tx.PutTombstone(NewTombstone("fp", "x")) })
	wantIDs(t, "Scopes", scopes(), sortedSet([]string{ScopeA, ScopeB, c, d})...)
	update(t, s, ScopeB, func(tx graph.Tx) error { return tx.DeleteFact("f1") })
	wantIDs(t, "Scopes after B's only record is deleted", scopes(), sortedSet([]string{ScopeA, c, d})...)
}

func testPing(t *testing.T, open Opener) {
	t.Run("Open", func(t *testing.T) {
		s := fresh(t, open)
		if err := s.Ping(ctx); err != nil {
			t.Errorf("Ping: %v", err)
		}
	})
	t.Run("Closed", func(t *testing.T) {
		s := open(t)
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		wantCode(t, "Ping after Close", s.Ping(ctx), entity.EUNAVAILABLE)
		wantCode(t, "View after Close", s.View(ctx, ScopeA, func(graph.Tx) error { return nil }), entity.EUNAVAILABLE)
		wantCode(t, "Update after Close", s.Update(ctx, ScopeA, putEntities(NewEntity("e1", "A"))), entity.EUNAVAILABLE)
	})
}

// testConcurrency runs writers and readers at once; run it with -race.
func testConcurrency(t *testing.T, open Opener) {
	s := fresh(t, open)
	const writers, batches, perBatch = 4, 15, 20
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range writers {
		wg.Go(func() {
			scope := []entity.Scope{ScopeA, ScopeB}[w%2]
			for b := range batches {
				fs := make([]entity.Fact, perBatch)
				for i := range fs {
					fs[i] = NewFact(fmt.Sprintf("w%d-b%02d-f%02d", w, b, i), fmt.Sprintf("e%d", i%5), "knows", fmt.Sprintf("e%d", (i+1)%5), Day(0), nil)
				}
				err := s.Update(ctx, scope, func(tx graph.Tx) error {
					if err := tx.PutFacts(fs); err != nil {
						return err
					}
					return tx.PutEntities([]entity.Entity{NewEntity(fmt.Sprintf("w%d-e%02d", w, b), fmt.Sprintf("writer %d batch %d", w, b))})
				})
				if err != nil {
					errs <- fmt.Errorf("writer %d batch %d: %w", w, b, err)
					return
				}
			}
		})
	}
	for r := range 4 {
		wg.Go(func() {
			scope := []entity.Scope{ScopeA, ScopeB}[r%2]
			for range 30 {
				err := s.View(ctx, scope, func(tx graph.Tx) error {
					fs, _, err := tx.Facts(graph.FactFilter{Predicate: "knows", Limit: 50})
					if err != nil {
						return err
					}
					for _, f := range fs {
						if f.Scope != scope {
							return fmt.Errorf("fact %s of scope %s read in %s", f.ID, f.Scope, scope)
						}
					}
					if _, err := tx.FactsOf("e1", 20); err != nil {
						return err
					}
					_, err = tx.Chains([]graph.ChainKey{{SubjectID: "e2", Predicate: "knows"}})
					return err
				})
				if err != nil {
					errs <- fmt.Errorf("reader %d: %w", r, err)
					return
				}
				cs, err := s.Changes(ctx, 0, 1000)
				if err != nil {
					errs <- err
					return
				}
				for i := 1; i < len(cs); i++ {
					if cs[i].Seq <= cs[i-1].Seq {
						errs <- fmt.Errorf("reader %d: Changes out of order", r)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, scope := range []entity.Scope{ScopeA, ScopeB} {
		if n := len(allFacts(t, s, scope, graph.FactFilter{})); n != writers/2*batches*perBatch {
			t.Errorf("%s holds %d facts, want %d", scope, n, writers/2*batches*perBatch)
		}
	}
	if n := len(allChanges(t, s, 0)); n != writers*batches*(perBatch+1) {
		t.Errorf("Changes lists %d records, want %d", n, writers*batches*(perBatch+1))
	}
}
