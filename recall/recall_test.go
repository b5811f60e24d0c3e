package recall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/bolt"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/recall"
	"github.com/graphmem/graphmem/search"
	"github.com/graphmem/graphmem/vector"
)

var ctx = context.Background()

// env is a store, its index, the memory service writing to it and a recall
// engine reading from it, all on one settable clock.
type env struct {
	store  *bolt.Store
	index  *search.Index
	svc    *memory.Service
	engine *recall.Engine
	now    time.Time
	// vec is the vector index when the env has embeddings (withVectors).
	vec *vector.Index
}

func newEnv(tb testing.TB) *env {
	tb.Helper()
	e := openEnv(tb, tb.TempDir())
	tb.Cleanup(e.close)
	return e
}

// newEnvPersistent is an env that outlives the benchmark that made it, so
// benchmarks share one data set; its folder is left to the OS.
func newEnvPersistent(tb testing.TB) *env {
	tb.Helper()
	dir, err := os.MkdirTemp("", "graphmem-recall-bench-")
	if err != nil {
		tb.Fatal(err)
	}
	return openEnv(tb, dir)
}

func (e *env) close() {
	e.engine.Close()
	e.index.Close()
	e.store.Close()
}

func openEnv(tb testing.TB, dir string) *env {
	store, err := bolt.Open(filepath.Join(dir, "graph.db"))
	if err != nil {
		tb.Fatal(err)
	}
	idx, err := search.Open(filepath.Join(dir, "index"))
	if err != nil {
		tb.Fatal(err)
	}
	e := &env{store: store, index: idx, now: day("2024-06-01")}
	e.svc = memory.New(store, nil)
	e.svc.Now = func() time.Time { return e.now }
	e.engine = &recall.Engine{Store: store, Index: idx, Now: func() time.Time { return e.now }}
	return e
}

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func at(s string) *time.Time { t := day(s); return &t }

// add writes facts and brings the index up to date.
func (e *env) add(tb testing.TB, scope string, in ...memory.FactInput) []memory.FactResult {
	tb.Helper()
	res, err := e.svc.AddFacts(ctx, scope, in)
	if err != nil {
		tb.Fatal(err)
	}
	e.sync(tb)
	return res
}

func (e *env) sync(tb testing.TB) {
	tb.Helper()
	if _, err := e.index.Sync(ctx, e.store); err != nil {
		tb.Fatal(err)
	}
	if e.vec != nil {
		if _, err := e.vec.Sync(ctx, e.store); err != nil {
			tb.Fatal(err)
		}
	}
}

func (e *env) context(tb testing.TB, scope string, req recall.ContextRequest) recall.ContextResult {
	tb.Helper()
	res, err := e.engine.Context(ctx, scope, req)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

func (e *env) search(tb testing.TB, scope string, req recall.SearchRequest) recall.SearchResult {
	tb.Helper()
	res, err := e.engine.Search(ctx, scope, req)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// lineWith returns the first line of the context containing every part.
func lineWith(context string, parts ...string) string {
	for _, l := range strings.Split(context, "\n") {
		ok := true
		for _, p := range parts {
			if !strings.Contains(l, p) {
				ok = false
				break
			}
		}
		if ok {
			return l
		}
	}
	return ""
}

func statusOf(res recall.ContextResult, id string) entity.Status {
	for _, f := range res.Facts {
		if f.Fact.ID == id {
			return f.Status
		}
	}
	return ""
}

// portHistory: the api listened on 8080 from January, on 9090 from March.
func portHistory(tb testing.TB, e *env, scope string) (old, cur string) {
	tb.Helper()
	a := e.add(tb, scope, memory.FactInput{Subject: "billing api", SubjectType: "service", Predicate: "port", Value: "8080",
		ValidFrom: at("2024-01-01"), Text: "billing api listens on port 8080", SourceKind: entity.UserExplicit})
	b := e.add(tb, scope, memory.FactInput{Subject: "billing api", SubjectType: "service", Predicate: "port", Value: "9090",
		ValidFrom: at("2024-03-01"), Text: "billing api listens on port 9090", SourceKind: entity.UserExplicit})
	return a[0].FactID, b[0].FactID
}

func TestContext_CurrentAsOfAndHistory(t *testing.T) {
	e := newEnv(t)
	old, cur := portHistory(t, e, "repo:x")

	t.Run("Current", func(t *testing.T) {
		res := e.context(t, "repo:x", recall.ContextRequest{Query: "which port does the billing api listen on"})
		if res.Mode != recall.ModeCurrent {
			t.Errorf("mode %q, want current", res.Mode)
		}
		if l := lineWith(res.Context, "9090"); !strings.Contains(l, "current") || !strings.Contains(l, "since 2024-03-01") {
			t.Errorf("current port line: %q\n%s", l, res.Context)
		}
		if strings.Contains(res.Context, "8080") || statusOf(res, old) != "" {
			t.Errorf("superseded port in a current-mode context:\n%s", res.Context)
		}
		if !strings.HasPrefix(res.Context, recall.Title) || !strings.Contains(res.Context, "user_explicit) outranks documentation and inferred facts") {
			t.Errorf("title or precedence line missing:\n%s", res.Context)
		}
	})
	t.Run("AsOf", func(t *testing.T) {
		res := e.context(t, "repo:x", recall.ContextRequest{Query: "which port does the billing api listen on", AsOf: day("2024-02-01")})
		if statusOf(res, old) != entity.StatusCurrent || statusOf(res, cur) != "" {
			t.Errorf("as of February: want only 8080 as current, got %+v\n%s", res.Facts, res.Context)
		}
		if !strings.Contains(res.Context, "As of 2024-02-01") {
			t.Errorf("as_of not stated:\n%s", res.Context)
		}
	})
	t.Run("History", func(t *testing.T) {
		res := e.context(t, "repo:x", recall.ContextRequest{Query: "billing api port", Mode: recall.ModeHistory})
		was := lineWith(res.Context, "[was; ", `"8080"`)
		if !strings.Contains(was, "[was; 2024-01-01 → 2024-03-01; superseded") {
			t.Errorf("history line for 8080: %q\n%s", was, res.Context)
		}
		if l := lineWith(res.Context, "9090"); strings.HasPrefix(strings.TrimSpace(l), "- [was") || !strings.Contains(l, "current") {
			t.Errorf("9090 should be the current head: %q", l)
		}
		if statusOf(res, old) != entity.StatusSuperseded || statusOf(res, cur) != entity.StatusCurrent {
			t.Errorf("statuses: %+v", res.Facts)
		}
	})
	t.Run("AutoHistoryForChangeQuestions", func(t *testing.T) {
		for _, q := range []string{"what port did the billing api use before?", "when did the billing api port change?", "billing api 之前用的端口是什么"} {
			res := e.context(t, "repo:x", recall.ContextRequest{Query: q})
			if res.Mode != recall.ModeHistory || lineWith(res.Context, "[was; ", `"8080"`) == "" {
				t.Errorf("%q: mode %s, context:\n%s", q, res.Mode, res.Context)
			}
		}
	})
}

func TestContext_WhyQuestion(t *testing.T) {
	e := newEnv(t)
	const scope = "repo:trip-miniapp"
	e.add(t, scope,
		memory.FactInput{Subject: "trip-miniapp", SubjectType: "project", Predicate: "uses_database", Object: "MongoDB", ObjectType: "tool",
			ValidFrom: at("2023-02-01"), Text: "trip-miniapp stores its data in MongoDB", SourceKind: entity.UserExplicit})
	e.now = day("2024-04-02")
	ep, _, err := e.svc.AddEpisode(ctx, scope, memory.EpisodeInput{Content: "We're moving off Mongo: multi-document transactions kept failing on bookings.",
		Speaker: "Lena", Role: entity.RoleUser, ReferenceTime: at("2024-04-02")})
	if err != nil {
		t.Fatal(err)
	}
	e.add(t, scope,
		memory.FactInput{Subject: "trip-miniapp", SubjectType: "project", Predicate: "uses_database", Object: "PostgreSQL", ObjectType: "tool",
			ValidFrom: at("2024-04-02"), Text: "trip-miniapp stores its data in PostgreSQL", SourceKind: entity.UserExplicit, EpisodeID: ep.ID},
		memory.FactInput{Subject: "trip-miniapp", SubjectType: "project", Predicate: "dropped", Object: "MongoDB", ObjectType: "tool",
			ValidFrom: at("2024-04-02"), Text: "the team dropped MongoDB for PostgreSQL", SourceKind: entity.UserExplicit, EpisodeID: ep.ID,
			Attributes: map[string]any{"reason": "multi-document transactions were unreliable for bookings", "alternatives": []any{"CockroachDB"}}},
		memory.FactInput{Subject: "trip-miniapp", SubjectType: "project", Predicate: "uses", Object: "Redis", ObjectType: "tool",
			Text: "trip-miniapp caches sessions in Redis", SourceKind: entity.UserExplicit},
	)
	e.now = day("2024-06-01")
	for _, q := range []string{"why did we move off MongoDB?", "我们为什么不用 MongoDB 了"} {
		res := e.context(t, scope, recall.ContextRequest{Query: q})
		t.Logf("%s\n%s", q, res.Context)
		if res.Mode != recall.ModeHistory {
			t.Errorf("%q: mode %s", q, res.Mode)
		}
		if l := lineWith(res.Context, "- [decision; ", `"trip-miniapp" dropped "MongoDB"`, `reason "multi-document transactions were unreliable`); l == "" {
			t.Errorf("%q: no decision with its reason:\n%s", q, res.Context)
		}
		if l := lineWith(res.Context, "PostgreSQL", "current"); l == "" || strings.Contains(l, "[was") {
			t.Errorf("%q: PostgreSQL not shown as current:\n%s", q, res.Context)
		}
		if l := lineWith(res.Context, "[was; 2023-02-01 → 2024-04-02", `"MongoDB"`); l == "" {
			t.Errorf("%q: MongoDB not shown as the former value:\n%s", q, res.Context)
		}
		if l := lineWith(res.Context, "- [source; 2024-04-02", `"Lena": "`, "transactions kept failing"); l == "" {
			t.Errorf("%q: no quote from the source episode:\n%s", q, res.Context)
		}
	}
}

func TestContext_Chinese(t *testing.T) {
	e := newEnv(t)
	res := e.add(t, "user:wang",
		memory.FactInput{Subject: "王芳", SubjectType: "person", Predicate: "lives_in", Object: "杭州", ObjectType: "place",
			Text: "王芳住在杭州", SourceKind: entity.UserExplicit},
		memory.FactInput{Subject: "王芳", SubjectType: "person", Predicate: "likes", Value: "龙井茶", Text: "王芳喜欢喝龙井茶", SourceKind: entity.UserExplicit},
		memory.FactInput{Subject: "Tom", SubjectType: "person", Predicate: "lives_in", Object: "Boston", ObjectType: "place",
			Text: "Tom lives in Boston", SourceKind: entity.UserExplicit},
	)
	ctxRes := e.context(t, "user:wang", recall.ContextRequest{Query: "王芳住在哪里？"})
	t.Log("\n" + ctxRes.Context)
	if lineWith(ctxRes.Context, "王芳住在杭州", "current") == "" {
		t.Fatalf("Chinese fact not found:\n%s", ctxRes.Context)
	}
	if strings.Contains(ctxRes.Context, "Boston") {
		t.Errorf("unrelated English fact in the context:\n%s", ctxRes.Context)
	}
	s := e.search(t, "user:wang", recall.SearchRequest{Query: "龙井", Types: []string{"fact"}})
	if len(s.Hits) == 0 || s.Hits[0].ID != res[1].FactID {
		t.Fatalf("search 龙井: %+v", s.Hits)
	}
}

func TestRecall_ScopeIsolation(t *testing.T) {
	e := newEnv(t)
	e.add(t, "user:alice", memory.FactInput{Subject: "Alice", SubjectType: "person", Predicate: "likes", Value: "blue cheese",
		Text: "Alice likes blue cheese", SourceKind: entity.UserExplicit})
	e.add(t, "user:bob", memory.FactInput{Subject: "Bob", SubjectType: "person", Predicate: "likes", Value: "blue cheese",
		Text: "Bob likes blue cheese", SourceKind: entity.UserExplicit},
		memory.FactInput{Subject: "Alice", SubjectType: "person", Predicate: "knows", Object: "Bob", ObjectType: "person", SourceKind: entity.UserExplicit})
	for _, q := range []string{"blue cheese", "Alice", "Bob", "who likes cheese"} {
		s := e.search(t, "user:alice", recall.SearchRequest{Query: q, Limit: 100})
		for _, h := range s.Hits {
			if (h.Fact != nil && h.Fact.Scope != "user:alice") || (h.Entity != nil && h.Entity.Scope != "user:alice") ||
				strings.Contains(h.Text, "Bob") {
				t.Errorf("search %q in user:alice returned %+v", q, h)
			}
		}
		c := e.context(t, "user:alice", recall.ContextRequest{Query: q, Mode: recall.ModeHistory})
		if strings.Contains(c.Context, "Bob") {
			t.Errorf("context %q in user:alice mentions Bob:\n%s", q, c.Context)
		}
		for _, f := range c.Facts {
			if f.Fact.Scope != "user:alice" {
				t.Errorf("context fact of scope %s", f.Fact.Scope)
			}
		}
	}
}

func TestSearch_SignalsTypesAndKnownAt(t *testing.T) {
	e := newEnv(t)
	res := e.add(t, "u",
		memory.FactInput{Subject: "Mia", SubjectType: "person", Predicate: "works_at", Object: "Acme Robotics", ObjectType: "organization",
			Text: "Mia works at Acme Robotics", SourceKind: entity.UserExplicit, ValidFrom: at("2024-01-10")},
		memory.FactInput{Subject: "Acme Robotics", SubjectType: "organization", Predicate: "located_in", Object: "Lyon", ObjectType: "place",
			Text: "Acme Robotics is based in Lyon", SourceKind: entity.UserExplicit},
	)
	s := e.search(t, "u", recall.SearchRequest{Query: "where does Mia work"})
	if len(s.Hits) == 0 {
		t.Fatal("no hits")
	}
	var found bool
	for _, h := range s.Hits {
		if h.ID == res[0].FactID {
			found = true
			if h.Signals["bm25"] == 0 || h.Signals["importance"] == 0 || h.Score <= 0 || h.Fact == nil {
				t.Errorf("fact hit lacks its signals: %+v", h)
			}
		}
		if h.ID == res[1].FactID && h.Signals["graph_distance"] == 0 && h.Signals["bm25"] == 0 {
			t.Errorf("related fact with neither text nor graph signal: %+v", h)
		}
	}
	if !found {
		t.Fatalf("Mia's job not found: %+v", s.Hits)
	}
	// Lyon shares no word with the query: only the walk from "Mia" reaches it.
	c := e.context(t, "u", recall.ContextRequest{Query: "tell me about Mia"})
	if lineWith(c.Context, "Lyon") == "" {
		t.Errorf("two-hop fact not reached:\n%s", c.Context)
	}
	ents := e.search(t, "u", recall.SearchRequest{Query: "Mia", Types: []string{"entity"}})
	for _, h := range ents.Hits {
		if h.Type != "entity" {
			t.Errorf("types=entity returned %s", h.Type)
		}
	}

	e.now = day("2024-06-10")
	if _, err := e.svc.Retract(ctx, "u", res[0].FactID); err != nil {
		t.Fatal(err)
	}
	e.sync(t)
	after := e.search(t, "u", recall.SearchRequest{Query: "Mia works at Acme", Types: []string{"fact"}})
	for _, h := range after.Hits {
		if h.ID == res[0].FactID {
			t.Fatal("retracted fact returned")
		}
	}
	before := e.search(t, "u", recall.SearchRequest{Query: "Mia works at Acme", Types: []string{"fact"}, KnownAt: day("2024-06-05")})
	if len(before.Hits) == 0 || before.Hits[0].ID != res[0].FactID {
		t.Fatalf("known before the retraction: %+v", before.Hits)
	}
}

func TestContext_BudgetFormatsAndPinned(t *testing.T) {
	e := newEnv(t)
	var in []memory.FactInput
	for i := 0; i < 60; i++ {
		in = append(in, memory.FactInput{Subject: "Ravi", SubjectType: "person", Predicate: "likes",
			Value:      "hiking trail number " + string(rune('A'+i%26)) + string(rune('a'+i/26)),
			Text:       "Ravi enjoys hiking on trail " + string(rune('A'+i%26)) + string(rune('a'+i/26)) + " in the hills near the lake",
			SourceKind: entity.UserExplicit, Importance: 1 + i%10})
	}
	in = append(in,
		memory.FactInput{Subject: "Ravi", SubjectType: "person", Predicate: "constraint", Value: "never book flights before 9am",
			Text: "never book flights before 9am", SourceKind: entity.UserExplicit, Importance: 9},
		memory.FactInput{Subject: "Ravi", SubjectType: "person", Predicate: "constraint", Value: "always pay by card",
			Text: "always pay by card", SourceKind: entity.AgentInferred})
	e.add(t, "u", in...)
	for _, budget := range []int{150, 300, 1500} {
		for _, format := range []string{recall.FormatText, recall.FormatMarkdown, recall.FormatJSON} {
			res := e.context(t, "u", recall.ContextRequest{Query: "ravi hiking", MaxTokens: budget, Format: format})
			if res.Tokens > budget || res.Tokens != recall.EstimateTokens(res.Context) {
				t.Errorf("budget %d %s: %d tokens", budget, format, res.Tokens)
			}
			if !strings.Contains(res.Context, "never book flights before 9am") {
				t.Errorf("budget %d %s: pinned constraint missing:\n%s", budget, format, res.Context)
			}
			if lineWith(res.Context, "- [constraint;", "always pay by card") != "" {
				t.Errorf("an inferred constraint was pinned")
			}
			if format == recall.FormatJSON {
				var v struct {
					Title string           `json:"title"`
					Items []map[string]any `json:"items"`
				}
				if err := json.Unmarshal([]byte(res.Context), &v); err != nil || v.Title != recall.Title || len(v.Items) == 0 || v.Items[0]["id"] == "" {
					t.Errorf("json context: %v %s", err, res.Context)
				}
			}
			if format == recall.FormatMarkdown && !strings.HasPrefix(res.Context, "## "+recall.Title) {
				t.Errorf("markdown title: %s", res.Context)
			}
		}
	}
	big := e.context(t, "u", recall.ContextRequest{Query: "ravi hiking", MaxTokens: 4000})
	n := 0
	for _, f := range big.Facts {
		if f.Fact.Predicate == "likes" {
			n++
		}
	}
	if n < 10 {
		t.Errorf("a large budget holds only %d facts", n)
	}
	// The best block comes first, the second best last, the weakest in the
	// middle.
	var scores []float64
	for _, f := range big.Facts {
		if f.Role == "fact" {
			scores = append(scores, f.Score)
		}
	}
	sorted := slices.Sorted(slices.Values(scores))
	slices.Reverse(sorted)
	if len(scores) < 5 || sorted[0] == sorted[len(sorted)-1] || scores[0] != sorted[0] || scores[len(scores)-1] != sorted[1] {
		t.Fatalf("order of fact scores: %v", scores)
	}
	if mid := scores[len(scores)/2]; mid > sorted[len(sorted)/2] {
		t.Errorf("a strong fact in the middle: %v", scores)
	}
}

func TestContext_Validation(t *testing.T) {
	e := newEnv(t)
	bad := []recall.ContextRequest{
		{Query: ""}, {Query: "x", MaxTokens: 10}, {Query: "x", Mode: "past"}, {Query: "x", Format: "html"},
	}
	for _, req := range bad {
		if _, err := e.engine.Context(ctx, "u", req); entity.ErrorCode(err) != entity.EINVALID {
			t.Errorf("%+v: %v", req, err)
		}
	}
	if _, err := e.engine.Search(ctx, "u", recall.SearchRequest{Query: "x", Types: []string{"fax"}}); entity.ErrorCode(err) != entity.EINVALID {
		t.Errorf("bad type: %v", err)
	}
	if _, err := e.engine.Search(ctx, "bad scope!", recall.SearchRequest{Query: "x"}); entity.ErrorCode(err) != entity.EINVALID {
		t.Errorf("bad scope: %v", err)
	}
	res := e.context(t, "empty", recall.ContextRequest{Query: "anything at all"})
	if !strings.Contains(res.Context, "nothing relevant") {
		t.Errorf("empty scope: %s", res.Context)
	}
}

func TestRecall_HitsCountedOffPath(t *testing.T) {
	for _, noHits := range []bool{false, true} {
		e := newEnv(t)
		e.engine.NoHits = noHits // an evaluation's engine counts none
		res := e.add(t, "u", memory.FactInput{Subject: "Noor", Predicate: "likes", Value: "figs", Text: "Noor likes figs"})
		for i := 0; i < 3; i++ {
			e.search(t, "u", recall.SearchRequest{Query: "figs"})
		}
		if err := e.engine.Close(); err != nil { // flushes the queue
			t.Fatal(err)
		}
		var f entity.Fact
		err := e.store.View(ctx, "u", func(tx graph.Tx) error {
			var err error
			f, err = tx.Fact(res[0].FactID)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case noHits && (f.Hits != 0 || f.LastAccessedAt != nil):
			t.Fatalf("NoHits: hits %d, last accessed %v", f.Hits, f.LastAccessedAt)
		case !noHits && (f.Hits < 1 || f.LastAccessedAt == nil || !f.LastAccessedAt.Equal(e.now)):
			t.Fatalf("hits %d, last accessed %v", f.Hits, f.LastAccessedAt)
		}
	}
}

// TestRecall_ConcurrentWithWrites runs recall while facts are written and
// indexed; run with -race.
func TestRecall_ConcurrentWithWrites(t *testing.T) {
	e := newEnv(t)
	e.add(t, "u", memory.FactInput{Subject: "Ivo", Predicate: "likes", Value: "opera", Text: "Ivo likes opera"})
	done := make(chan struct{})
	errs := make(chan error, 8)
	for g := 0; g < 3; g++ {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				if _, err := e.engine.Context(ctx, "u", recall.ContextRequest{Query: "what does Ivo like"}); err != nil {
					errs <- err
					return
				}
				if _, err := e.engine.Search(ctx, "u", recall.SearchRequest{Query: "Ivo opera"}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := 0; i < 20; i++ {
		if _, err := e.svc.AddFacts(ctx, "u", []memory.FactInput{{Subject: "Ivo", Predicate: "likes", Value: "song " + string(rune('a'+i))}}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.index.Sync(ctx, e.store); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	for g := 0; g < 3; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// countingStore counts the read transactions and walk reads of recall.
type countingStore struct {
	graph.Store
	views, hops *int
	read        map[string]int // entity id → neighbourhood reads
}

type countingTx struct {
	graph.Tx
	hops *int
	read map[string]int
}

func (s countingStore) View(ctx context.Context, scope string, fn func(graph.Tx) error) error {
	*s.views++
	return s.Store.View(ctx, scope, func(tx graph.Tx) error { return fn(countingTx{tx, s.hops, s.read}) })
}

func (t countingTx) FactsAround(ids []string, a graph.Around) (map[string][]entity.Fact, error) {
	*t.hops++
	for _, id := range ids {
		t.read[id]++
	}
	return t.Tx.FactsAround(ids, a)
}

// A context is built from one read transaction: the facts of the entities
// the question names are read once, and the two-hop walk once per hop,
// never again for an entity already read.
func TestContext_OneSnapshot(t *testing.T) {
	e := newEnv(t)
	e.add(t, "u",
		memory.FactInput{Subject: "Mia", SubjectType: "person", Predicate: "works_at", Object: "Acme Robotics", ObjectType: "organization", SourceKind: entity.UserExplicit},
		memory.FactInput{Subject: "Acme Robotics", SubjectType: "organization", Predicate: "located_in", Object: "Lyon", ObjectType: "place", SourceKind: entity.UserExplicit})
	views, hops, read := 0, 0, map[string]int{}
	counted := &recall.Engine{Store: countingStore{e.store, &views, &hops, read}, Index: e.index, Now: e.engine.Now}
	defer counted.Close()
	got, err := counted.Context(ctx, "u", recall.ContextRequest{Query: "tell me about Mia"})
	if err != nil {
		t.Fatal(err)
	}
	if lineWith(got.Context, "Lyon") == "" {
		t.Errorf("the walk did not reach Lyon:\n%s", got.Context)
	}
	if views != 1 || hops < 2 || hops > 3 {
		t.Errorf("context opened %d read transactions and made %d neighbourhood reads, want 1 and at most 3", views, hops)
	}
	// The walk starts from Mia with the facts read for her as a named
	// entity: no entity is read twice.
	for id, n := range read {
		if n > 1 {
			t.Errorf("the facts around %s were read %d times", id, n)
		}
	}
}

// An entity with a long past keeps its current facts in the walk: the
// store reads current facts, newest first, not the oldest ones.
func TestContext_WalkReadsCurrentFacts(t *testing.T) {
	e := newEnv(t)
	var past []memory.FactInput
	for i := range 60 {
		from, to := day("2020-01-01").AddDate(0, 0, i), day("2020-01-01").AddDate(0, 0, i+1)
		past = append(past, memory.FactInput{Subject: "Mia", SubjectType: "person", Predicate: "visited",
			Object: fmt.Sprintf("Town %d", i), ObjectType: "place", ValidFrom: &from, ValidTo: &to})
	}
	e.add(t, "u", past...)
	e.add(t, "u", memory.FactInput{Subject: "Mia", SubjectType: "person", Predicate: "works_at", Object: "Acme Robotics",
		ObjectType: "organization", Text: "employed by Acme Robotics", SourceKind: entity.UserExplicit})
	got := e.context(t, "u", recall.ContextRequest{Query: "what about Mia?"})
	if lineWith(got.Context, "Acme Robotics") == "" {
		t.Errorf("the current fact of an entity with 60 past ones is missing:\n%s", got.Context)
	}
	res := e.search(t, "u", recall.SearchRequest{Query: "what about Mia?"})
	for _, h := range res.Hits {
		if h.Fact != nil && h.Fact.Predicate == "works_at" {
			// 0.6 is the weight of a fact of an entity the query names;
			// from the endpoint of a text hit it would be half that.
			if h.Signals["graph"] < 0.6 {
				t.Errorf("the walk from Mia did not reach her current fact: signals %v", h.Signals)
			}
			return
		}
	}
	t.Errorf("search did not find the current fact: %+v", res.Hits)
}

// A forget query takes the facts it is about, not every fact sharing one
// of its words.
func TestFindFacts_Precision(t *testing.T) {
	e := newEnv(t)
	e.add(t, "u",
		memory.FactInput{Subject: "production database", Predicate: "port", Value: "3307", Text: "The production database moved to port 3307"},
		memory.FactInput{Subject: "booking-service", Predicate: "uses_database", Object: "MongoDB", Text: "booking-service stores bookings in a MongoDB database"},
		memory.FactInput{Subject: "booking-service", Predicate: "dropped", Object: "MongoDB", Text: "The team dropped the MongoDB database for booking-service"})
	sel, err := e.engine.FindFacts(ctx, "u", "production database port", 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.FactIDs) != 1 {
		t.Fatalf("forget query selected %d facts, want the port only", len(sel.FactIDs))
	}
}
