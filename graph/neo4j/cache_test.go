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
	s, other, plain := threeStores(t)
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
	// read reads keys, name prefixes and names in a read of st.
	type reads struct {
		chains          map[graph.ChainKey][]entity.Fact
		prefixes, names map[string][]entity.Entity
	}
	read := func(st *neo4j.Store, keys []graph.ChainKey, names []string) (r reads) {
		t.Helper()
		err := st.View(ctx, scope, func(tx graph.Tx) (err error) {
			if r.chains, err = tx.Chains(keys); err != nil {
				return err
			}
			if r.prefixes, err = graph.EntitiesByPrefixes(tx, []string{"a", "al", "no", "ac", "zz"}, 10); err != nil {
				return err
			}
			r.names, err = tx.EntitiesByKey(names)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	check := func(step, what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s\n got %s\nwant %s", step, what, jsonOf(got), jsonOf(want))
		}
	}
	// same reads keys in a write transaction of s and in two reads of s
	// (from the cache where it holds them; the first may fill it), and in
	// a read of a Store without a cache (from Neo4j), and compares.
	same := func(step string, keys []graph.ChainKey, names []string) (map[graph.ChainKey][]entity.Fact, map[string][]entity.Entity) {
		t.Helper()
		var chains map[graph.ChainKey][]entity.Fact
		var byKey map[string][]entity.Entity
		update(s, func(tx graph.Tx) (err error) {
			if chains, err = tx.Chains(keys); err != nil {
				return err
			}
			byKey, err = tx.EntitiesByKey(names)
			return err
		})
		want := read(plain, keys, names)
		check(step, "chains", chains, want.chains)
		check(step, "names", byKey, want.names)
		for i := range 2 {
			got := read(s, keys, names)
			check(step, fmt.Sprintf("chains of read %d", i), got.chains, want.chains)
			check(step, fmt.Sprintf("prefixes of read %d", i), got.prefixes, want.prefixes)
			check(step, fmt.Sprintf("names of read %d", i), got.names, want.names)
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

// threeStores opens a Store on a wiped database, another one (a replica)
// and one without a cache (plain: what Neo4j holds, read as it is).
func threeStores(t *testing.T) (s, other, plain *neo4j.Store) {
	t.Helper()
	open := func(cacheMB int) *neo4j.Store {
		cfg := config(t)
		cfg.WriteCacheMB = cacheMB
		st, err := neo4j.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	s = mustOpenClosing(t)
	return s, open(0), open(-1)
}

// TestReadCache checks FactsAround answered by the cache (reads without
// claims) against the same read of a Store without one, for validity and
// status filters and limits, around plain entities and a hub (more facts
// than the cache holds of one), after this Store's writes and touches and
// after another Store's write, which the cache must not hide.
func TestReadCache(t *testing.T) {
	s, other, plain := threeStores(t)
	const scope = "s"
	day := func(d int) time.Time { return t0.Add(time.Duration(d) * 24 * time.Hour) }
	var fs []entity.Fact
	// 400 facts about people living in the hub "city", each person's
	// older home ended; a few expired, forgotten or valid later.
	for i := range 400 {
		p := fmt.Sprintf("p%03d", i%120)
		f := entity.Fact{ID: fmt.Sprintf("f%04d", i), Scope: scope, SubjectID: p, Predicate: "lives_in", ObjectID: "city",
			Text: p + " lives in the city", ValidFrom: day(i), RecordedAt: t0, UpdatedAt: t0, Confidence: 1}
		if i+120 < 400 {
			f.ValidTo = ptr(day(i + 120))
		}
		switch i % 37 {
		case 3:
			f.ExpiresAt = ptr(day(200))
		case 5:
			f.ForgottenAt = ptr(day(1))
		case 7:
			f.ValidFrom, f.ValidTo = day(1000), nil
		}
		fs = append(fs, f)
	}
	for i := range 30 {
		fs = append(fs, entity.Fact{ID: fmt.Sprintf("g%03d", i), Scope: scope, SubjectID: "p001", Predicate: "port",
			Value: fmt.Sprint(i), Text: "port", ValidFrom: day(i), RecordedAt: t0, UpdatedAt: t0, Confidence: 1})
	}
	update := func(st *neo4j.Store, fn func(graph.Tx) error) {
		t.Helper()
		if err := st.Update(ctx, scope, fn); err != nil {
			t.Fatal(err)
		}
	}
	update(s, func(tx graph.Tx) error { return tx.PutFacts(fs) })

	ids := []string{"city", "p001", "p002", "p119", "nobody"}
	arounds := []graph.Around{{Bare: true}}
	for _, at := range []time.Time{{}, day(150), day(300), day(2000)} {
		for _, now := range []time.Time{{}, day(300)} {
			for _, limit := range []int{0, 1, 5, 150} {
				arounds = append(arounds, graph.Around{AsOf: at, Now: now, Limit: limit, Bare: true})
			}
		}
	}
	same := func(step string) {
		t.Helper()
		for round := range 2 { // the first read may fill the cache
			for _, a := range arounds {
				var got, want map[string][]entity.Fact
				if err := s.View(ctx, scope, func(tx graph.Tx) (err error) { got, err = tx.FactsAround(ids, a); return err }); err != nil {
					t.Fatal(err)
				}
				if err := plain.View(ctx, scope, func(tx graph.Tx) (err error) { want, err = tx.FactsAround(ids, a); return err }); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, read %d, %+v:\n got %s\nwant %s", step, round, a, jsonOf(got), jsonOf(want))
				}
			}
		}
		for _, id := range ids {
			if !s.CachedAround(scope, id) {
				t.Errorf("%s: facts around %s read, not cached", step, id)
			}
		}
	}
	same("first reads")

	// This Store's writes: a fact moves from p002 to p119, a new one about
	// the city, another ended; then hits counted.
	update(s, func(tx graph.Tx) error {
		g := fs[2]
		g.SubjectID = "p119"
		n := entity.Fact{ID: "f9999", Scope: scope, SubjectID: "p001", Predicate: "lives_in", ObjectID: "city",
			Text: "p001 lives in the city again", ValidFrom: day(500), RecordedAt: t0, UpdatedAt: t0, Confidence: 1}
		h := fs[399] // the hub's newest, ended
		h.ValidTo = ptr(day(450))
		return tx.PutFacts([]entity.Fact{g, n, h})
	})
	for _, id := range []string{"nobody", "p001", "p002", "p119", "city"} {
		if !s.CachedAround(scope, id) {
			t.Errorf("facts around %s dropped by a write, not kept up to date", id)
		}
	}
	same("after this Store's writes")

	// New entities no fact named: their facts around are held from the
	// transaction that created them on, a hub's too (more than the cache
	// holds of one), and a fact naming its subject as its object too;
	// an entity created after a fact named it is not.
	fresh := func(id string) entity.Entity {
		return entity.Entity{ID: id, Scope: scope, Name: id, Type: "Place", CreatedAt: t0, UpdatedAt: t0}
	}
	update(s, func(tx graph.Tx) error {
		if err := tx.PutFacts([]entity.Fact{{ID: "k0", Scope: scope, SubjectID: "p003", Predicate: "visited", ObjectID: "late",
			Text: "p003 visited late", ValidFrom: day(3), RecordedAt: t0, UpdatedAt: t0, Confidence: 1}}); err != nil {
			return err
		}
		if err := tx.PutEntities([]entity.Entity{fresh("town"), fresh("mirror"), fresh("late")}); err != nil {
			return err
		}
		var more []entity.Fact
		for i := range 300 {
			more = append(more, entity.Fact{ID: fmt.Sprintf("t%04d", i), Scope: scope, SubjectID: fmt.Sprintf("p%03d", i%120),
				Predicate: "visited", ObjectID: "town", Text: "a visit to town", ValidFrom: day(i), RecordedAt: t0, UpdatedAt: t0,
				Confidence: 1})
		}
		more = append(more, entity.Fact{ID: "m0", Scope: scope, SubjectID: "mirror", Predicate: "sees", ObjectID: "mirror",
			Text: "the mirror sees itself", ValidFrom: day(1), RecordedAt: t0, UpdatedAt: t0, Confidence: 1})
		return tx.PutFacts(more)
	})
	for id, want := range map[string]bool{"town": true, "mirror": true, "late": false} {
		if s.CachedAround(scope, id) != want {
			t.Errorf("facts around %s held after the transaction that created it: %v", id, !want)
		}
	}
	ids = append(ids, "town", "mirror", "late", "p003")
	same("after new entities")
	for range 2 {
		update(s, func(tx graph.Tx) error {
			return tx.TouchFacts(map[string]time.Time{"f0399": day(7), "g029": day(8), "f0001": {}})
		})
	}
	if !s.CachedAround(scope, "city") {
		t.Error("facts around an entity dropped by a touch")
	}
	same("after touches")

	// Another Store's write, then a deletion.
	update(other, func(tx graph.Tx) error {
		return tx.PutFacts([]entity.Fact{{ID: "h1", Scope: scope, SubjectID: "nobody", Predicate: "likes", ObjectID: "p002",
			Text: "nobody likes p002", ValidFrom: t0, RecordedAt: t0, UpdatedAt: t0, Confidence: 1}})
	})
	same("after another Store's write")
	update(s, func(tx graph.Tx) error { return tx.DeleteFact("f0398") })
	same("after a deletion")
}

// TestReadNamesCheckedAgainstHead: a read that starts by looking names up
// takes those the cache holds and reads the others with the scope's head
// in one statement; when another Store has written since — a name that was
// no entity's now is one, an entity renamed —, what the cache gave is not
// the answer.
func TestReadNamesCheckedAgainstHead(t *testing.T) {
	s, other, plain := threeStores(t)
	const scope = "s"
	put := func(st *neo4j.Store, es ...entity.Entity) {
		t.Helper()
		if err := st.Update(ctx, scope, func(tx graph.Tx) error { return tx.PutEntities(es) }); err != nil {
			t.Fatal(err)
		}
	}
	named := func(id, name string) entity.Entity {
		return entity.Entity{ID: id, Scope: scope, Name: name, Type: "Person", CreatedAt: t0, UpdatedAt: t0}
	}
	put(s, named("e1", "Ada"), named("e2", "Grace"))
	keys := []string{"ada", "grace", "linus", "Ada"}
	check := func(step string) {
		t.Helper()
		for round := range 2 { // the first read may fill the cache
			var got, want map[string][]entity.Entity
			if err := s.View(ctx, scope, func(tx graph.Tx) (err error) { got, err = tx.EntitiesByKey(keys); return err }); err != nil {
				t.Fatal(err)
			}
			if err := plain.View(ctx, scope, func(tx graph.Tx) (err error) { want, err = tx.EntitiesByKey(keys); return err }); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, read %d:\n got %s\nwant %s", step, round, jsonOf(got), jsonOf(want))
			}
		}
	}
	check("first reads")
	put(other, named("e3", "Linus"), named("e2", "Grace Hopper"))
	check("after another Store's write")
	put(s, named("e4", "Ada"))
	check("after this Store's write")
}

// TestReadByIDFromCache: facts and entities read by id (what a search
// found) come from the chains and name keys the cache holds once a read has
// checked its head, and are what the store holds after this Store's writes
// and hit counts, another Store's write and a deletion.
func TestReadByIDFromCache(t *testing.T) {
	s, other, plain := threeStores(t)
	const scope = "s"
	update := func(st *neo4j.Store, fn func(graph.Tx) error) {
		t.Helper()
		if err := st.Update(ctx, scope, fn); err != nil {
			t.Fatal(err)
		}
	}
	named := func(id, name string) entity.Entity {
		return entity.Entity{ID: id, Scope: scope, Name: name, Type: "Person", CreatedAt: t0, UpdatedAt: t0}
	}
	fact := func(id, subject, predicate, object, value string) entity.Fact {
		return entity.Fact{ID: id, Scope: scope, SubjectID: subject, Predicate: predicate, ObjectID: object, Value: value,
			Text: subject + " " + predicate, ValidFrom: t0, RecordedAt: t0, UpdatedAt: t0, Confidence: 1,
			Claims: []entity.Claim{{From: t0, RecordedAt: t0, Said: t0, SourceKind: entity.UserExplicit}}}
	}
	update(s, func(tx graph.Tx) error {
		if err := tx.PutEntities([]entity.Entity{named("e1", "Ada"), named("e2", "Grace")}); err != nil {
			return err
		}
		return tx.PutFacts([]entity.Fact{fact("f1", "e1", "knows", "e2", ""), fact("f2", "e1", "port", "", "1")})
	})
	chains := []graph.ChainKey{{SubjectID: "e1", Predicate: "knows"}, {SubjectID: "e1", Predicate: "port"}}
	keys := []string{"ada", "grace"}
	factIDs, entityIDs := []string{"f1", "f2", "f3", "nothing"}, []string{"e1", "e2", "nobody"}
	// A bare read (no claims wanted) reads the facts around the entities
	// first, as recall does, and may be answered from those.
	check := func(step string) {
		t.Helper()
		for _, bare := range []bool{true, false} {
			hits := s.CacheStats().ReadHits
			for round := range 2 { // the first read may fill the cache
				read := func(st *neo4j.Store) (fs map[string]entity.Fact, es map[string]entity.Entity) {
					err := st.View(ctx, scope, func(tx graph.Tx) error {
						if _, err := tx.EntitiesByKey(keys); err != nil {
							return err
						}
						var err error
						if bare {
							_, err = tx.FactsAround([]string{"e1", "e2"}, graph.Around{Bare: true})
						} else {
							_, err = tx.Chains(chains)
						}
						if err != nil {
							return err
						}
						fs, es, err = graph.FactsAndEntitiesByID(tx, factIDs, entityIDs, bare)
						return err
					})
					if err != nil {
						t.Fatal(err)
					}
					if bare {
						for id, f := range fs {
							f.Claims, f.Revisions = nil, nil
							fs[id] = f
						}
					}
					return fs, es
				}
				gotF, gotE := read(s)
				wantF, wantE := read(plain)
				if !reflect.DeepEqual(gotF, wantF) || !reflect.DeepEqual(gotE, wantE) {
					t.Fatalf("%s, bare %v, read %d:\n got %s %s\nwant %s %s", step, bare, round, jsonOf(gotF), jsonOf(gotE), jsonOf(wantF), jsonOf(wantE))
				}
			}
			if s.CacheStats().ReadHits-hits < 8 {
				t.Errorf("%s, bare %v: facts and entities by id not answered from the cache", step, bare)
			}
		}
	}
	check("first reads")
	update(s, func(tx graph.Tx) error {
		f2 := fact("f2", "e1", "port", "", "1")
		f2.ValidTo = ptr(t0.Add(time.Hour))
		if err := tx.PutFacts([]entity.Fact{f2, fact("f3", "e1", "port", "", "2")}); err != nil {
			return err
		}
		return tx.PutEntities([]entity.Entity{named("e2", "Grace Hopper")})
	})
	check("after this Store's writes")
	update(s, func(tx graph.Tx) error { return tx.TouchFacts(map[string]time.Time{"f1": t0.Add(time.Hour)}) })
	check("after a hit counted")
	update(other, func(tx graph.Tx) error { return tx.PutFacts([]entity.Fact{fact("f1", "e1", "knows", "e1", "")}) })
	check("after another Store's write")
	update(s, func(tx graph.Tx) error { return tx.DeleteFact("f3") })
	check("after a deletion")
}
