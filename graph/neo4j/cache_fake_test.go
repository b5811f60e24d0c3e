package neo4j

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	neo "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// fakeNeo is a runner that answers, from facts held in memory, the
// statements of the paths that use the write cache, as Neo4j answers
// them, and counts the statements run by name. It holds one scope.
type fakeNeo struct {
	head  int64
	facts map[string]map[string]any // by id, as stored
	ran   map[string]int
	// asked are the fact ids the last facts_and_entities_by_id asked for.
	asked []string
}

func newFakeNeo() *fakeNeo {
	return &fakeNeo{facts: map[string]map[string]any{}, ran: map[string]int{}}
}

// fakeResult is a result whose records are all read at once (tx.exec
// only collects).
type fakeResult struct {
	neo.ResultWithContext
	recs []*neo.Record
}

func (r fakeResult) Collect(context.Context) ([]*neo.Record, error) { return r.recs, nil }

func rec(vs ...any) *neo.Record { return &neo.Record{Values: vs} }

// bare is a fact's properties without claims and revisions, as
// `f {.*, claims: null, revisions: null}` returns them.
func bare(p map[string]any) map[string]any {
	p = maps.Clone(p)
	p["claims"], p["revisions"] = nil, nil
	return p
}

// newest is the facts whose subject or object is id, highest id first.
func (n *fakeNeo) around(id string) []map[string]any {
	var out []map[string]any
	for _, p := range n.facts {
		if p["subject_id"] == id || p["object_id"] == id {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b map[string]any) int { return strings.Compare(b["id"].(string), a["id"].(string)) })
	return out
}

func (n *fakeNeo) Run(_ context.Context, stmt string, params map[string]any) (neo.ResultWithContext, error) {
	var recs []*neo.Record
	switch stmt {
	case stmtLock:
		n.ran["write_lock"]++
		recs = append(recs, rec(n.head))
	case stmtScopeHead:
		n.ran["scope_head"]++
		recs = append(recs, rec(n.head))
	case stmtFactChains:
		n.ran["fact_chains"]++
		for _, k := range params["keys"].([]map[string]any) {
			ids := slices.Sorted(maps.Keys(n.facts))
			for _, id := range ids {
				if p := n.facts[id]; p["subject_id"] == k["subject"] && p["predicate"] == k["predicate"] {
					recs = append(recs, rec(k["subject"], k["predicate"], maps.Clone(p)))
				}
			}
		}
	case stmtFactsStored:
		n.ran["facts_stored"]++
		for _, id := range params["ids"].([]string) {
			if p, ok := n.facts[id]; ok {
				recs = append(recs, rec(id, maps.Clone(p), false))
			}
		}
	case stmtFactsWrite:
		n.ran["facts_write"]++
		created, replaced := params["created"].([]map[string]any), params["replaced"].([]map[string]any)
		for _, r := range created {
			p := r["props"].(map[string]any)
			n.facts[p["id"].(string)] = maps.Clone(p)
		}
		for _, r := range replaced {
			p := n.facts[r["id"].(string)]
			for k, v := range r["props"].(map[string]any) {
				if v == nil {
					delete(p, k)
				} else {
					p[k] = v
				}
			}
		}
		n.head = params["head"].(int64)
		recs = append(recs, rec(int64(len(created)), int64(len(replaced))))
	case stmtFactsRelink:
		n.ran["facts_relink"]++ // links are the properties here
	case stmtFactDelete:
		n.ran["fact_delete"]++
		if _, ok := n.facts[params["id"].(string)]; ok {
			delete(n.facts, params["id"].(string))
			n.head = params["seq"].(int64)
			recs = append(recs, rec(n.head))
		}
	case stmtFactsAroundAll:
		n.ran["facts_around_all"]++
		for _, id := range params["ids"].([]string) {
			var fs []any
			for _, p := range n.around(id) {
				fs = append(fs, bare(p))
			}
			if len(fs) > 0 {
				recs = append(recs, rec(id, int64(len(fs)) <= params["cap"].(int64), fs))
			}
		}
	case stmtFactsAround:
		n.ran["facts_around"]++
		for _, id := range params["ids"].([]string) {
			for _, p := range n.around(id) {
				if params["bare"] == true {
					p = bare(p)
				}
				recs = append(recs, rec(id, maps.Clone(p)))
			}
		}
	case stmtFactsAndEntitiesByID:
		n.ran["facts_and_entities_by_id"]++
		n.asked = slices.Clone(params["facts"].([]string))
		var fs []any
		for _, id := range params["facts"].([]string) {
			if p, ok := n.facts[id]; ok {
				if params["bare"] == true {
					p = bare(p)
				}
				fs = append(fs, maps.Clone(p))
			}
		}
		recs = append(recs, rec(fs, []any(nil)))
	default:
		return nil, errors.New("fakeNeo: statement not faked: " + stmt)
	}
	return fakeResult{recs: recs}, nil
}

// fakeStore is a Store over n, with a write cache when cached, that
// draws change numbers without asking the server.
func fakeStore(cached bool) *Store {
	s := &Store{seqNext: 1, seqEnd: 1 << 62}
	if cached {
		s.cache = newWriteCache(16)
	}
	return s
}

// update runs fn as a write transaction of s over n, as Store.Update
// does: committed when fn returns nil, rolled back otherwise.
func (n *fakeNeo) update(t *testing.T, s *Store, fn func(graph.Tx) error) error {
	t.Helper()
	facts, head := map[string]map[string]any{}, n.head
	for id, p := range n.facts {
		facts[id] = maps.Clone(p)
	}
	x := &tx{ctx: context.Background(), run: n, scope: "s", writable: true, store: s}
	err := x.do("test", fn)
	if err != nil {
		n.facts, n.head = facts, head
	}
	if s.cache.on() {
		s.ended("s", x, err)
	}
	return err
}

// view runs fn as a read of s over n.
func (n *fakeNeo) view(t *testing.T, s *Store, fn func(graph.Tx) error) {
	t.Helper()
	x := &tx{ctx: context.Background(), run: n, scope: "s", store: s}
	if err := x.do("test", fn); err != nil {
		t.Fatal(err)
	}
}

// ranOf returns the statements run by fn, by name.
func (n *fakeNeo) ranOf(fn func()) map[string]int {
	clear(n.ran)
	fn()
	return maps.Clone(n.ran)
}

var fakeT0 = time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)

func fakeFact(id, subject, predicate, value string) entity.Fact {
	return entity.Fact{ID: id, Scope: "s", SubjectID: subject, Predicate: predicate, Value: value, Text: predicate + " " + value,
		ValidFrom: fakeT0, RecordedAt: fakeT0, UpdatedAt: fakeT0, SourceKind: entity.UserExplicit, Confidence: 1, Importance: 5,
		Claims: []entity.Claim{{From: fakeT0, SourceKind: entity.UserExplicit, Confidence: 1, RecordedAt: fakeT0, Said: fakeT0}}}
}

func put(fs ...entity.Fact) func(graph.Tx) error {
	return func(tx graph.Tx) error { return tx.PutFacts(fs) }
}

// chains reads keys in a write transaction of s, which commits nothing.
func (n *fakeNeo) chains(t *testing.T, s *Store, keys ...graph.ChainKey) map[graph.ChainKey][]entity.Fact {
	t.Helper()
	var out map[graph.ChainKey][]entity.Fact
	if err := n.update(t, s, func(tx graph.Tx) (err error) { out, err = tx.Chains(keys); return err }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCacheCommit: a committed write transaction leaves the chains it read
// and wrote in the cache as the store holds them — rewrites, a fact moved
// to another chain, a deletion — so the next transaction reads them
// without a statement; an aborted one leaves nothing; a write of another
// Store (the head moved) drops them.
func TestCacheCommit(t *testing.T) {
	n, s, plain := newFakeNeo(), fakeStore(true), fakeStore(false)
	port := graph.ChainKey{SubjectID: "e1", Predicate: "port"}
	host := graph.ChainKey{SubjectID: "e1", Predicate: "host"}
	moved := graph.ChainKey{SubjectID: "e2", Predicate: "port"}
	keys := []graph.ChainKey{port, host, moved}
	same := func(step string, wantRan int) {
		t.Helper()
		var got map[graph.ChainKey][]entity.Fact
		ran := n.ranOf(func() { got = n.chains(t, s, keys...) })
		if ran["fact_chains"] != wantRan {
			t.Errorf("%s: %d chain reads from the store, want %d", step, ran["fact_chains"], wantRan)
		}
		if want := n.chains(t, plain, keys...); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the cache answered\n%+v\nthe store holds\n%+v", step, got, want)
		}
	}
	write := func(step string, fn func(graph.Tx) error) {
		t.Helper()
		if err := n.update(t, s, func(tx graph.Tx) error {
			if _, err := tx.Chains(keys); err != nil {
				return err
			}
			return fn(tx)
		}); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}

	write("first", put(fakeFact("f1", "e1", "port", "5432"), fakeFact("f2", "e1", "host", "db1")))
	same("after the first write", 0)

	f1 := fakeFact("f1", "e1", "port", "5432")
	f1.Text, f1.Confidence = "port 5432, said again", 0.5
	write("rewrite", put(f1, fakeFact("f3", "e1", "port", "6432")))
	same("after a rewrite and a new fact", 0)

	// The chain a fact left, and that of a fact deleted, are read again.
	write("move", put(fakeFact("f3", "e2", "port", "6432")))
	same("after a fact moved to another chain", 1)

	write("delete", func(tx graph.Tx) error { return tx.DeleteFact("f2") })
	same("after a deletion", 1)

	abort := errors.New("abort")
	if err := n.update(t, s, func(tx graph.Tx) error {
		if _, err := tx.Chains(keys); err != nil {
			return err
		}
		if err := tx.PutFacts([]entity.Fact{fakeFact("f4", "e1", "host", "db2")}); err != nil {
			return err
		}
		if _, err := tx.Chains([]graph.ChainKey{host}); err != nil { // sends the write
			return err
		}
		return abort
	}); !errors.Is(err, abort) {
		t.Fatalf("aborted: %v", err)
	}
	same("after an aborted write", 0)

	// Another Store writes: the head moves.
	n.facts["f1"]["value"] = "7000"
	n.head++
	same("after another Store wrote", 1)
	same("read again", 0)
}

// TestCacheWriteAround: the facts around an entity a read held are kept
// up to date by this Store's writes — a new fact joins, a fact whose
// subject moved leaves, a rewrite replaces — so a read finds them without
// a statement, as the store holds them.
func TestCacheWriteAround(t *testing.T) {
	n, s, plain := newFakeNeo(), fakeStore(true), fakeStore(false)
	ids := []string{"e1", "e2"}
	a := graph.Around{Bare: true}
	around := func(st *Store) (out map[string][]entity.Fact) {
		t.Helper()
		n.view(t, st, func(g graph.Tx) (err error) { out, err = g.(*tx).FactsAround(ids, a); return err })
		return out
	}
	same := func(step string, wantRan int) {
		t.Helper()
		var got map[string][]entity.Fact
		ran := n.ranOf(func() { got = around(s) })
		if r := ran["facts_around_all"] + ran["facts_around"]; r != wantRan {
			t.Errorf("%s: %d reads of facts around from the store, want %d", step, r, wantRan)
		}
		if want := around(plain); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the cache answered\n%+v\nthe store holds\n%+v", step, got, want)
		}
	}
	if err := n.update(t, s, put(fakeFact("f1", "e1", "port", "5432"), fakeFact("f2", "e1", "host", "db1"))); err != nil {
		t.Fatal(err)
	}
	same("first read", 1)
	same("read again", 0)

	f1 := fakeFact("f1", "e1", "port", "5432")
	f1.Text = "port 5432, said again"
	if err := n.update(t, s, put(f1, fakeFact("f2", "e2", "host", "db1"), fakeFact("f3", "e1", "port", "6432"))); err != nil {
		t.Fatal(err)
	}
	same("after a rewrite, a move and a new fact", 0)
}

// TestCacheByID: a read by id after the read found its head is answered
// from the chains held (and, bare, from the facts around entities held),
// only the ids held nowhere going to the store.
func TestCacheByID(t *testing.T) {
	n, s, plain := newFakeNeo(), fakeStore(true), fakeStore(false)
	if err := n.update(t, s, put(fakeFact("f1", "e1", "port", "5432"), fakeFact("f2", "e2", "host", "db1"))); err != nil {
		t.Fatal(err)
	}
	n.chains(t, s, graph.ChainKey{SubjectID: "e1", Predicate: "port"}) // holds f1's chain
	n.view(t, s, func(g graph.Tx) error {                              // holds the facts around e2
		_, err := g.(*tx).FactsAround([]string{"e2"}, graph.Around{Bare: true})
		return err
	})
	ids := []string{"f1", "f2", "f9"}
	byID := func(st *Store, isBare bool) (out map[string]entity.Fact) {
		t.Helper()
		n.view(t, st, func(g graph.Tx) (err error) {
			if _, err := g.Chains([]graph.ChainKey{{SubjectID: "e9", Predicate: "x"}}); err != nil { // reads the head
				return err
			}
			out, _, err = g.(*tx).FactsAndEntitiesByID(ids, nil, isBare)
			return err
		})
		if isBare { // (a fact of a chain held may come with them)
			for id, f := range out {
				f.Claims, f.Revisions = nil, nil
				out[id] = f
			}
		}
		return out
	}
	for _, isBare := range []bool{false, true} {
		var got map[string]entity.Fact
		n.ranOf(func() { got = byID(s, isBare) })
		wantAsked := []string{"f2", "f9"} // f2 is held bare only
		if isBare {
			wantAsked = []string{"f9"}
		}
		if !slices.Equal(n.asked, wantAsked) {
			t.Errorf("bare %v: asked the store for %v, want %v", isBare, n.asked, wantAsked)
		}
		if want := byID(plain, isBare); !reflect.DeepEqual(got, want) {
			t.Errorf("bare %v: the cache answered\n%+v\nthe store holds\n%+v", isBare, got, want)
		}
	}
}

// TestCacheView: a read uses the cache only at the head it holds: while a
// write transaction of this Store has drawn change numbers it passes the
// cache by, and after another Store's write it drops the scope's entries
// and holds what it reads from the new head on.
func TestCacheView(t *testing.T) {
	n, s := newFakeNeo(), fakeStore(true)
	port := graph.ChainKey{SubjectID: "e1", Predicate: "port"}
	if err := n.update(t, s, put(fakeFact("f1", "e1", "port", "5432"))); err != nil {
		t.Fatal(err)
	}
	read := func() (fs []entity.Fact, fromStore bool) {
		t.Helper()
		ran := n.ranOf(func() {
			n.view(t, s, func(tx graph.Tx) error {
				out, err := tx.Chains([]graph.ChainKey{port})
				fs = out[port]
				return err
			})
		})
		return fs, ran["fact_chains"] > 0
	}
	if _, fromStore := read(); !fromStore {
		t.Fatal("the first read did not read the store")
	}
	if _, fromStore := read(); fromStore {
		t.Fatal("a read at the head held went to the store")
	}
	// Another Store writes: the next read goes to the store, the one after
	// uses what it held.
	n.facts["f1"]["value"] = "7000"
	n.head++
	if fs, fromStore := read(); !fromStore || len(fs) != 1 || fs[0].Value != "7000" {
		t.Fatalf("after another Store wrote: from the store %v, %+v", fromStore, fs)
	}
	if fs, fromStore := read(); fromStore || len(fs) != 1 || fs[0].Value != "7000" {
		t.Fatalf("read again: from the store %v, %+v", fromStore, fs)
	}
	// A write of this Store that has drawn change numbers, not committed.
	f1 := fakeFact("f1", "e1", "port", "8000")
	if err := n.update(t, s, func(tx graph.Tx) error {
		if err := tx.PutFacts([]entity.Fact{f1}); err != nil {
			return err
		}
		if _, err := tx.Chains([]graph.ChainKey{port}); err != nil { // sends the write
			return err
		}
		if fs, fromStore := read(); !fromStore || fs[0].Value != "8000" {
			t.Errorf("while this Store writes: from the store %v, %+v", fromStore, fs)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if fs, fromStore := read(); fromStore || fs[0].Value != "8000" {
		t.Errorf("after the write: from the store %v, %+v", fromStore, fs)
	}
}
