package search_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/bolt"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/search"
)

var ctx = context.Background()

// MustOpenStore opens a bolt store in a temporary folder.
func MustOpenStore(tb testing.TB) *bolt.Store {
	tb.Helper()
	s, err := bolt.Open(filepath.Join(tb.TempDir(), "graph.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// MustOpenIndex opens an index in a temporary folder.
func MustOpenIndex(tb testing.TB) *search.Index {
	tb.Helper()
	x, err := search.Open(filepath.Join(tb.TempDir(), "index"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { x.Close() })
	return x
}

func newService(store graph.Store, now *time.Time) *memory.Service {
	svc := memory.New(store, nil)
	svc.Now = func() time.Time { return *now }
	return svc
}

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func addFacts(tb testing.TB, svc *memory.Service, scope string, in ...memory.FactInput) []memory.FactResult {
	tb.Helper()
	res, err := svc.AddFacts(ctx, scope, in)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

func mustSync(tb testing.TB, x *search.Index, s graph.Store) int {
	tb.Helper()
	n, err := x.Sync(ctx, s)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

func mustSearch(tb testing.TB, x *search.Index, q search.Query) []search.Hit {
	tb.Helper()
	hits, err := x.Search(ctx, q)
	if err != nil {
		tb.Fatal(err)
	}
	return hits
}

func ids(hits []search.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Type + ":" + h.ID
	}
	return out
}

func has(hits []search.Hit, id string) bool {
	for _, h := range hits {
		if h.ID == id {
			return true
		}
	}
	return false
}

func TestIndex_Analysis(t *testing.T) {
	store := MustOpenStore(t)
	x := MustOpenIndex(t)
	now := day("2024-05-01")
	svc := newService(store, &now)
	res := addFacts(t, svc, "u",
		memory.FactInput{Subject: "Alice", Predicate: "mentioned", Value: "moving to Berlin", Text: "Alice is moving to Berlin for a new job"},
		memory.FactInput{Subject: "团队", Predicate: "uses_database", Object: "PostgreSQL", Text: "我们的数据库已经换成了PostgreSQL"},
		memory.FactInput{Subject: "Bob", Predicate: "likes", Value: "cats", Text: "Bob likes cats"},
		memory.FactInput{Subject: "小明", Predicate: "likes", Value: "猫", Text: "小明喜欢猫"},
	)
	mustSync(t, x, store)
	tests := []struct {
		name, query string
		want        string
		notWant     []string
	}{
		{"EnglishInflection", "who moved to berlin", res[0].FactID, []string{res[2].FactID}},
		{"EnglishPlural", "cat", res[2].FactID, []string{res[0].FactID}},
		{"ChineseBigram", "数据库", res[1].FactID, []string{res[0].FactID, res[2].FactID, res[3].FactID}},
		{"ChineseInSentence", "我们用什么数据库", res[1].FactID, nil},
		{"ChineseOneCharacter", "猫", res[3].FactID, []string{res[1].FactID}},
		{"EntityName", "postgresql", res[1].FactID, []string{res[2].FactID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := mustSearch(t, x, search.Query{Scope: "u", Text: tt.query, Types: []string{search.TypeFact}, Now: now})
			if len(hits) == 0 || hits[0].ID != tt.want {
				t.Fatalf("%q: top hit is not %s: %v", tt.query, tt.want, ids(hits))
			}
			for _, nw := range tt.notWant {
				if has(hits, nw) {
					t.Errorf("%q found unrelated fact %s", tt.query, nw)
				}
			}
		})
	}
}

func TestIndex_ScopeIsolation(t *testing.T) {
	store := MustOpenStore(t)
	x := MustOpenIndex(t)
	now := day("2024-05-01")
	svc := newService(store, &now)
	a := addFacts(t, svc, "user:alice", memory.FactInput{Subject: "Alice", Predicate: "likes", Value: "secret garden"})
	b := addFacts(t, svc, "user:bob", memory.FactInput{Subject: "Bob", Predicate: "likes", Value: "secret garden"})
	mustSync(t, x, store)
	for _, q := range []string{"secret garden", "Alice", "Bob", ""} {
		hits := mustSearch(t, x, search.Query{Scope: "user:alice", Text: q, Now: now, Limit: 100})
		for _, h := range hits {
			if h.Scope != "user:alice" || h.ID == b[0].FactID {
				t.Fatalf("%q: hit of another scope: %+v", q, h)
			}
		}
		if q == "secret garden" && !has(hits, a[0].FactID) {
			t.Fatalf("own fact not found: %v", ids(hits))
		}
	}
	if _, err := x.Search(ctx, search.Query{Text: "secret"}); entity.ErrorCode(err) != entity.EINVALID {
		t.Fatalf("search without scope: %v", err)
	}
}

func TestIndex_AsOfAndHistory(t *testing.T) {
	store := MustOpenStore(t)
	x := MustOpenIndex(t)
	now := day("2024-05-01")
	svc := newService(store, &now)
	jan, mar := day("2024-01-01"), day("2024-03-01")
	old := addFacts(t, svc, "u", memory.FactInput{Subject: "api", Predicate: "port", Value: "8080", ValidFrom: &jan, Text: "the api listens on port 8080"})
	cur := addFacts(t, svc, "u", memory.FactInput{Subject: "api", Predicate: "port", Value: "9090", ValidFrom: &mar, Text: "the api listens on port 9090"})
	mustSync(t, x, store)
	q := search.Query{Scope: "u", Text: "api port", Now: now, Types: []string{search.TypeFact}}

	hits := mustSearch(t, x, q)
	if !has(hits, cur[0].FactID) || has(hits, old[0].FactID) {
		t.Fatalf("current: want only %s, got %v", cur[0].FactID, ids(hits))
	}
	q.AsOf = day("2024-02-01")
	hits = mustSearch(t, x, q)
	if !has(hits, old[0].FactID) || has(hits, cur[0].FactID) {
		t.Fatalf("as of February: want only %s, got %v", old[0].FactID, ids(hits))
	}
	q.AsOf = day("2023-06-01")
	if hits = mustSearch(t, x, q); len(hits) != 0 {
		t.Fatalf("before anything was true: %v", ids(hits))
	}
	q.AsOf, q.IncludeHistory = time.Time{}, true
	hits = mustSearch(t, x, q)
	if !has(hits, old[0].FactID) || !has(hits, cur[0].FactID) {
		t.Fatalf("history: want both, got %v", ids(hits))
	}
	// On the real clock, after the index was written: superseded facts are
	// told apart by their indexed kind rather than by a range.
	q.IncludeHistory, q.Now = false, time.Now().Add(time.Minute)
	hits = mustSearch(t, x, q)
	if !has(hits, cur[0].FactID) || has(hits, old[0].FactID) {
		t.Fatalf("current on the real clock: want only %s, got %v", cur[0].FactID, ids(hits))
	}
}

func TestIndex_HiddenFacts(t *testing.T) {
	store := MustOpenStore(t)
	x := MustOpenIndex(t)
	now := day("2024-05-01")
	svc := newService(store, &now)
	res := addFacts(t, svc, "u",
		memory.FactInput{Subject: "zed", Predicate: "likes", Value: "retracted walnut"},
		memory.FactInput{Subject: "zed", Predicate: "likes", Value: "forgotten walnut"},
		memory.FactInput{Subject: "zed", Predicate: "likes", Value: "expiring walnut"},
		memory.FactInput{Subject: "zed", Predicate: "likes", Value: "plain walnut"},
	)
	retractAt := day("2024-05-02")
	now = retractAt
	if _, err := svc.Retract(ctx, "u", res[0].FactID); err != nil {
		t.Fatal(err)
	}
	err := store.Update(ctx, "u", func(tx graph.Tx) error {
		f, err := tx.Fact(res[1].FactID)
		if err != nil {
			return err
		}
		f.ForgottenAt = &now
		g, err := tx.Fact(res[2].FactID)
		if err != nil {
			return err
		}
		exp := day("2024-06-01")
		g.ExpiresAt = &exp
		return tx.PutFacts([]entity.Fact{f, g})
	})
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, x, store)
	q := search.Query{Scope: "u", Text: "walnut", Now: day("2024-05-03"), IncludeHistory: true, Limit: 10}
	got := mustSearch(t, x, q)
	if len(got) != 2 || !has(got, res[2].FactID) || !has(got, res[3].FactID) {
		t.Fatalf("before TTL: want the expiring and the plain fact, got %v", ids(got))
	}
	q.Now = day("2024-07-01")
	if got = mustSearch(t, x, q); len(got) != 1 || !has(got, res[3].FactID) {
		t.Fatalf("after TTL: want only the plain fact, got %v", ids(got))
	}
	q.Now, q.KnownAt = day("2024-05-03"), day("2024-05-01")
	if got = mustSearch(t, x, q); !has(got, res[0].FactID) {
		t.Fatalf("known before the retraction: want the retracted fact, got %v", ids(got))
	}
}

func TestIndex_EpisodesAndDeletes(t *testing.T) {
	store := MustOpenStore(t)
	x := MustOpenIndex(t)
	now := day("2024-05-01")
	svc := newService(store, &now)
	ref := day("2024-04-30")
	ep, _, err := svc.AddEpisode(ctx, "u", memory.EpisodeInput{Content: "We went hiking in the Alps", Speaker: "Maria", ReferenceTime: &ref,
		Metadata: map[string]any{"session_id": "s1"}})
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, x, store)
	hits := mustSearch(t, x, search.Query{Scope: "u", Text: "hike alps", Now: now})
	if len(hits) != 1 || hits[0].ID != ep.ID || hits[0].Type != search.TypeEpisode ||
		hits[0].Session != "m:s1" || hits[0].Speaker != "maria" || !hits[0].Time.Equal(ref) {
		t.Fatalf("episode hit: %+v", hits)
	}
	if hits := mustSearch(t, x, search.Query{Scope: "u", Text: "maria", Now: now}); len(hits) != 1 {
		t.Fatalf("speaker not searchable: %v", ids(hits))
	}
	if hits := mustSearch(t, x, search.Query{Scope: "u", Text: "alps", Now: now, AsOf: day("2024-04-01")}); len(hits) != 0 {
		t.Fatalf("episode found before it happened: %v", ids(hits))
	}
	if hits := mustSearch(t, x, search.Query{Scope: "u", Session: "m:s1", Now: now}); len(hits) != 1 {
		t.Fatalf("session listing: %v", ids(hits))
	}
	if err := store.Update(ctx, "u", func(tx graph.Tx) error { return tx.DeleteEpisode(ep.ID) }); err != nil {
		t.Fatal(err)
	}
	mustSync(t, x, store)
	if hits := mustSearch(t, x, search.Query{Scope: "u", Text: "hike alps", Now: now}); len(hits) != 0 {
		t.Fatalf("deleted episode still found: %v", ids(hits))
	}
}

func TestIndex_CatchUpAndRebuild(t *testing.T) {
	store := MustOpenStore(t)
	dir := filepath.Join(t.TempDir(), "index")
	x, err := search.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := day("2024-05-01")
	svc := newService(store, &now)
	first := addFacts(t, svc, "u", memory.FactInput{Subject: "Ann", Predicate: "likes", Value: "marmalade"})
	mustSync(t, x, store)
	seq := x.Seq("u")
	// Written while the index is not following, then the index restarts.
	second := addFacts(t, svc, "u", memory.FactInput{Subject: "Ann", Predicate: "likes", Value: "quince jelly"})
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if x, err = search.Open(dir); err != nil {
		t.Fatal(err)
	}
	if x.Seq("u") != seq {
		t.Fatalf("sequence after reopen: %d, want %d", x.Seq("u"), seq)
	}
	if hits := mustSearch(t, x, search.Query{Scope: "u", Text: "quince", Now: now}); len(hits) != 0 {
		t.Fatal("unsynced fact found")
	}
	if n := mustSync(t, x, store); n == 0 {
		t.Fatal("nothing to catch up")
	}
	if hits := mustSearch(t, x, search.Query{Scope: "u", Text: "quince", Now: now}); !has(hits, second[0].FactID) {
		t.Fatalf("caught-up fact not found: %v", ids(hits))
	}
	x.Close()

	x, err = search.Rebuild(ctx, dir, store)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for _, id := range []string{first[0].FactID, second[0].FactID} {
		if hits := mustSearch(t, x, search.Query{Scope: "u", Text: "marmalade quince", Now: now}); !has(hits, id) {
			t.Fatalf("rebuilt index lacks %s: %v", id, ids(hits))
		}
	}
}

// TestIndex_KillDuringSync kills a process that writes and indexes facts,
// then checks that the index, reopened, catches up with every fact the
// store holds.
func TestIndex_KillDuringSync(t *testing.T) {
	if os.Getenv("GRAPHMEM_SEARCH_CHILD") != "" {
		crashChild()
		return
	}
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestIndex_KillDuringSync$")
	cmd.Env = append(os.Environ(), "GRAPHMEM_SEARCH_CHILD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the child has written and indexed some batches.
	buf := make([]byte, 64)
	read := 0
	for read < 20 {
		n, err := out.Read(buf)
		if err != nil {
			t.Fatalf("child: %v", err)
		}
		read += n
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	store, err := bolt.Open(filepath.Join(dir, "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	x, err := search.Open(filepath.Join(dir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	before := len(mustSearch(t, x, search.Query{Scope: "crash", Types: []string{search.TypeFact}, Limit: search.MaxLimit, Now: time.Now().Add(time.Hour)}))
	mustSync(t, x, store)
	var want int
	err = store.View(ctx, "crash", func(tx graph.Tx) error {
		cursor := ""
		for {
			fs, next, err := tx.Facts(graph.FactFilter{Cursor: cursor, Limit: 1000})
			if err != nil {
				return err
			}
			want += len(fs)
			if cursor = next; cursor == "" {
				return nil
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	hits := mustSearch(t, x, search.Query{Scope: "crash", Types: []string{search.TypeFact}, Limit: search.MaxLimit, Now: time.Now().Add(time.Hour)})
	if want == 0 || len(hits) != want {
		t.Fatalf("after kill -9 and catch-up: %d facts indexed, store has %d", len(hits), want)
	}
	t.Logf("facts indexed before catch-up %d, after %d", before, len(hits))
}

func crashChild() {
	dir := os.Getenv("GRAPHMEM_SEARCH_CHILD")
	store, err := bolt.Open(filepath.Join(dir, "graph.db"))
	if err != nil {
		panic(err)
	}
	x, err := search.Open(filepath.Join(dir, "index"))
	if err != nil {
		panic(err)
	}
	svc := memory.New(store, nil)
	for i := 0; ; i++ {
		in := make([]memory.FactInput, 20)
		for j := range in {
			in[j] = memory.FactInput{Subject: "s" + strconv.Itoa(i), Predicate: "likes", Value: fmt.Sprintf("item %d", j)}
		}
		if _, err := svc.AddFacts(ctx, "crash", in); err != nil {
			panic(err)
		}
		if i%2 == 0 {
			if _, err := x.Sync(ctx, store); err != nil {
				panic(err)
			}
		}
		fmt.Print(".")
		if i > 1000 {
			time.Sleep(time.Hour)
		}
	}
}

func TestIndex_OtherLayoutIsRebuilt(t *testing.T) {
	store := MustOpenStore(t)
	dir := filepath.Join(t.TempDir(), "index")
	x, err := search.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := day("2024-05-01")
	svc := newService(store, &now)
	res := addFacts(t, svc, "u", memory.FactInput{Subject: "Ann", Predicate: "likes", Value: "tangerines"})
	mustSync(t, x, store)
	// Pretend an older graphmem wrote it.
	if err := x.Bleve().SetInternal([]byte("graphmem.version"), []byte("0")); err != nil {
		t.Fatal(err)
	}
	x.Close()
	if x, err = search.Open(dir); err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if x.Seq("u") != 0 {
		t.Fatalf("an index of another layout was kept (seq %d)", x.Seq("u"))
	}
	mustSync(t, x, store)
	if hits := mustSearch(t, x, search.Query{Scope: "u", Text: "tangerines", Now: now}); !has(hits, res[0].FactID) {
		t.Fatalf("not rebuilt: %v", ids(hits))
	}
}

// updates is how many documents the index has (re)written.
func updates(tb testing.TB, x *search.Index) float64 {
	tb.Helper()
	st, ok := x.Bleve().StatsMap()["index"].(map[string]any)
	if !ok {
		tb.Fatal("no index stats")
	}
	switch v := st["TotUpdates"].(type) {
	case uint64:
		return float64(v)
	case float64:
		return v
	}
	tb.Fatalf("TotUpdates: %T", st["TotUpdates"])
	return 0
}

func TestIndex_HitCountsDoNotRewrite(t *testing.T) {
	store := MustOpenStore(t)
	x := MustOpenIndex(t)
	now := day("2024-05-01")
	svc := newService(store, &now)
	res := addFacts(t, svc, "u", memory.FactInput{Subject: "Ann", Predicate: "likes", Value: "figs"})
	mustSync(t, x, store)
	before := updates(t, x)
	touch := func(fn func(*entity.Fact)) {
		t.Helper()
		err := store.Update(ctx, "u", func(tx graph.Tx) error {
			f, err := tx.Fact(res[0].FactID)
			if err != nil {
				return err
			}
			fn(&f)
			return tx.PutFacts([]entity.Fact{f})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	touch(func(f *entity.Fact) { f.Hits++; f.LastAccessedAt = &now })
	if n := mustSync(t, x, store); n != 1 {
		t.Fatalf("applied %d changes, want 1", n)
	}
	if after := updates(t, x); after != before {
		t.Fatalf("a hit count rewrote the document (%v → %v updates)", before, after)
	}
	touch(func(f *entity.Fact) { f.Text = "Ann adores figs" })
	mustSync(t, x, store)
	if after := updates(t, x); after != before+1 {
		t.Fatalf("a text change: %v → %v updates", before, after)
	}
	if hits := mustSearch(t, x, search.Query{Scope: "u", Text: "adores", Now: now}); !has(hits, res[0].FactID) {
		t.Fatalf("changed text not searchable: %v", ids(hits))
	}
}

func TestIndex_Speakers(t *testing.T) {
	store := MustOpenStore(t)
	x := MustOpenIndex(t)
	now := day("2024-05-01")
	svc := newService(store, &now)
	for _, in := range []struct{ scope, speaker string }{{"a", "Ann Lee"}, {"a", "Bob"}, {"b", "Carl"}} {
		if _, _, err := svc.AddEpisode(ctx, in.scope, memory.EpisodeInput{Content: "hello there", Speaker: in.speaker}); err != nil {
			t.Fatal(err)
		}
	}
	mustSync(t, x, store)
	got, err := x.Speakers(ctx, "a", []string{"ann", "ann lee", "bob", "carl", "lee", "bo"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"ann", "ann lee", "bob"}) {
		t.Fatalf("speakers of scope a: %v", got)
	}
}

// The index leaves out the exclusions no document could match (no
// future-dated or TTL'd document): what it knows of its documents must
// survive a reopen, and a filter on a predicate no fact has finds nothing.
func TestIndex_BoundsAfterReopen(t *testing.T) {
	store := MustOpenStore(t)
	dir := filepath.Join(t.TempDir(), "index")
	x, err := search.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := day("2024-05-01")
	svc := newService(store, &now)
	later := day("2030-01-01")
	res := addFacts(t, svc, "u",
		memory.FactInput{Subject: "zed", Predicate: "likes", Value: "plain walnut"},
		memory.FactInput{Subject: "zed", Predicate: "wants", Value: "future walnut", ValidFrom: &later},
		memory.FactInput{Subject: "zed", Predicate: "needs", Value: "expiring walnut"},
	)
	err = store.Update(ctx, "u", func(tx graph.Tx) error {
		f, err := tx.Fact(res[2].FactID)
		if err != nil {
			return err
		}
		exp := day("2024-06-01")
		f.ExpiresAt = &exp
		return tx.PutFacts([]entity.Fact{f})
	})
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, x, store)
	q := search.Query{Scope: "u", Text: "walnut", Now: day("2024-07-01"), Limit: 10}
	for i := 0; i < 2; i++ {
		if got := mustSearch(t, x, q); len(got) != 1 || !has(got, res[0].FactID) {
			t.Fatalf("open %d: want only the plain fact, got %v", i, ids(got))
		}
		if got := mustSearch(t, x, search.Query{Scope: "u", Predicates: []string{"wants"}, Now: q.Now, AsOf: later}); !has(got, res[1].FactID) {
			t.Fatalf("open %d: predicate filter: want the future fact as of its start, got %v", i, ids(got))
		}
		if got := mustSearch(t, x, search.Query{Scope: "u", Predicates: []string{"constraint"}, Now: q.Now}); len(got) != 0 {
			t.Fatalf("open %d: a predicate no fact has: %v", i, ids(got))
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		if x, err = search.Open(dir); err != nil {
			t.Fatal(err)
		}
	}
	x.Close()
}

// TestIndex_LengthNorm: a long turn that says a word twice ranks above a
// short one that says it once (LengthNorm; Bleve's 0.75 ranks the short
// one first).
func TestIndex_LengthNorm(t *testing.T) {
	store := MustOpenStore(t)
	x := MustOpenIndex(t)
	now := day("2024-05-01")
	svc := newService(store, &now)
	short, _, err := svc.AddEpisode(ctx, "u", memory.EpisodeInput{Content: "Redis, then.", Speaker: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	long, _, err := svc.AddEpisode(ctx, "u", memory.EpisodeInput{Speaker: "Ann", Content: "Last week we finally moved the " +
		"checkout service off its old cache and onto Redis, after two evenings of load tests with the whole team watching the " +
		"graphs; the latency fell by half and the pager stayed quiet all weekend, so Redis stays for good now that the bill is known."})
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, x, store)
	hits := mustSearch(t, x, search.Query{Scope: "u", Text: "redis", Now: now})
	if len(hits) != 2 || hits[0].ID != long.ID || hits[1].ID != short.ID {
		t.Fatalf("want the long turn first: %v (long %s, short %s)", ids(hits), long.ID, short.ID)
	}
}
