package graphtest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// CheckInvariants walks the whole store and fails t if any read path
// disagrees with another. Per scope it runs CheckScope; across scopes it
// checks the change feed (strictly increasing, each record once, every
// live record listed at the Seq it carries, deleted ones marked deleted,
// nothing listed as live that cannot be read) and DueEpisodes (exactly
// the queued and processing episodes, oldest reference time first).
//
// It is meant for a store nobody writes to meanwhile, such as at the end of
// a test.
func CheckInvariants(t testing.TB, s graph.Store) {
	t.Helper()
	feed := checkFeed(t, allChanges(t, s, 0))
	scopes, err := s.Scopes(ctx)
	if err != nil {
		t.Fatalf("Scopes: %v", err)
	}
	live := map[changeKey]uint64{} // record → Seq it carries (0: none)
	var due []entity.Episode
	for _, scope := range scopes {
		if !entity.ValidScope(scope) {
			t.Errorf("Scopes lists %q, not a valid scope", scope)
			continue
		}
		v := inspect(t, s, scope)
		for _, e := range v.entities {
			live[changeKey{scope, graph.KindEntity, e.ID}] = e.Seq
		}
		for _, f := range v.facts {
			live[changeKey{scope, graph.KindFact, f.ID}] = f.Seq
		}
		for _, e := range v.episodes {
			live[changeKey{scope, graph.KindEpisode, e.ID}] = e.Seq
			if e.Status == entity.EpisodeQueued || e.Status == entity.EpisodeProcessing {
				due = append(due, e)
			}
		}
		for _, ts := range v.tombstones {
			live[changeKey{scope, graph.KindTombstone, ts.Fingerprint}] = 0
		}
	}
	for k, seq := range live {
		c, ok := feed[k]
		switch {
		case !ok:
			t.Errorf("invariant: %v is stored but not in Changes", k)
		case c.Deleted:
			t.Errorf("invariant: %v is stored but Changes lists it as deleted at %d", k, c.Seq)
		case k.kind != graph.KindTombstone && c.Seq != seq:
			t.Errorf("invariant: %v carries Seq %d, Changes lists it at %d", k, seq, c.Seq)
		}
	}
	for k, c := range feed {
		if _, ok := live[k]; !ok && !c.Deleted {
			t.Errorf("invariant: Changes lists %v as live at %d, but it cannot be read", k, c.Seq)
		}
	}

	refs, err := s.DueEpisodes(ctx, farFuture, len(due)+1)
	if err != nil {
		t.Fatalf("DueEpisodes: %v", err)
	}
	var got, want []string
	for _, r := range refs {
		got = append(got, r.Scope+"/"+r.ID)
	}
	for _, e := range due {
		want = append(want, e.Scope+"/"+e.ID)
	}
	if !slices.Equal(sortedSet(got), sortedSet(want)) {
		t.Errorf("invariant: DueEpisodes(far future) = %q, want the queued and processing episodes %q", got, want)
	}
	refTime := map[string]time.Time{}
	for _, e := range due {
		refTime[e.Scope+"/"+e.ID] = e.ReferenceTime
	}
	for i := 1; i < len(got); i++ {
		if refTime[got[i]].Before(refTime[got[i-1]]) {
			t.Errorf("invariant: DueEpisodes lists %s (%v) after %s (%v)", got[i], refTime[got[i]], got[i-1], refTime[got[i-1]])
		}
	}
}

var farFuture = time.Date(9000, 1, 1, 0, 0, 0, 0, time.UTC)

// CheckScope reads everything in scope through every read path of the
// port and fails t if any of them returns a record of another scope, or
// disagrees with the others: lists are in strict id order; Entity, Fact,
// Episode and Tombstones return what the lists return; EntitiesByKey and
// EntitiesByPrefix find exactly the entities with that name or alias key;
// Chains, FactsOf and Facts by subject, predicate, object and value return
// exactly the facts that have them; EpisodeByKey and Episodes by status
// agree with the episodes. For predicates ending in "_one", no two facts
// of a chain that are known now (ExpiredAt unset) overlap in valid time.
func CheckScope(t testing.TB, s graph.Store, scope entity.Scope) {
	t.Helper()
	inspect(t, s, scope)
}

type scopeView struct {
	entities   []entity.Entity
	facts      []entity.Fact
	episodes   []entity.Episode
	tombstones []entity.Tombstone
}

func inspect(t testing.TB, s graph.Store, scope entity.Scope) scopeView {
	t.Helper()
	var v scopeView
	err := s.View(ctx, scope, func(tx graph.Tx) error {
		v.entities = checkEntities(t, tx, scope)
		v.facts = checkFacts(t, tx, scope)
		v.episodes = checkEpisodes(t, tx, scope)
		v.tombstones = checkTombstones(t, tx, scope)
		return nil
	})
	if err != nil {
		t.Fatalf("View(%s): %v", scope, err)
	}
	return v
}

// inScope checks the scope and the strict id order of a list.
func inScope[T any](t testing.TB, what string, scope entity.Scope, list []T, id func(T) string, sc func(T) string) {
	t.Helper()
	for i, r := range list {
		if sc(r) != scope {
			t.Errorf("invariant: %s in %s returned %s of scope %q", what, scope, id(r), sc(r))
		}
		if i > 0 && id(list[i-1]) >= id(r) {
			t.Errorf("invariant: %s in %s lists %s after %s", what, scope, id(r), id(list[i-1]))
		}
	}
}

func sameSeq[T any](t testing.TB, what string, got, want T) {
	t.Helper()
	if g, w := canon(got, true), canon(want, true); !reflect.DeepEqual(g, w) {
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(w)
		t.Errorf("invariant: %s differs from the listed record:\n got %s\nwant %s", what, gj, wj)
	}
}

func checkEntities(t testing.TB, tx graph.Tx, scope entity.Scope) []entity.Entity {
	t.Helper()
	es := pages(t, "Entities", pageSize, func(c string) ([]entity.Entity, string, error) { return tx.Entities(c, pageSize) })
	inScope(t, "Entities", scope, es, func(e entity.Entity) string { return e.ID }, func(e entity.Entity) string { return e.Scope })
	byKey := map[string][]string{}
	byPrefix := map[string][]string{}
	for _, e := range es {
		got, err := tx.Entity(e.ID)
		if err != nil {
			t.Errorf("invariant: Entities lists %s, Entity: %v", e.ID, err)
			continue
		}
		sameSeq(t, "Entity("+e.ID+")", got, e)
		prefixes := map[string]bool{}
		for _, k := range e.Keys() {
			if k == "" {
				continue
			}
			byKey[k] = append(byKey[k], e.ID)
			_, n := utf8.DecodeRuneInString(k)
			prefixes[k[:n]] = true
		}
		for p := range prefixes {
			byPrefix[p] = append(byPrefix[p], e.ID)
		}
	}
	keys := sortedKeys(byKey)
	found, err := tx.EntitiesByKey(keys)
	if err != nil {
		t.Fatalf("EntitiesByKey: %v", err)
	}
	for _, k := range keys {
		got := found[k]
		inScopeSet(t, "EntitiesByKey["+k+"]", scope, got, func(e entity.Entity) (string, string) { return e.ID, e.Scope })
		if g, w := sortedSet(entityIDs(got)), sortedSet(byKey[k]); !slices.Equal(g, w) {
			t.Errorf("invariant: EntitiesByKey[%q] = %q, want the entities with that key %q", k, g, w)
		}
	}
	for _, p := range sortedKeys(byPrefix) {
		got, err := tx.EntitiesByPrefix(p, len(es)+1)
		if err != nil {
			t.Fatalf("EntitiesByPrefix(%q): %v", p, err)
		}
		inScopeSet(t, "EntitiesByPrefix("+p+")", scope, got, func(e entity.Entity) (string, string) { return e.ID, e.Scope })
		if g, w := sortedSet(entityIDs(got)), sortedSet(byPrefix[p]); !slices.Equal(g, w) {
			t.Errorf("invariant: EntitiesByPrefix(%q) = %q, want the entities with a key starting so %q", p, g, w)
		}
	}
	return es
}

func inScopeSet[T any](t testing.TB, what string, scope entity.Scope, list []T, idScope func(T) (string, string)) {
	t.Helper()
	for _, r := range list {
		if id, sc := idScope(r); sc != scope {
			t.Errorf("invariant: %s in %s returned %s of scope %q", what, scope, id, sc)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func checkFacts(t testing.TB, tx graph.Tx, scope entity.Scope) []entity.Fact {
	t.Helper()
	list := func(f graph.FactFilter) []entity.Fact {
		t.Helper()
		f.Limit = pageSize
		fs := pages(t, fmt.Sprintf("Facts(%+v)", f), pageSize, func(c string) ([]entity.Fact, string, error) {
			f.Cursor = c
			return tx.Facts(f)
		})
		inScope(t, fmt.Sprintf("Facts(%+v)", f), scope, fs, func(f entity.Fact) string { return f.ID }, func(f entity.Fact) string { return f.Scope })
		return fs
	}
	fs := list(graph.FactFilter{})
	chains := map[graph.ChainKey][]string{}
	bySubject, byPredicate, byObject, byValue, adjacent := map[string][]string{}, map[string][]string{}, map[string][]string{}, map[string][]string{}, map[string][]string{}
	byID := map[string]*entity.Fact{}
	for i := range fs {
		f := &fs[i]
		byID[f.ID] = f
		got, err := tx.Fact(f.ID)
		if err != nil {
			t.Errorf("invariant: Facts lists %s, Fact: %v", f.ID, err)
			continue
		}
		sameSeq(t, "Fact("+f.ID+")", got, *f)
		ck := graph.ChainKey{SubjectID: f.SubjectID, Predicate: f.Predicate}
		chains[ck] = append(chains[ck], f.ID)
		bySubject[f.SubjectID] = append(bySubject[f.SubjectID], f.ID)
		byPredicate[f.Predicate] = append(byPredicate[f.Predicate], f.ID)
		adjacent[f.SubjectID] = append(adjacent[f.SubjectID], f.ID)
		switch {
		case f.ObjectID != "":
			byObject[f.ObjectID] = append(byObject[f.ObjectID], f.ID)
			if f.ObjectID != f.SubjectID {
				adjacent[f.ObjectID] = append(adjacent[f.ObjectID], f.ID)
			}
		case entity.Normalize(f.Value) != "":
			v := entity.Normalize(f.Value)
			byValue[v] = append(byValue[v], f.ID)
		}
	}

	keys := make([]graph.ChainKey, 0, len(chains))
	for k := range chains {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b graph.ChainKey) int {
		return cmp.Or(cmp.Compare(a.SubjectID, b.SubjectID), cmp.Compare(a.Predicate, b.Predicate))
	})
	got, err := tx.Chains(keys)
	if err != nil {
		t.Fatalf("Chains: %v", err)
	}
	for _, k := range keys {
		chain := got[k]
		inScope(t, fmt.Sprintf("Chains[%v]", k), scope, chain, func(f entity.Fact) string { return f.ID }, func(f entity.Fact) string { return f.Scope })
		if g := factIDs(chain); !slices.Equal(g, chains[k]) {
			t.Errorf("invariant: Chains[%v] = %q, want %q", k, g, chains[k])
		}
		if strings.HasSuffix(k.Predicate, "_one") {
			checkCardinalityOne(t, k, chain)
		}
	}
	for _, id := range sortedKeys(adjacent) {
		of, err := tx.FactsOf(id, len(adjacent[id])+1)
		if err != nil {
			t.Fatalf("FactsOf(%s): %v", id, err)
		}
		inScope(t, "FactsOf("+id+")", scope, of, func(f entity.Fact) string { return f.ID }, func(f entity.Fact) string { return f.Scope })
		if g := factIDs(of); !slices.Equal(g, adjacent[id]) {
			t.Errorf("invariant: FactsOf(%s) = %q, want %q", id, g, adjacent[id])
		}
	}
	for _, q := range []struct {
		m   map[string][]string
		set func(string) graph.FactFilter
	}{
		{bySubject, func(v string) graph.FactFilter { return graph.FactFilter{SubjectID: v} }},
		{byPredicate, func(v string) graph.FactFilter { return graph.FactFilter{Predicate: v} }},
		{byObject, func(v string) graph.FactFilter { return graph.FactFilter{ObjectID: v} }},
		{byValue, func(v string) graph.FactFilter { return graph.FactFilter{Value: v} }},
	} {
		for _, v := range sortedKeys(q.m) {
			f := q.set(v)
			if g := factIDs(list(f)); !slices.Equal(g, q.m[v]) {
				t.Errorf("invariant: Facts(%+v) = %q, want %q", f, g, q.m[v])
			}
		}
	}
	return fs
}

// checkCardinalityOne checks that the facts of a cardinality-one chain
// known now do not overlap in valid time.
func checkCardinalityOne(t testing.TB, k graph.ChainKey, chain []entity.Fact) {
	t.Helper()
	var known []entity.Fact
	for _, f := range chain {
		if f.ExpiredAt == nil {
			known = append(known, f)
		}
	}
	for i := range known {
		for j := i + 1; j < len(known); j++ {
			a, b := &known[i], &known[j]
			if a.Overlaps(b.ValidFrom, b.ValidTo) && b.Overlaps(a.ValidFrom, a.ValidTo) {
				t.Errorf("invariant: chain %v (cardinality one): %s [%v, %v) overlaps %s [%v, %v)",
					k, a.ID, a.ValidFrom, fmtTime(a.ValidTo), b.ID, b.ValidFrom, fmtTime(b.ValidTo))
			}
		}
	}
}

func fmtTime(t *time.Time) string {
	if t == nil {
		return "∞"
	}
	return t.String()
}

func checkEpisodes(t testing.TB, tx graph.Tx, scope entity.Scope) []entity.Episode {
	t.Helper()
	list := func(status string) []entity.Episode {
		t.Helper()
		es := pages(t, fmt.Sprintf("Episodes(%q)", status), pageSize, func(c string) ([]entity.Episode, string, error) {
			return tx.Episodes(status, c, pageSize)
		})
		inScope(t, fmt.Sprintf("Episodes(%q)", status), scope, es, func(e entity.Episode) string { return e.ID }, func(e entity.Episode) string { return e.Scope })
		return es
	}
	es := list("")
	byStatus := map[string][]string{}
	keyOwner := map[string]string{}
	for _, e := range es {
		got, err := tx.Episode(e.ID)
		if err != nil {
			t.Errorf("invariant: Episodes lists %s, Episode: %v", e.ID, err)
			continue
		}
		sameSeq(t, "Episode("+e.ID+")", got, e)
		byStatus[e.Status] = append(byStatus[e.Status], e.ID)
		if e.IdempotencyKey == "" {
			continue
		}
		if other, dup := keyOwner[e.IdempotencyKey]; dup {
			t.Errorf("invariant: episodes %s and %s share idempotency key %q", other, e.ID, e.IdempotencyKey)
		}
		keyOwner[e.IdempotencyKey] = e.ID
		if got, err := tx.EpisodeByKey(e.IdempotencyKey); err != nil || got.ID != e.ID || got.Scope != scope {
			t.Errorf("invariant: EpisodeByKey(%q) = %s (%s), %v; want %s", e.IdempotencyKey, got.ID, got.Scope, err, e.ID)
		}
	}
	for _, st := range sortedKeys(byStatus) {
		if g := episodeIDs(list(st)); !slices.Equal(g, byStatus[st]) {
			t.Errorf("invariant: Episodes(%q) = %q, want %q", st, g, byStatus[st])
		}
	}
	return es
}

func checkTombstones(t testing.TB, tx graph.Tx, scope entity.Scope) []entity.Tombstone {
	t.Helper()
	ts := pages(t, "ListTombstones", pageSize, func(c string) ([]entity.Tombstone, string, error) { return tx.ListTombstones(c, pageSize) })
	inScope(t, "ListTombstones", scope, ts, func(x entity.Tombstone) string { return x.Fingerprint }, func(x entity.Tombstone) string { return x.Scope })
	fps := make([]string, len(ts))
	for i := range ts {
		fps[i] = ts[i].Fingerprint
	}
	got, err := tx.Tombstones(fps)
	if err != nil {
		t.Fatalf("Tombstones: %v", err)
	}
	if len(got) != len(ts) {
		t.Errorf("invariant: Tombstones of the %d listed fingerprints found %d", len(ts), len(got))
	}
	for _, x := range ts {
		sameSeq(t, "Tombstones["+x.Fingerprint+"]", got[x.Fingerprint], x)
	}
	return ts
}
