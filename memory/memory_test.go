package memory_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/fixtures"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/storetest"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/temporal"
)

var ctx = context.Background()

const scope = "test"

// clock is a controllable transaction-time clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }
func (c *clock) tick()          { c.t = c.t.Add(time.Minute) }

// MustOpenService returns a service over a fresh embedded store.
func MustOpenService(tb testing.TB) (*memory.Service, *clock) {
	tb.Helper()
	svc := memory.New(storetest.Open(tb), nil)
	c := &clock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	svc.Now = func() time.Time { c.tick(); return c.t }
	return svc, c
}

func mustAdd(tb testing.TB, svc *memory.Service, in ...memory.FactInput) []memory.FactResult {
	tb.Helper()
	res, err := svc.AddFacts(ctx, scope, in)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

func scenario(tb testing.TB, name string) []memory.FactInput {
	tb.Helper()
	fs, err := fixtures.Facts(name)
	if err != nil {
		tb.Fatal(err)
	}
	return fs
}

func actions(res []memory.FactResult) []temporal.Action {
	var out []temporal.Action
	for _, r := range res {
		out = append(out, r.Action)
	}
	return out
}

func date(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

func values(fs []entity.Fact) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ObjectText())
	}
	return out
}

func TestScenario_PortChange(t *testing.T) {
	svc, _ := MustOpenService(t)
	in := scenario(t, "port-change")
	r1 := mustAdd(t, svc, in[0])
	known := svc.Now()
	r2 := mustAdd(t, svc, in[1])
	if r1[0].Action != temporal.Created || r2[0].Action != temporal.SupersededPrevious || !slices.Equal(r2[0].Superseded, []string{r1[0].FactID}) {
		t.Fatalf("got %+v then %+v", r1, r2)
	}
	cur, _, err := svc.Facts(ctx, scope, memory.FactQuery{Subject: "Production Database", Predicate: "port"})
	if err != nil || !slices.Equal(values(cur), []string{"3307"}) {
		t.Fatalf("now: %v %v", values(cur), err)
	}
	past, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "production database", Predicate: "port", AsOf: date("2023-06-01")})
	if !slices.Equal(values(past), []string{"5432"}) {
		t.Fatalf("as of 2023-06: %v", values(past))
	}
	before, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "production database", Predicate: "port", KnownAt: known})
	if !slices.Equal(values(before), []string{"5432"}) {
		t.Fatalf("known before the change: %v", values(before))
	}
	hist, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "production database", IncludeHistory: true})
	if len(hist) != 2 {
		t.Fatalf("history: %v", values(hist))
	}
	d, err := svc.Fact(ctx, scope, r1[0].FactID, time.Time{})
	if err != nil || len(d.Chain) != 2 || d.Fact.SupersededBy != r2[0].FactID || d.Fact.ValidTo == nil || !d.Fact.ValidTo.Equal(*in[1].ValidFrom) {
		t.Fatalf("detail %+v %v", d, err)
	}
	if s := d.Fact.Status(time.Now()); s != entity.StatusSuperseded {
		t.Fatalf("status %s", s)
	}
}

// TestAddFacts_ActionsIndependentOfBatch: each statement of a batch is
// reported as it would be on its own, in order, whatever the batch size.
func TestAddFacts_ActionsIndependentOfBatch(t *testing.T) {
	for _, name := range []string{"port-change", "employment", "package-manager", "decisions"} {
		in := scenario(t, name)
		one, _ := MustOpenService(t)
		var single []temporal.Action
		for _, f := range in {
			single = append(single, actions(mustAdd(t, one, f))...)
		}
		all, _ := MustOpenService(t)
		if got := actions(mustAdd(t, all, in...)); !slices.Equal(got, single) {
			t.Errorf("%s: one batch %v, one by one %v", name, got, single)
		}
	}
	if got := actions(mustAdd(t, func() *memory.Service { s, _ := MustOpenService(t); return s }(), scenario(t, "port-change")...)); got[0] != temporal.Created {
		t.Errorf("port-change in one batch: the first fact is %s, want created", got[0])
	}
}

// TestAddFacts_TextStaysWithItsInterval: a statement about a later
// interval never overwrites the text of an earlier fact, in any order.
func TestAddFacts_TextStaysWithItsInterval(t *testing.T) {
	d := func(s string) *time.Time { x := date(s); return &x }
	in := []memory.FactInput{
		{Subject: "orders-service", Predicate: "uses_database", Object: "PostgreSQL", ValidFrom: d("2025-01-01"), Text: "orders-service uses PostgreSQL"},
		{Subject: "orders-service", Predicate: "uses_database", Object: "MySQL", ValidFrom: d("2025-06-01"), Text: "orders-service moved to MySQL"},
		{Subject: "orders-service", Predicate: "uses_database", Object: "PostgreSQL", ValidFrom: d("2026-01-01"), Text: "orders-service uses PostgreSQL again (new cluster)"},
	}
	for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}, {2, 0, 1}} {
		svc, _ := MustOpenService(t)
		for _, i := range order {
			mustAdd(t, svc, in[i])
		}
		hist, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "orders-service", IncludeHistory: true})
		got := map[string]string{}
		for _, f := range hist {
			got[f.ValidFrom.Format("2006")+" "+f.ObjectText()] = f.Text
		}
		if got["2025 PostgreSQL"] != in[0].Text || got["2026 PostgreSQL"] != in[2].Text || len(got) != 3 {
			t.Errorf("order %v: texts %v", order, got)
		}
	}
}

func TestScenario_EmploymentOutOfOrder(t *testing.T) {
	svc, _ := MustOpenService(t)
	var got []temporal.Action
	for _, f := range scenario(t, "employment") {
		got = append(got, actions(mustAdd(t, svc, f))...)
	}
	want := []temporal.Action{temporal.Created, temporal.Historical, temporal.SupersededPrevious, temporal.Created, temporal.Created}
	if !slices.Equal(got, want) {
		t.Fatalf("actions %v, want %v", got, want)
	}
	hist, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "alice chen", Predicate: "works_at", IncludeHistory: true})
	slices.SortFunc(hist, func(a, b entity.Fact) int { return a.ValidFrom.Compare(b.ValidFrom) })
	if !slices.Equal(values(hist), []string{"Initech", "Globex", "Acme Corp"}) {
		t.Fatalf("chain %v", values(hist))
	}
	if !hist[0].ValidTo.Equal(hist[1].ValidFrom) || !hist[1].ValidTo.Equal(hist[2].ValidFrom) || hist[2].ValidTo != nil {
		t.Fatalf("intervals do not chain: %+v", hist)
	}
	at, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "Alice Chen", Predicate: "works_at", AsOf: date("2019-06-01")})
	if !slices.Equal(values(at), []string{"Initech"}) {
		t.Fatalf("2019: %v", values(at))
	}
	// Two different people with similar names are not merged.
	chan_, _ := svc.FindEntities(ctx, scope, "Alice Chan", 10)
	chen, _ := svc.FindEntities(ctx, scope, "Alice Chen", 10)
	if len(chan_) == 0 || len(chen) == 0 || chan_[0].Entity.ID == chen[0].Entity.ID {
		t.Fatalf("Alice Chan and Alice Chen merged: %+v %+v", chan_, chen)
	}
	umbrella, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "Alice Chen", Object: "Umbrella", IncludeHistory: true})
	if len(umbrella) != 0 {
		t.Fatalf("Alice Chen got Alice Chan's job: %v", values(umbrella))
	}
	tl, err := svc.Timeline(ctx, scope, chen[0].Entity.ID, "", time.Time{})
	if err != nil || len(tl.Facts) != 4 {
		t.Fatalf("timeline %v %v", values(tl.Facts), err)
	}
}

func TestScenario_DecisionsAndPackageManager(t *testing.T) {
	svc, _ := MustOpenService(t)
	mustAdd(t, svc, scenario(t, "package-manager")...)
	res := mustAdd(t, svc, scenario(t, "decisions")...)
	cur, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "trip-miniapp", Predicate: "package_manager"})
	if !slices.Equal(values(cur), []string{"pnpm"}) {
		t.Fatalf("package manager now: %v", values(cur))
	}
	d, err := svc.Fact(ctx, scope, res[2].FactID, time.Time{})
	if err != nil || d.Fact.Predicate != "dropped" || d.Fact.Attributes["reason"] == nil {
		t.Fatalf("decision %+v %v", d.Fact, err)
	}
	db, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "booking-service", Predicate: "uses_database", AsOf: date("2023-01-01")})
	if !slices.Equal(values(db), []string{"MongoDB"}) {
		t.Fatalf("2023 database: %v", values(db))
	}
}

func TestAddFacts_Idempotent(t *testing.T) {
	svc, _ := MustOpenService(t)
	in := scenario(t, "employment")
	mustAdd(t, svc, in...)
	before, _, _ := svc.Facts(ctx, scope, memory.FactQuery{IncludeHistory: true, Limit: 1000})
	again := mustAdd(t, svc, in...)
	for _, r := range again {
		if r.Action != temporal.Corroborated {
			t.Fatalf("repeat gave %+v", again)
		}
	}
	after, _, _ := svc.Facts(ctx, scope, memory.FactQuery{IncludeHistory: true, Limit: 1000})
	if len(before) != len(after) {
		t.Fatalf("repeat changed the number of facts: %d → %d", len(before), len(after))
	}
}

func TestAddFacts_OnlyTheSameChain(t *testing.T) {
	svc, _ := MustOpenService(t)
	mustAdd(t, svc, memory.FactInput{Subject: "api", Predicate: "port", Value: "8080"})
	mustAdd(t, svc, memory.FactInput{Subject: "api-gateway", Predicate: "port", Value: "8081"})
	mustAdd(t, svc, memory.FactInput{Subject: "api", Predicate: "status", Value: "8081"})
	cur, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "api", Predicate: "port"})
	if !slices.Equal(values(cur), []string{"8080"}) {
		t.Fatalf("a look-alike statement invalidated a fact: %v", values(cur))
	}
}

func TestAddFacts_EndAndRetract(t *testing.T) {
	svc, _ := MustOpenService(t)
	from, end := date("2020-01-01"), date("2024-01-01")
	r := mustAdd(t, svc, memory.FactInput{Subject: "Bob", SubjectType: "person", Predicate: "works_at", Object: "Acme", ValidFrom: &from})
	e := mustAdd(t, svc, memory.FactInput{Subject: "Bob", Predicate: "works_at", Object: "Acme", ValidTo: &end})
	if e[0].Action != temporal.Ended || e[0].FactID != r[0].FactID {
		t.Fatalf("end: %+v", e)
	}
	cur, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "Bob"})
	if len(cur) != 0 {
		t.Fatalf("ended fact still current: %v", values(cur))
	}
	// An end with nothing to end waits for its start: answered "ended"
	// with a warning, and no fact appears until the start arrives.
	n := mustAdd(t, svc, memory.FactInput{Subject: "Carol", Predicate: "lives_in", Object: "Oslo", ValidTo: &end})
	if n[0].Action != temporal.Ended || n[0].Warning == "" || n[0].FactID != "" {
		t.Fatalf("orphan end: %+v", n)
	}
	if hist, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "Carol", IncludeHistory: true}); len(hist) != 0 {
		t.Fatalf("a waiting end became a fact: %+v", hist)
	}
	mustAdd(t, svc, memory.FactInput{Subject: "Carol", Predicate: "lives_in", Object: "Oslo", ValidFrom: &from})
	if hist, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "Carol", IncludeHistory: true}); len(hist) != 1 ||
		!hist[0].ValidFrom.Equal(from) || hist[0].ValidTo == nil || !hist[0].ValidTo.Equal(end) {
		t.Fatalf("the start did not meet its waiting end: %+v", hist)
	}
	known := svc.Now()
	if _, err := svc.Retract(ctx, scope, r[0].FactID); err != nil {
		t.Fatal(err)
	}
	hist, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "Bob", IncludeHistory: true})
	if len(hist) != 0 {
		t.Fatalf("retracted fact in history as known now: %v", values(hist))
	}
	then, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "Bob", IncludeHistory: true, KnownAt: known})
	if len(then) != 1 {
		t.Fatalf("retracted fact missing as known before: %v", values(then))
	}
	if _, err := svc.Retract(ctx, scope, r[0].FactID); entity.ErrorCode(err) != entity.ENOTFOUND {
		t.Fatalf("second retraction: %v", err)
	}
}

func TestAddFacts_CardinalityHint(t *testing.T) {
	svc, _ := MustOpenService(t)
	mustAdd(t, svc, memory.FactInput{Subject: "me", Predicate: "favourite_colour", Value: "blue", Cardinality: "one"})
	r := mustAdd(t, svc, memory.FactInput{Subject: "me", Predicate: "favourite_colour", Value: "green", Cardinality: "many"})
	if r[0].Action != temporal.SupersededPrevious || r[0].Warning == "" {
		t.Fatalf("remembered hint not used or conflict not reported: %+v", r)
	}
	r = mustAdd(t, svc, memory.FactInput{Subject: "me", Predicate: "works_at", Object: "Acme", Cardinality: "many"})
	if r[0].Warning == "" {
		t.Fatalf("a hint against the ontology must warn: %+v", r)
	}
	r = mustAdd(t, svc, memory.FactInput{Subject: "me", Predicate: "plays", Value: "piano"}, memory.FactInput{Subject: "me", Predicate: "plays", Value: "guitar"})
	if r[1].Action != temporal.Created {
		t.Fatalf("unknown predicates are many: %+v", r)
	}
}

// A handover on a predicate the ontology does not define leaves two values
// current (the default is many): the write's warning names the value still
// current and the fix, each time a write makes values coexist.
func TestAddFacts_UnknownPredicateHandoverWarns(t *testing.T) {
	svc, _ := MustOpenService(t)
	may, june := date("2024-05-01"), date("2024-06-01")
	r := mustAdd(t, svc, memory.FactInput{Subject: "payments", Predicate: "weekend_cover", Object: "Alice", ValidFrom: &may})
	if !strings.Contains(r[0].Warning, `"weekend_cover" is not in the ontology`) || strings.Contains(r[0].Warning, "still has") {
		t.Fatalf("first value: %q", r[0].Warning)
	}
	r = mustAdd(t, svc, memory.FactInput{Subject: "payments", Predicate: "weekend_cover", Object: "Bob", ValidFrom: &june})
	w := r[0].Warning
	for _, want := range []string{`"payments" still has "Alice" (since 2024-05-01) current beside this one`, `cardinality "one"`, "cardinality: one"} {
		if !strings.Contains(w, want) {
			t.Errorf("handover warning %q lacks %q", w, want)
		}
	}
	if strings.Count(w, "not in the ontology") != 1 {
		t.Errorf("one warning about the predicate, not two: %q", w)
	}
	// Both in one batch: each names the other.
	r = mustAdd(t, svc, memory.FactInput{Subject: "orders", Predicate: "weekend_cover", Object: "Carol"}, memory.FactInput{Subject: "orders", Predicate: "weekend_cover", Object: "Dan"})
	if !strings.Contains(r[0].Warning, `"Dan"`) || !strings.Contains(r[1].Warning, `"Carol"`) {
		t.Errorf("one batch: %q / %q", r[0].Warning, r[1].Warning)
	}
	// A hint ends the old value instead, with no warning.
	r = mustAdd(t, svc, memory.FactInput{Subject: "billing", Predicate: "night_cover", Object: "Eve", ValidFrom: &may, Cardinality: "one"},
		memory.FactInput{Subject: "billing", Predicate: "night_cover", Object: "Finn", ValidFrom: &june})
	if r[1].Action != temporal.SupersededPrevious || r[1].Warning != "" {
		t.Errorf("hinted one: %+v", r[1])
	}
}

func TestAddFacts_Tombstone(t *testing.T) {
	svc, c := MustOpenService(t)
	in := memory.FactInput{Subject: "prod db", Predicate: "port", Value: "3307", SourceKind: entity.AgentInferred}
	err := svc.Store.Update(ctx, scope, func(tx graph.Tx) error {
		return tx.PutTombstone(entity.Tombstone{Scope: scope, Fingerprint: entity.Fingerprint(scope, "prod db", "port", "3307"), At: c.t})
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := mustAdd(t, svc, in); r[0].Action != temporal.BlockedByTombstone {
		t.Fatalf("inferred fact came back: %+v", r)
	}
	in.SourceKind, in.Subject = entity.Import, "PROD  DB"
	if r := mustAdd(t, svc, in); r[0].Action != temporal.BlockedByTombstone {
		t.Fatalf("imported fact came back: %+v", r)
	}
	in.SourceKind = entity.UserExplicit
	if r := mustAdd(t, svc, in); r[0].Action != temporal.Created {
		t.Fatalf("an explicit user statement must bring it back: %+v", r)
	}
}

func TestValidateFacts(t *testing.T) {
	svc, _ := MustOpenService(t)
	from, to := date("2024-01-01"), date("2023-01-01")
	conf := 2.0
	_, err := svc.AddFacts(ctx, scope, []memory.FactInput{
		{Subject: "a", Predicate: "p", Value: "v"},
		{Subject: "", Predicate: "", Object: "x", Value: "y", ValidFrom: &from, ValidTo: &to, SourceKind: "rumour", Cardinality: "some", Confidence: &conf, Importance: 11},
	})
	var e *entity.Error
	if !errors.As(err, &e) || e.Code != entity.EINVALID {
		t.Fatalf("err %v", err)
	}
	for _, f := range []string{"facts[1].subject", "facts[1].predicate", "facts[1].object", "facts[1].valid_to", "facts[1].source_kind", "facts[1].cardinality", "facts[1].confidence", "facts[1].importance"} {
		if e.Fields[f] == "" {
			t.Errorf("no message for %s in %v", f, e.Fields)
		}
	}
	if _, ok := e.Fields["facts[0].subject"]; ok {
		t.Errorf("valid fact reported: %v", e.Fields)
	}
	_, err = svc.AddFacts(ctx, scope, []memory.FactInput{{Subject: "a", Predicate: "p", Value: "v", EpisodeID: "nope"}})
	if entity.ErrorCode(err) != entity.ENOTFOUND {
		t.Fatalf("unknown episode: %v", err)
	}
}

func TestScopeIsolation(t *testing.T) {
	svc, _ := MustOpenService(t)
	r := mustAdd(t, svc, scenario(t, "port-change")...)
	if _, err := svc.Fact(ctx, "other", r[0].FactID, time.Time{}); entity.ErrorCode(err) != entity.ENOTFOUND {
		t.Fatalf("fact of another scope: %v", err)
	}
	fs, _, _ := svc.Facts(ctx, "other", memory.FactQuery{IncludeHistory: true})
	if len(fs) != 0 {
		t.Fatalf("facts of another scope listed: %v", values(fs))
	}
	if m, _ := svc.FindEntities(ctx, "other", "production database", 10); len(m) != 0 {
		t.Fatalf("entity of another scope found: %+v", m)
	}
}

func TestExportImport_RoundTrip(t *testing.T) {
	svc, _ := MustOpenService(t)
	for _, s := range fixtures.Scenarios {
		mustAdd(t, svc, scenario(t, s)...)
	}
	if _, _, err := svc.AddEpisode(ctx, scope, memory.EpisodeInput{Content: "we moved the db to 3307", Speaker: "ana"}); err != nil {
		t.Fatal(err)
	}
	var a bytes.Buffer
	if err := svc.Export(ctx, scope, &a); err != nil {
		t.Fatal(err)
	}
	res, err := svc.Import(ctx, "copy", bytes.NewReader(a.Bytes()))
	if err != nil || res.Facts == 0 || res.Entities == 0 || res.Episodes != 1 {
		t.Fatalf("import %+v %v", res, err)
	}
	var b bytes.Buffer
	if err := svc.Export(ctx, "copy", &b); err != nil {
		t.Fatal(err)
	}
	if got, want := stripScopeAndSeq(b.String()), stripScopeAndSeq(a.String()); got != want {
		t.Fatalf("round trip differs:\n%s\n---\n%s", want, got)
	}
	if _, err := svc.Import(ctx, "copy", bytes.NewReader([]byte("{\"fact\": {}, \"entity\": {}}\n"))); entity.ErrorCode(err) != entity.EINVALID {
		t.Fatalf("bad line: %v", err)
	}
}

func stripScopeAndSeq(s string) string {
	s = regexpScope.ReplaceAllString(s, `"scope":"X"`)
	return regexpSeq.ReplaceAllString(s, ``)
}

func TestEpisodes_WithoutModel(t *testing.T) {
	svc, _ := MustOpenService(t)
	ep, created, err := svc.AddEpisode(ctx, scope, memory.EpisodeInput{Content: "hello", IdempotencyKey: "k1"})
	if err != nil || !created || ep.Status != entity.EpisodeDone {
		t.Fatalf("%+v %v %v", ep, created, err)
	}
	again, created, err := svc.AddEpisode(ctx, scope, memory.EpisodeInput{Content: "hello again", IdempotencyKey: "k1"})
	if err != nil || created || again.ID != ep.ID {
		t.Fatalf("idempotency key: %+v %v %v", again, created, err)
	}
	if _, _, err := svc.AddEpisode(ctx, scope, memory.EpisodeInput{Content: " ", Role: "boss"}); entity.ErrorCode(err) != entity.EINVALID {
		t.Fatalf("bad episode: %v", err)
	}
}

// fakeExtractor answers from a function and counts calls.
type fakeExtractor struct {
	calls atomic.Int64
	fn    func(ep entity.Episode) ([]memory.FactInput, error)
}

func (f *fakeExtractor) Extract(_ context.Context, ep entity.Episode, _ []entity.Entity) ([]memory.FactInput, entity.Extraction, error) {
	f.calls.Add(1)
	facts, err := f.fn(ep)
	return facts, entity.Extraction{Proposed: len(facts), Calls: 1, PromptTokens: 100, CompletionTokens: 10}, err
}

func TestEpisodes_Queue(t *testing.T) {
	svc, _ := MustOpenService(t)
	svc.Now = func() time.Time { return time.Now().UTC() }
	fails := atomic.Int64{}
	fx := &fakeExtractor{fn: func(ep entity.Episode) ([]memory.FactInput, error) {
		if ep.Content == "flaky" && fails.Add(1) == 1 {
			return nil, entity.Errorf(entity.EUNAVAILABLE, "model overloaded")
		}
		return []memory.FactInput{{Subject: "prod db", Predicate: "port", Value: ep.Content}}, nil
	}}
	svc.Extract = fx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go svc.RunWorkers(ctx, 2, nil)
	ref1, ref2 := date("2024-01-01"), date("2024-02-01")
	// Sent in the wrong order: the queue processes by reference time.
	e2, _, _ := svc.AddEpisode(ctx, scope, memory.EpisodeInput{Content: "3307", ReferenceTime: &ref2})
	e1, _, _ := svc.AddEpisode(ctx, scope, memory.EpisodeInput{Content: "5432", ReferenceTime: &ref1})
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	for _, id := range []string{e1.ID, e2.ID} {
		ep, err := svc.WaitEpisode(wctx, scope, id)
		if err != nil || ep.Status != entity.EpisodeDone || len(ep.FactIDs) != 1 {
			t.Fatalf("episode %+v %v", ep, err)
		}
	}
	cur, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "prod db", Predicate: "port"})
	if !slices.Equal(values(cur), []string{"3307"}) || !slices.Equal(cur[0].EpisodeIDs, []string{e2.ID}) {
		t.Fatalf("current port %v", cur)
	}
	if n := fx.calls.Load(); n != 2 {
		t.Fatalf("%d model calls for 2 episodes", n)
	}
	fl, _, _ := svc.AddEpisode(ctx, scope, memory.EpisodeInput{Content: "flaky"})
	ep, err := svc.WaitEpisode(wctx, scope, fl.ID)
	if err != nil || ep.Status != entity.EpisodeDone || ep.Attempts != 2 {
		t.Fatalf("retried episode %+v %v", ep, err)
	}
	// Tokens are summed over the attempts, the failed one included.
	if ep.PromptTokens != 200 || ep.CompletionTokens != 20 {
		t.Fatalf("retried episode tokens %d/%d, want 200/20", ep.PromptTokens, ep.CompletionTokens)
	}
}

// The episode records what extraction did: proposed, kept, and each
// dropped statement with its reason, the extractor's and the store's; an
// episode whose every statement is dropped says why.
func TestEpisodes_ExtractionReport(t *testing.T) {
	svc, _ := MustOpenService(t)
	svc.Now = func() time.Time { return time.Now().UTC() }
	svc.Extract = &reportExtractor{}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go svc.RunWorkers(ctx, 1, nil)
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	add := func(content, role string) entity.Episode {
		t.Helper()
		e, _, err := svc.AddEpisode(ctx, scope, memory.EpisodeInput{Content: content, Role: role})
		if err != nil {
			t.Fatal(err)
		}
		ep, err := svc.WaitEpisode(wctx, scope, e.ID)
		if err != nil || ep.Status != entity.EpisodeDone || ep.Extraction == nil {
			t.Fatalf("episode %+v %v", ep, err)
		}
		return ep
	}
	ep := add("prod db moved to 3307", entity.RoleUser)
	x := ep.Extraction
	reasons := []string{}
	for _, d := range x.Dropped {
		reasons = append(reasons, d.Reason)
	}
	if x.Proposed != 4 || x.Kept != 1 || len(ep.FactIDs) != 1 || x.Calls != 1 || x.PromptTokens != 100 ||
		x.Dropped[1].Detail != "object: give either object or value, not both" ||
		!slices.Equal(reasons, []string{entity.DropNotGrounded, entity.DropMalformed, entity.DropPermission}) {
		t.Fatalf("report %+v, reasons %v", x, reasons)
	}
	if got := x.Summary(); got != "4 facts proposed, 1 kept; dropped: 1 malformed, 1 not grounded in the episode, 1 a permission" {
		t.Errorf("summary %q", got)
	}

	// Forgotten, the fact cannot come back: the next episode keeps nothing
	// and says why.
	if _, err := svc.Forget(ctx, scope, memory.ForgetRequest{FactIDs: ep.FactIDs}); err != nil {
		t.Fatal(err)
	}
	ep = add("prod db moved to 3307, again", entity.RoleAssistant)
	if x := ep.Extraction; x.Kept != 0 || len(ep.FactIDs) != 0 || !strings.Contains(x.Summary(), "none kept") ||
		!strings.Contains(x.Summary(), "1 forgotten by the user") {
		t.Errorf("report %+v: %s", x, x.Summary())
	}

	// Without a model, the episode says so.
	svc.Extract = nil
	e, _, _ := svc.AddEpisode(ctx, scope, memory.EpisodeInput{Content: "no model here"})
	if !strings.Contains(e.Extraction.Summary(), "no extraction model") {
		t.Errorf("without a model: %+v", e.Extraction)
	}
}

// reportExtractor answers every episode with a kept statement, one the
// store refuses as malformed and a permission, after dropping one itself.
type reportExtractor struct{}

func (reportExtractor) Extract(_ context.Context, ep entity.Episode, _ []entity.Entity) ([]memory.FactInput, entity.Extraction, error) {
	rep := entity.Extraction{Proposed: 4, Calls: 1, PromptTokens: 100, CompletionTokens: 10, Mode: "json_object"}
	rep.Drop(entity.DroppedFact{Subject: "100s", Predicate: "is_staffed_by_me", Reason: entity.DropNotGrounded})
	return []memory.FactInput{
		{Subject: "prod db", Predicate: "port", Value: "3307", Text: "prod db listens on 3307"},
		{Subject: "prod db", Predicate: "port", Object: "x", Value: "3307"},
		{Subject: "agent", Predicate: "allowed_to", Value: "deploy without asking", Text: "The agent may deploy without asking."},
	}, rep, nil
}

// Concurrent writers on one chain (several replicas on one Neo4j, or many
// clients) must not write on stale reads: the chain stays one value at a
// time, and one entity is created for one name.
func TestAddFacts_ConcurrentWriters(t *testing.T) {
	svc, _ := MustOpenService(t)
	svc.Now = func() time.Time { return time.Now().UTC() }
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 4 {
		wg.Go(func() {
			for i := range 8 {
				from := date("2020-01-01").AddDate(0, 0, w*8+i)
				if _, err := svc.AddFacts(ctx, scope, []memory.FactInput{{Subject: "shared db", SubjectType: "service",
					Predicate: "port", Value: fmt.Sprint(1000 + w*8 + i), ValidFrom: &from}}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	all, _, err := svc.Facts(ctx, scope, memory.FactQuery{Subject: "shared db", IncludeHistory: true, Limit: 1000})
	if err != nil || len(all) != 32 {
		t.Fatalf("%d facts, %v", len(all), err)
	}
	cur, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "shared db"})
	if len(cur) != 1 || cur[0].Value != "1031" {
		t.Fatalf("current: %v", values(cur))
	}
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			a, b := all[i], all[j]
			if a.Overlaps(b.ValidFrom, b.ValidTo) && b.Overlaps(a.ValidFrom, a.ValidTo) {
				t.Fatalf("overlap: %s and %s", a.Value, b.Value)
			}
		}
	}
	if m, _ := svc.FindEntities(ctx, scope, "shared db", 10); len(m) != 1 {
		t.Fatalf("%d entities named shared db", len(m))
	}
}
