package neo4j_test

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/neo4j"
)

// TestWriteCache checks that what a write transaction reads from the write
// cache is what Neo4j holds: chains and name keys read, then written by
// this Store (rewrites, new facts, a fact moved to another chain, a
// deletion, a touch, entities renamed), then by another Store, whose
// writes the cache must not hide.
func TestWriteCache(t *testing.T) {
	s := mustOpenClosing(t)
	other, err := neo4j.Open(ctx, config(t))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	const scope = "s"
	local := time.FixedZone("UTC+8", 8*3600)
	works := graph.ChainKey{SubjectID: "e1", Predicate: "works_at"}
	port := graph.ChainKey{SubjectID: "e1", Predicate: "port"}
	moved := graph.ChainKey{SubjectID: "e2", Predicate: "works_at"}
	f1 := entity.Fact{
		ID: "f1", Scope: scope, SubjectID: "e1", Subject: "Alice", Predicate: "works_at", ObjectID: "e2", Object: "Acme",
		Text: "Alice works at Acme", ValidFrom: t0.In(local), RecordedAt: t0, EpisodeIDs: []string{"ep1"},
		SourceKind: entity.UserExplicit, Confidence: 0.75, Importance: 7, UpdatedAt: t0,
		Attributes: map[string]any{"reason": "cheaper", "n": 3, "alternatives": []string{"yarn"}},
		Claims: []entity.Claim{{From: t0.In(local), EpisodeID: "ep1", SourceKind: entity.Tool, Confidence: 0.5,
			RecordedAt: t0, Said: t0.Add(-time.Hour), Attributes: map[string]any{"k": 1}}},
	}
	f2 := entity.Fact{ID: "f2", Scope: scope, SubjectID: "e1", Predicate: "port", Value: "5432", Text: "port 5432",
		ValidFrom: t0, RecordedAt: t0, UpdatedAt: t0, Confidence: 1, Importance: 5}
	update := func(st *neo4j.Store, fn func(graph.Tx) error) {
		t.Helper()
		if err := st.Update(ctx, scope, fn); err != nil {
			t.Fatal(err)
		}
	}
	// same reads keys in a write transaction of s (from the cache where it
	// holds them) and in a read (from Neo4j), and compares.
	same := func(step string, keys []graph.ChainKey, names []string) (map[graph.ChainKey][]entity.Fact, map[string][]entity.Entity) {
		t.Helper()
		var chains, stored map[graph.ChainKey][]entity.Fact
		var byKey, storedByKey map[string][]entity.Entity
		update(s, func(tx graph.Tx) (err error) {
			if chains, err = tx.Chains(keys); err != nil {
				return err
			}
			byKey, err = tx.EntitiesByKey(names)
			return err
		})
		err := s.View(ctx, scope, func(tx graph.Tx) (err error) {
			if stored, err = tx.Chains(keys); err != nil {
				return err
			}
			storedByKey, err = tx.EntitiesByKey(names)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(chains, stored) {
			t.Errorf("%s: chains\n got %s\nwant %s", step, jsonOf(chains), jsonOf(stored))
		}
		if !reflect.DeepEqual(byKey, storedByKey) {
			t.Errorf("%s: names\n got %s\nwant %s", step, jsonOf(byKey), jsonOf(storedByKey))
		}
		return chains, byKey
	}
	ids := func(fs []entity.Fact) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.ID)
		}
		return out
	}

	update(s, func(tx graph.Tx) error {
		if err := tx.PutEntities([]entity.Entity{{ID: "e1", Scope: scope, Name: "Alice"}, {ID: "e2", Scope: scope, Name: "Acme"}}); err != nil {
			return err
		}
		return tx.PutFacts([]entity.Fact{f1, f2})
	})
	same("first read", []graph.ChainKey{works, port, moved}, []string{"Alice", "nobody"})
	for _, k := range []graph.ChainKey{works, port, moved} {
		if !s.CachedChain(scope, k) {
			t.Errorf("chain %v read, not cached", k)
		}
	}
	for _, n := range []string{"alice", "nobody"} {
		if !s.CachedName(scope, n) {
			t.Errorf("name %q read, not cached", n)
		}
	}

	// Rewritten and added by this Store through the cache: the cache
	// keeps the chain, the store holds what the cache holds.
	update(s, func(tx graph.Tx) error {
		got, err := tx.Chains([]graph.ChainKey{works, port})
		if err != nil {
			return err
		}
		g := got[works][0]
		g.ValidTo, g.SupersededBy, g.Confidence = ptr(t0.Add(time.Hour)), "f3", 0.9
		g.Claims = append(g.Claims, entity.Claim{From: t0.Add(time.Hour), End: true, RecordedAt: t0, SourceKind: entity.UserExplicit})
		g.Attributes = nil
		f3 := entity.Fact{ID: "f3", Scope: scope, SubjectID: "e1", Predicate: "works_at", ObjectID: "e3", Object: "Globex",
			Text: "Alice works at Globex", ValidFrom: t0.Add(time.Hour), RecordedAt: t0, UpdatedAt: t0, Supersedes: "f1", Confidence: 1}
		if err := tx.PutFacts([]entity.Fact{g, f3}); err != nil {
			return err
		}
		return tx.TouchFacts(map[string]time.Time{"f2": t0.Add(2 * time.Hour)})
	})
	if !s.CachedChain(scope, works) {
		t.Error("chain written through the cache was dropped")
	}
	if s.CachedChain(scope, port) {
		t.Error("chain of a touched fact still cached")
	}
	chains, _ := same("after rewrites", []graph.ChainKey{works, port}, nil)
	if got := ids(chains[works]); !slices.Equal(got, []string{"f1", "f3"}) {
		t.Errorf("works_at chain %v", got)
	}
	if chains[port][0].Hits != 1 {
		t.Errorf("touched fact: %d hits", chains[port][0].Hits)
	}

	// Moved to another chain, deleted, entity renamed.
	update(s, func(tx graph.Tx) error {
		got, err := tx.Chains([]graph.ChainKey{works})
		if err != nil {
			return err
		}
		f3 := got[works][1]
		f3.SubjectID = "e2"
		if err := tx.PutFacts([]entity.Fact{f3}); err != nil {
			return err
		}
		if err := tx.DeleteFact("f2"); err != nil {
			return err
		}
		return tx.PutEntities([]entity.Entity{{ID: "e2", Scope: scope, Name: "Acme", Aliases: []string{"Nobody"}}})
	})
	chains, names := same("after move", []graph.ChainKey{works, port, moved}, []string{"alice", "nobody", "acme"})
	if got := ids(chains[works]); !slices.Equal(got, []string{"f1"}) {
		t.Errorf("works_at chain after the move: %v", got)
	}
	if got := ids(chains[moved]); !slices.Equal(got, []string{"f3"}) {
		t.Errorf("moved chain: %v", got)
	}
	if len(chains[port]) != 0 || len(names["nobody"]) != 1 {
		t.Errorf("port chain %v, nobody %v", ids(chains[port]), names["nobody"])
	}

	// Another Store writes: this one's cache must not hide it.
	if err := other.Update(ctx, scope, func(tx graph.Tx) error {
		f4 := entity.Fact{ID: "f4", Scope: scope, SubjectID: "e1", Predicate: "works_at", ObjectID: "e4", Object: "Initech",
			Text: "Alice works at Initech", ValidFrom: t0, RecordedAt: t0, UpdatedAt: t0, Confidence: 1}
		if err := tx.PutFacts([]entity.Fact{f4}); err != nil {
			return err
		}
		return tx.PutEntities([]entity.Entity{{ID: "e5", Scope: scope, Name: "Alice"}})
	}); err != nil {
		t.Fatal(err)
	}
	chains, names = same("after another Store", []graph.ChainKey{works}, []string{"alice"})
	if got := ids(chains[works]); !slices.Equal(got, []string{"f1", "f4"}) {
		t.Errorf("works_at chain after another Store wrote: %v", got)
	}
	if len(names["alice"]) != 2 {
		t.Errorf("alice after another Store wrote: %v", names["alice"])
	}
}

// TestWriteCacheReplicas has two Stores (replicas, each with its own write
// cache) add to one chain at once, each write reading the chain first and
// numbering its fact by the chain's length: a write that read a chain
// without the other replica's last fact would reuse a number, and the
// chain would end shorter.
func TestWriteCacheReplicas(t *testing.T) {
	a := mustOpenClosing(t)
	b, err := neo4j.Open(ctx, config(t))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const scope, writers, each = "s", 3, 10
	k := graph.ChainKey{SubjectID: "e1", Predicate: "count"}
	add := func(s *neo4j.Store) error {
		return s.Update(ctx, scope, func(tx graph.Tx) error {
			chains, err := tx.Chains([]graph.ChainKey{k})
			if err != nil {
				return err
			}
			n := len(chains[k])
			return tx.PutFacts([]entity.Fact{{ID: fmt.Sprintf("f%03d", n), Scope: scope, SubjectID: k.SubjectID,
				Predicate: k.Predicate, Value: fmt.Sprint(n), Text: fmt.Sprintf("count %d", n), ValidFrom: t0, RecordedAt: t0,
				UpdatedAt: t0, Confidence: 1}})
		})
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*writers*each)
	for _, s := range []*neo4j.Store{a, b} {
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					if err := add(s); err != nil {
						errs <- err
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	err = a.View(ctx, scope, func(tx graph.Tx) error {
		chains, err := tx.Chains([]graph.ChainKey{k})
		if got := len(chains[k]); err == nil && got != 2*writers*each {
			t.Errorf("chain of %d facts after %d writes", got, 2*writers*each)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
