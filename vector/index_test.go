package vector_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/graphmem/graphmem/embed/embedtest"
	"github.com/graphmem/graphmem/graph/bolt"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/search"
	"github.com/graphmem/graphmem/vector"
)

var ctx = context.Background()

func day(s string) *time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return &t
}

type env struct {
	dir   string
	store *bolt.Store
	svc   *memory.Service
	vec   *vector.Index
}

func newEnv(t *testing.T) *env {
	t.Helper()
	emb := embedtest.Client(t)
	dir := t.TempDir()
	store, err := bolt.Open(filepath.Join(dir, "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	vec, err := vector.Open(filepath.Join(dir, "vectors"), emb, embedtest.Identity)
	if err != nil {
		t.Fatal(err)
	}
	return &env{dir: dir, store: store, svc: memory.New(store, nil), vec: vec}
}

func (e *env) sync(t *testing.T) {
	t.Helper()
	if _, err := e.vec.Sync(ctx, e.store); err != nil {
		t.Fatal(err)
	}
}

func (e *env) nearest(t *testing.T, scope, q string) string {
	t.Helper()
	v, err := e.vec.QueryVector(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	hits := e.vec.Search(scope, search.TypeFact, v, 1)
	if len(hits) == 0 {
		return ""
	}
	return hits[0].ID
}

func TestIndex_FollowsStore(t *testing.T) {
	e := newEnv(t)
	res, err := e.svc.AddFacts(ctx, "s", []memory.FactInput{
		{Subject: "Hiro Sato", SubjectType: "person", Predicate: "reports_to", Object: "Mia Chen", ObjectType: "person", ValidFrom: day("2023-01-01")},
		{Subject: "identity-worker", Predicate: "memory_limit", Value: "512Mi", ValidFrom: day("2023-01-01")},
		{Subject: "cart-api", Predicate: "deployed_in", Value: "eu-west-1", ValidFrom: day("2023-01-01")},
		{Subject: "identity-worker", Predicate: "memory_limit", Value: "1Gi", ValidFrom: day("2024-01-01")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.AddFacts(ctx, "other", []memory.FactInput{
		{Subject: "Hiro Sato", Predicate: "reports_to", Object: "Ann Lee", ValidFrom: day("2023-01-01")},
	}); err != nil {
		t.Fatal(err)
	}
	e.sync(t)
	boss, mem, region, mem2 := res[0].FactID, res[1].FactID, res[2].FactID, res[3].FactID
	for _, id := range []string{boss, mem, region, mem2} {
		if !e.vec.Has("s", search.TypeFact, id) {
			t.Fatalf("fact %s has no vector", id)
		}
	}
	// Entities are embedded too (Hiro Sato, Mia Chen, …).
	if n := e.vec.Len(); n < 4+1+5 {
		t.Fatalf("%d vectors, want the facts and entities of both scopes", n)
	}
	if got := e.nearest(t, "s", "who is Hiro's boss"); got != boss {
		t.Errorf("who is Hiro's boss: nearest %s, want the reports_to fact %s", got, boss)
	}
	if got := e.nearest(t, "s", "in which region is cart-api hosted"); got != region {
		t.Errorf("region: nearest %s, want %s", got, region)
	}

	// A restated fact changes its record but not its text: not embedded again.
	before := e.vec.Embedded()
	if _, err := e.svc.AddFacts(ctx, "s", []memory.FactInput{
		{Subject: "cart-api", Predicate: "deployed_in", Value: "eu-west-1", ValidFrom: day("2023-01-01")},
	}); err != nil {
		t.Fatal(err)
	}
	e.sync(t)
	if got := e.vec.Embedded(); got != before {
		t.Errorf("a restatement embedded %d texts again", got-before)
	}

	// Forgotten: the vector goes with the next sync.
	if _, err := e.svc.Forget(ctx, "s", memory.ForgetRequest{FactIDs: []string{region}}); err != nil {
		t.Fatal(err)
	}
	e.sync(t)
	if e.vec.Has("s", search.TypeFact, region) {
		t.Fatal("a forgotten fact kept its vector")
	}

	// Purged: Prune removes it from memory and from the file at once.
	stored := e.vec.StoredVector("s", search.TypeFact, boss)
	if stored == nil {
		t.Fatal("no stored vector")
	}
	if err := e.vec.Save(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(e.dir, "vectors", vector.FileName)
	if b, _ := os.ReadFile(file); !bytes.Contains(b, stored) || !bytes.Contains(b, []byte(boss)) {
		t.Fatal("the file does not hold the vector before the purge: the check below would prove nothing")
	}
	if _, err := e.svc.Forget(ctx, "s", memory.ForgetRequest{FactIDs: []string{boss}, Mode: memory.ModePurge}); err != nil {
		t.Fatal(err)
	}
	if err := e.vec.Prune(ctx, e.store); err != nil {
		t.Fatal(err)
	}
	if e.vec.Has("s", search.TypeFact, boss) {
		t.Fatal("a purged fact kept its vector")
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, stored) || bytes.Contains(b, []byte(boss)) {
		t.Fatal("the purged fact's vector or id is still in the file")
	}
	entries, _ := os.ReadDir(filepath.Join(e.dir, "vectors"))
	if len(entries) != 1 {
		t.Fatalf("the vector folder holds %d files, want only %s", len(entries), vector.FileName)
	}

	// Reopened: the same vectors, nothing to embed.
	e.sync(t)
	n, seq := e.vec.Len(), e.vec.Seq()
	if err := e.vec.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := vector.Open(filepath.Join(e.dir, "vectors"), embedtest.Client(t), embedtest.Identity)
	if err != nil {
		t.Fatal(err)
	}
	if again.Len() != n || again.Seq() != seq {
		t.Fatalf("reopened: %d vectors at %d, saved %d at %d", again.Len(), again.Seq(), n, seq)
	}
	if _, err := again.Sync(ctx, e.store); err != nil || again.Embedded() != 0 {
		t.Fatalf("reopened index embedded %d texts (%v)", again.Embedded(), err)
	}
	e.vec = again
	if got := e.nearest(t, "s", "how much memory may identity-worker use"); got != mem && got != mem2 {
		t.Errorf("after reopening: nearest %s, want a memory_limit fact", got)
	}
	// Rebuilt (reindex): every record again, reusing the vectors of
	// unchanged texts.
	if err := again.Close(); err != nil {
		t.Fatal(err)
	}
	rebuilt, err := vector.Rebuild(ctx, filepath.Join(e.dir, "vectors"), e.store, embedtest.Client(t), embedtest.Identity)
	if err != nil {
		t.Fatal(err)
	}
	if rebuilt.Len() != n || rebuilt.Embedded() != 0 {
		t.Fatalf("rebuilt: %d vectors (want %d), %d embedded (want 0)", rebuilt.Len(), n, rebuilt.Embedded())
	}
	e.vec = rebuilt
	if got := e.nearest(t, "s", "how much memory may identity-worker use"); got != mem && got != mem2 {
		t.Errorf("after rebuilding: nearest %s, want a memory_limit fact", got)
	}
	// Another model: the file is discarded and rebuilt.
	other, err := vector.Open(filepath.Join(e.dir, "vectors"), embedtest.Client(t), "another model")
	if err != nil || other.Len() != 0 || other.Seq() != 0 {
		t.Fatalf("another model's index: %d vectors at %d (%v)", other.Len(), other.Seq(), err)
	}
}

// TestIndex_Predicates: the ontology's predicates are embedded by the
// sync, kept in the file, re-embedded only when their text changes and
// dropped when the ontology no longer has them.
func TestIndex_Predicates(t *testing.T) {
	e := newEnv(t)
	parse := func(y string) *ontology.Ontology {
		o, err := ontology.Parse([]byte(y))
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	e.vec.SetPredicates(parse(`
predicates:
  - {name: reports_to, cardinality: one, description: "The manager of an engineer.", synonyms: [manager]}
  - {name: port, cardinality: one, description: "The network port a service listens on."}
  - {name: deadline, cardinality: one, description: "When a project is due."}
`))
	e.sync(t)
	if n := e.vec.Embedded(); n != 3 {
		t.Fatalf("embedded %d texts, want the 3 predicates", n)
	}
	v, err := e.vec.QueryVector(ctx, "who is my boss?")
	if err != nil {
		t.Fatal(err)
	}
	if hits := e.vec.Search(vector.PredicateScope, vector.TypePredicate, v, 3); len(hits) != 3 || hits[0].ID != "reports_to" {
		t.Fatalf("nearest predicates %+v, want reports_to first", hits)
	}
	e.vec.SetPredicates(parse(`
predicates:
  - {name: reports_to, cardinality: one, description: "The manager of an engineer.", synonyms: [manager]}
  - {name: port, cardinality: one, description: "The TCP port a service accepts connections on."}
`))
	e.sync(t)
	if n := e.vec.Embedded(); n != 4 {
		t.Fatalf("embedded %d texts in all, want one more (the changed description)", n)
	}
	if e.vec.Has(vector.PredicateScope, vector.TypePredicate, "deadline") {
		t.Fatal("a predicate the ontology dropped kept its vector")
	}
	if err := e.vec.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := vector.Open(filepath.Join(e.dir, "vectors"), embedtest.Client(t), embedtest.Identity)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"reports_to", "port"} {
		if !again.Has(vector.PredicateScope, vector.TypePredicate, p) {
			t.Errorf("%s's vector is not in the file", p)
		}
	}
}

// TestIndex_Pairwise: the stored vectors' similarities to one another,
// symmetric, 0 for a record with no vector and on the diagonal.
func TestIndex_Pairwise(t *testing.T) {
	e := newEnv(t)
	res, err := e.svc.AddFacts(ctx, "s", []memory.FactInput{
		{Subject: "identity-worker", Predicate: "memory_limit", Value: "512Mi", ValidFrom: day("2023-01-01")},
		{Subject: "identity-worker", Predicate: "memory_limit", Value: "1Gi", ValidFrom: day("2024-01-01")},
		{Subject: "Hiro Sato", Predicate: "reports_to", Object: "Mia Chen", ValidFrom: day("2023-01-01")},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.sync(t)
	ids := []string{res[0].FactID, res[1].FactID, res[2].FactID, "no-such-fact"}
	m := e.vec.Pairwise("s", search.TypeFact, ids)
	for i := range ids {
		for j := range ids {
			if m[i][j] != m[j][i] {
				t.Errorf("m[%d][%d] = %v but m[%d][%d] = %v", i, j, m[i][j], j, i, m[j][i])
			}
		}
		if m[i][i] != 0 || m[i][3] != 0 {
			t.Errorf("row %d: diagonal %v, unknown record %v; want 0", i, m[i][i], m[i][3])
		}
	}
	if !(m[0][1] > m[0][2] && m[0][2] > 0) {
		t.Errorf("two memory limits %.3f apart, a memory limit and a manager %.3f: want the limits nearer", m[0][1], m[0][2])
	}
	if m := e.vec.Pairwise("other", search.TypeFact, ids[:2]); m[0][1] != 0 {
		t.Errorf("a scope with no vectors: %v", m)
	}
}
