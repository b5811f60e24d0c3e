package graphtest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// Scopes the suite writes to. Most tests write records with the same ids in
// both, so that any read path that leaks across scopes returns a wrong
// record instead of passing by luck.
const (
	ScopeA entity.Scope = "test:a"
	ScopeB entity.Scope = "test:b"
)

// Opener returns a fresh, empty store; the suite closes it.
type Opener = func(t *testing.T) graph.Store

// Run runs the conformance suite against the stores open returns.
func Run(t *testing.T, open Opener) {
	t.Run("Entities", func(t *testing.T) { testEntities(t, open) })
	t.Run("Facts", func(t *testing.T) { testFacts(t, open) })
	t.Run("Episodes", func(t *testing.T) { testEpisodes(t, open) })
	t.Run("DueEpisodes", func(t *testing.T) { testDueEpisodes(t, open) })
	t.Run("Tombstones", func(t *testing.T) { testTombstones(t, open) })
	t.Run("Meta", func(t *testing.T) { testMeta(t, open) })
	t.Run("Changes", func(t *testing.T) { testChanges(t, open) })
	t.Run("ScopeFeed", func(t *testing.T) { testScopeFeed(t, open) })
	t.Run("Rollback", func(t *testing.T) { testRollback(t, open) })
	t.Run("Isolation", func(t *testing.T) { testIsolation(t, open) })
	t.Run("Concurrency", func(t *testing.T) { testConcurrency(t, open) })
	t.Run("Scopes", func(t *testing.T) { testScopes(t, open) })
	t.Run("Ping", func(t *testing.T) { testPing(t, open) })
	t.Run("Walk", func(t *testing.T) { testWalk(t, open) })
}

// fresh opens a store for one subtest and, when it ends, checks the
// invariants and closes the store.
func fresh(t *testing.T, open Opener) graph.Store {
	t.Helper()
	s := open(t)
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	t.Cleanup(func() {
		if !t.Failed() {
			CheckInvariants(t, s)
		}
	})
	return s
}

var ctx = context.Background()

// update runs fn in an Update that must succeed.
func update(t testing.TB, s graph.Store, scope entity.Scope, fn func(graph.Tx) error) {
	t.Helper()
	if err := s.Update(ctx, scope, fn); err != nil {
		t.Fatalf("Update(%s): %v", scope, err)
	}
}

// read runs fn in a View and returns what it returned; an error of the View
// itself (not of fn) fails the test.
func read[T any](t testing.TB, s graph.Store, scope entity.Scope, fn func(graph.Tx) (T, error)) (T, error) {
	t.Helper()
	var out T
	var fnErr error
	err := s.View(ctx, scope, func(tx graph.Tx) error {
		out, fnErr = fn(tx)
		return nil
	})
	if err != nil {
		t.Fatalf("View(%s): %v", scope, err)
	}
	return out, fnErr
}

// must runs fn in a View and fails the test on any error.
func must[T any](t testing.TB, s graph.Store, scope entity.Scope, fn func(graph.Tx) (T, error)) T {
	t.Helper()
	out, err := read(t, s, scope, fn)
	if err != nil {
		t.Fatalf("in scope %s: %v", scope, err)
	}
	return out
}

func wantCode(t testing.TB, what string, err error, code entity.Code) {
	t.Helper()
	if got := entity.ErrorCode(err); got != code {
		t.Errorf("%s: error %v (code %q), want code %q", what, err, got, code)
	}
}

func putEntities(es ...entity.Entity) func(graph.Tx) error {
	return func(tx graph.Tx) error { return tx.PutEntities(es) }
}

func putFacts(fs ...entity.Fact) func(graph.Tx) error {
	return func(tx graph.Tx) error { return tx.PutFacts(fs) }
}

func putEpisodes(es ...entity.Episode) func(graph.Tx) error {
	return func(tx graph.Tx) error {
		for _, e := range es {
			if err := tx.PutEpisode(e); err != nil {
				return err
			}
		}
		return nil
	}
}

// ---- comparing records ----

var timeType = reflect.TypeFor[time.Time]()

// normalize returns a copy of v in which times are in UTC without a
// monotonic reading, and empty slices and maps are nil: the differences a
// store may legitimately introduce.
func normalize(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == timeType {
			return reflect.ValueOf(v.Interface().(time.Time).UTC())
		}
		out := reflect.New(v.Type()).Elem()
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				out.Field(i).Set(normalize(v.Field(i)))
			}
		}
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(normalize(v.Elem()))
		return p
	case reflect.Slice:
		if v.Len() == 0 {
			return reflect.Zero(v.Type())
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(normalize(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.Len() == 0 {
			return reflect.Zero(v.Type())
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), normalize(it.Value()))
		}
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(normalize(v.Elem()))
		return out
	}
	return v
}

// canon normalises a record for comparison and, unless keepSeq, clears its
// Seq.
func canon[T any](r T, keepSeq bool) T {
	v := normalize(reflect.ValueOf(r))
	if !keepSeq {
		if f := v.FieldByName("Seq"); f.IsValid() {
			f.SetUint(0)
		}
	}
	return v.Interface().(T)
}

// sameRecord reports whether got is want as written into scope: the store
// fills in the scope and a sequence number; everything else must survive.
func sameRecord[T any](t testing.TB, what string, got, want T, scope entity.Scope) bool {
	t.Helper()
	w := reflect.ValueOf(&want).Elem()
	if f := w.FieldByName("Scope"); f.IsValid() && f.String() == "" {
		f.SetString(scope)
	}
	g, wc := canon(got, false), canon(want, false)
	if !reflect.DeepEqual(g, wc) {
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(wc)
		t.Errorf("%s:\n got %s\nwant %s", what, gj, wj)
		return false
	}
	return true
}

// seqOf returns the Seq field of a record.
func seqOf[T any](r T) uint64 {
	f := reflect.ValueOf(r).FieldByName("Seq")
	if !f.IsValid() {
		return 0
	}
	return f.Uint()
}

func factIDs(fs []entity.Fact) []string {
	out := make([]string, len(fs))
	for i := range fs {
		out[i] = fs[i].ID
	}
	return out
}

func entityIDs(es []entity.Entity) []string {
	out := make([]string, len(es))
	for i := range es {
		out[i] = es[i].ID
	}
	return out
}

func episodeIDs(es []entity.Episode) []string {
	out := make([]string, len(es))
	for i := range es {
		out[i] = es[i].ID
	}
	return out
}

func wantIDs(t testing.TB, what string, got []string, want ...string) {
	t.Helper()
	if len(want) == 0 {
		want = nil
	}
	if len(got) == 0 {
		got = nil
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: got ids %q, want %q", what, got, want)
	}
}

// sortedSet returns ids sorted, for comparing lists whose order the port
// leaves open.
func sortedSet(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// pages collects every page of a paged list, checking that a non-empty
// cursor always leads to a non-empty page and that pages never exceed the
// limit.
func pages[T any](t testing.TB, what string, limit int, list func(cursor string) ([]T, string, error)) []T {
	t.Helper()
	var all []T
	cursor := ""
	for i := 0; ; i++ {
		page, next, err := list(cursor)
		if err != nil {
			t.Fatalf("%s (page %d): %v", what, i, err)
		}
		if len(page) > limit {
			t.Fatalf("%s (page %d): %d items, limit %d", what, i, len(page), limit)
		}
		if cursor != "" && len(page) == 0 {
			t.Fatalf("%s (page %d): cursor %q led to an empty page", what, i, cursor)
		}
		all = append(all, page...)
		if next == "" {
			return all
		}
		if len(page) == 0 {
			t.Fatalf("%s (page %d): empty page with a cursor", what, i)
		}
		if i > 100_000 {
			t.Fatalf("%s: cursor never ends", what)
		}
		cursor = next
	}
}

// readPage runs one paged list call in a View.
func readPage[T any](t testing.TB, s graph.Store, scope entity.Scope, fn func(graph.Tx) ([]T, string, error)) ([]T, string, error) {
	t.Helper()
	var next string
	out, err := read(t, s, scope, func(tx graph.Tx) ([]T, error) {
		var out []T
		var err error
		out, next, err = fn(tx)
		return out, err
	})
	return out, next, err
}

const pageSize = 100

func allEntities(t testing.TB, s graph.Store, scope entity.Scope) []entity.Entity {
	t.Helper()
	return pages(t, "Entities in "+scope, pageSize, func(c string) ([]entity.Entity, string, error) {
		return readPage(t, s, scope, func(tx graph.Tx) ([]entity.Entity, string, error) { return tx.Entities(c, pageSize) })
	})
}

func allFacts(t testing.TB, s graph.Store, scope entity.Scope, f graph.FactFilter) []entity.Fact {
	t.Helper()
	f.Limit = pageSize
	return pages(t, fmt.Sprintf("Facts(%+v) in %s", f, scope), pageSize, func(c string) ([]entity.Fact, string, error) {
		f.Cursor = c
		return readPage(t, s, scope, func(tx graph.Tx) ([]entity.Fact, string, error) { return tx.Facts(f) })
	})
}

func allEpisodes(t testing.TB, s graph.Store, scope entity.Scope, status string) []entity.Episode {
	t.Helper()
	return pages(t, fmt.Sprintf("Episodes(%q) in %s", status, scope), pageSize, func(c string) ([]entity.Episode, string, error) {
		return readPage(t, s, scope, func(tx graph.Tx) ([]entity.Episode, string, error) { return tx.Episodes(status, c, pageSize) })
	})
}

func allTombstones(t testing.TB, s graph.Store, scope entity.Scope) []entity.Tombstone {
	t.Helper()
	return pages(t, "ListTombstones in "+scope, pageSize, func(c string) ([]entity.Tombstone, string, error) {
		return readPage(t, s, scope, func(tx graph.Tx) ([]entity.Tombstone, string, error) { return tx.ListTombstones(c, pageSize) })
	})
}

func allChanges(t testing.TB, s graph.Store, after uint64) []graph.Change {
	t.Helper()
	var out []graph.Change
	for {
		page, err := s.Changes(ctx, after, pageSize)
		if err != nil {
			t.Fatalf("Changes(%d): %v", after, err)
		}
		if len(page) > pageSize {
			t.Fatalf("Changes(%d, %d): %d changes", after, pageSize, len(page))
		}
		if len(page) == 0 {
			return out
		}
		out = append(out, page...)
		after = page[len(page)-1].Seq
	}
}

// view runs fn in a View that must succeed.
func view(t testing.TB, s graph.Store, scope entity.Scope, fn func(graph.Tx) error) {
	t.Helper()
	if err := s.View(ctx, scope, fn); err != nil {
		t.Fatalf("View(%s): %v", scope, err)
	}
}
