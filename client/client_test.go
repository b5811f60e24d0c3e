package client_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/client"
	"github.com/graphmem/graphmem/entity"
)

func day(s string) *time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return &t
}

// mustCode fails the test unless err carries code.
func mustCode(tb testing.TB, err error, code entity.Code) *entity.Error {
	tb.Helper()
	var e *entity.Error
	if !errors.As(err, &e) || e.Code != code {
		tb.Fatalf("got %v, want %s", err, code)
	}
	return e
}

// TestClient_FactsOverTime: facts that change, read now, as of a date, as
// a history, page by page, by id, and around their entity.
func TestClient_FactsOverTime(t *testing.T) {
	ctx := context.Background()
	c := client.New(serverURL, client.WithAPIKey(aliceKey))
	res, err := c.AddFacts(ctx,
		wire.FactInput{Subject: "orders database", Predicate: "port", Value: "5432", ValidFrom: day("2023-01-10")},
		wire.FactInput{Subject: "orders database", Predicate: "runs_on", Object: "db-host-1", ValidFrom: day("2023-01-10")},
	)
	if err != nil || len(res) != 2 || res[0].Action != "created" {
		t.Fatalf("%+v %v", res, err)
	}
	moved, err := c.AddFacts(ctx, wire.FactInput{Subject: "orders database", Predicate: "port", Value: "3307", ValidFrom: day("2024-03-01")})
	if err != nil || moved[0].Action != "superseded_previous" || len(moved[0].Superseded) != 1 || moved[0].Superseded[0] != res[0].FactID {
		t.Fatalf("%+v %v", moved, err)
	}

	q := client.FactQuery{Subject: "orders database", Predicate: "port"}
	now, err := c.FactsPage(ctx, q)
	if err != nil || len(now.Items) != 1 || now.Items[0].Value != "3307" || now.NextCursor != nil {
		t.Fatalf("now: %+v %v", now, err)
	}
	q.AsOf = *day("2023-06-01")
	then, err := c.FactsPage(ctx, q)
	if err != nil || len(then.Items) != 1 || then.Items[0].Value != "5432" {
		t.Fatalf("as of 2023-06-01: %+v %v", then, err)
	}
	var values []string
	for f, err := range c.Facts(ctx, client.FactQuery{Subject: "orders database", IncludeHistory: true, Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		values = append(values, f.Predicate+"="+f.Value+f.Object)
	}
	if len(values) != 3 {
		t.Errorf("history one fact a page: %v", values)
	}

	d, err := c.Fact(ctx, moved[0].FactID, time.Time{})
	if err != nil || d.Fact.Value != "3307" || len(d.Chain) != 2 {
		t.Errorf("fact: %+v %v", d, err)
	}
	tl, err := c.Timeline(ctx, "orders database", client.TimelineQuery{Predicate: "port"})
	if err != nil || tl.Entity.Name != "orders database" || len(tl.Items) != 2 || tl.Items[0].Value != "5432" {
		t.Errorf("timeline: %+v %v", tl, err)
	}
	page, err := c.Timeline(ctx, tl.Entity.ID, client.TimelineQuery{Limit: 1})
	if err != nil || len(page.Items) != 1 || page.NextCursor == nil {
		t.Errorf("timeline page: %+v %v", page, err)
	}
	ms, err := c.FindEntities(ctx, "orders database", 5)
	if err != nil || len(ms) == 0 || ms[0].Entity.ID != tl.Entity.ID || ms[0].Match != "exact" {
		t.Errorf("find: %+v %v", ms, err)
	}
	ed, err := c.Entity(ctx, tl.Entity.ID)
	if err != nil || len(ed.Facts) != 2 {
		t.Errorf("entity: %+v %v", ed, err)
	}
	g, err := c.EntityGraph(ctx, "orders database", client.GraphQuery{Depth: 1})
	if err != nil || len(g.Nodes) != 2 || g.Nodes[0].ID != tl.Entity.ID {
		t.Errorf("graph: %+v %v", g, err)
	}

	retracted, err := c.Retract(ctx, res[1].FactID)
	if err != nil || retracted.Status != entity.StatusRetracted {
		t.Errorf("retract: %+v %v", retracted, err)
	}
	_, err = c.Fact(ctx, res[1].FactID, time.Time{})
	mustCode(t, err, entity.ENOTFOUND)
	if d, err := c.Fact(ctx, res[1].FactID, retracted.ExpiredAt.Add(-time.Nanosecond)); err != nil || d.Fact.Status == entity.StatusRetracted {
		t.Errorf("as known before the retraction: %+v %v", d.Fact, err)
	}
	gone, err := c.ForgetFact(ctx, moved[0].FactID)
	if err != nil || gone.Facts != 1 || gone.Tombstones != 1 {
		t.Errorf("forget: %+v %v", gone, err)
	}
	_, err = c.Fact(ctx, moved[0].FactID, time.Time{})
	mustCode(t, err, entity.ENOTFOUND)
}

// TestClient_Recall: search and context, now and as of a date.
func TestClient_Recall(t *testing.T) {
	ctx := context.Background()
	c := client.New(serverURL, client.WithAPIKey(aliceKey))
	if _, err := c.AddFacts(ctx,
		wire.FactInput{Subject: "Dana", Predicate: "lives_in", Object: "Lisbon", ValidFrom: day("2020-02-01")},
		wire.FactInput{Subject: "Dana", Predicate: "lives_in", Object: "Porto", ValidFrom: day("2025-05-01")},
	); err != nil {
		t.Fatal(err)
	}
	s, err := c.Search(ctx, client.SearchRequest{Query: "Dana lives in", Types: []string{"fact"}, Limit: 5})
	if err != nil || len(s.Hits) == 0 || s.Hits[0].Fact == nil || s.Hits[0].Fact.Object != "Porto" || s.Vectors != "off" {
		t.Fatalf("search: %+v %v", s, err)
	}
	now, err := c.Context(ctx, client.ContextRequest{Query: "Where does Dana live?", MaxTokens: 200})
	if err != nil || !strings.Contains(now.Context, "Porto") || now.Tokens == 0 || now.Tokens > 200 {
		t.Fatalf("context now: %+v %v", now, err)
	}
	then, err := c.Context(ctx, client.ContextRequest{Query: "Where does Dana live?", AsOf: *day("2022-01-01"), Mode: "current"})
	if err != nil || !strings.Contains(then.Context, "Lisbon") || strings.Contains(then.Context, "Porto") || !then.AsOf.Equal(*day("2022-01-01")) {
		t.Fatalf("context as of 2022: %+v %v", then, err)
	}
	_, err = c.Context(ctx, client.ContextRequest{Query: "Where?", MaxTokens: 10})
	if e := mustCode(t, err, entity.EINVALID); e.Fields["max_tokens"] == "" {
		t.Errorf("max_tokens not named: %v", e)
	}
}

// TestClient_Episodes: remember (once per idempotency key), list page by
// page, read one, and the warning of a server without a model.
func TestClient_Episodes(t *testing.T) {
	ctx := context.Background()
	c := client.New(serverURL, client.WithAPIKey(aliceKey), client.WithScope("shared"))
	var ids []string
	for i, content := range []string{"We moved the cache to port 6380.", "Dana said she moved to Porto.", "Lunch was good."} {
		acc, created, err := c.Remember(ctx, wire.EpisodeInput{Content: content, Speaker: "Sam", IdempotencyKey: content})
		if err != nil || !created || acc.EpisodeID == "" || acc.Warning == "" {
			t.Fatalf("episode %d: %+v %v %v", i, acc, created, err)
		}
		ids = append(ids, acc.EpisodeID)
	}
	again, created, err := c.Remember(ctx, wire.EpisodeInput{Content: "Lunch was good.", IdempotencyKey: "Lunch was good."})
	if err != nil || created || again.EpisodeID != ids[2] {
		t.Errorf("repeat: %+v %v %v", again, created, err)
	}
	var listed []string
	for ep, err := range c.Episodes(ctx, client.EpisodeQuery{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, ep.ID)
	}
	if len(listed) != 3 {
		t.Errorf("listed %v, stored %v", listed, ids)
	}
	ep, err := c.Episode(ctx, ids[0])
	if err != nil || ep.Content != "We moved the cache to port 6380." || ep.Speaker != "Sam" {
		t.Errorf("episode: %+v %v", ep, err)
	}
	_, err = c.RetryEpisode(ctx, ids[0])
	mustCode(t, err, entity.ECONFLICT)
	waited, err := c.RememberAndWait(ctx, wire.EpisodeInput{Content: "Plain text, no model."})
	if err != nil || waited.EpisodeID == "" {
		t.Errorf("wait: %+v %v", waited, err)
	}
}

// TestClient_ForgetExportImport: a dry run, a forget and its audit record;
// an export loads into another scope whole.
func TestClient_ForgetExportImport(t *testing.T) {
	ctx := context.Background()
	bob := client.New(serverURL, client.WithAPIKey(bobKey))
	if _, err := bob.AddFacts(ctx,
		wire.FactInput{Subject: "Priya", Predicate: "works_at", Object: "Globex"},
		wire.FactInput{Subject: "Priya", Predicate: "lives_in", Object: "Leeds"},
	); err != nil {
		t.Fatal(err)
	}
	dry, err := bob.Forget(ctx, client.ForgetRequest{Entity: "Priya", DryRun: true})
	if err != nil || !dry.DryRun || dry.Facts != 2 || len(dry.Items) == 0 {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	var export bytes.Buffer
	if err := bob.Export(ctx, &export); err != nil || export.Len() == 0 {
		t.Fatalf("export: %d bytes, %v", export.Len(), err)
	}
	res, err := bob.Forget(ctx, client.ForgetRequest{Query: "Priya lives in Leeds", Limit: 1, Reason: "asked"})
	if err != nil || res.Facts != 1 || res.Mode != wire.ModeForget {
		t.Fatalf("forget: %+v %v", res, err)
	}
	audit, err := bob.Audit(ctx, 10)
	if err != nil || len(audit) != 1 || audit[0].Reason != "asked" {
		t.Errorf("audit: %+v %v", audit, err)
	}
	alice := client.New(serverURL, client.WithAPIKey(aliceKey), client.WithScope("copy"))
	imp, err := alice.Import(ctx, &export)
	if err != nil || imp.Facts != 2 || imp.Entities != 3 {
		t.Fatalf("import: %+v %v", imp, err)
	}
	_, err = alice.Import(ctx, strings.NewReader(`{"entity":{"id":"x"}}`+"\n"))
	if e := mustCode(t, err, entity.EINVALID); len(e.Fields) == 0 {
		t.Errorf("import error names no line: %v", e)
	}
}

// TestClient_Errors: every failure reads back as the code the server
// meant, with the fields it named; a foreign scope is refused.
func TestClient_Errors(t *testing.T) {
	ctx := context.Background()
	alice := client.New(serverURL, client.WithAPIKey(aliceKey))
	_, err := alice.AddFacts(ctx, wire.FactInput{Subject: "x", Predicate: "port", ValidFrom: day("2024-01-01"), ValidTo: day("2023-01-01")})
	e := mustCode(t, err, entity.EINVALID)
	if e.Fields["facts[0].object"] == "" || e.Fields["facts[0].valid_to"] == "" || e.Op != "POST /v1/facts (400)" {
		t.Errorf("fields: %+v", e)
	}
	_, err = client.New(serverURL, client.WithAPIKey(aliceKey), client.WithScope("bob")).Session(ctx)
	mustCode(t, err, entity.EPERMISSION)
	_, err = client.New(serverURL).Session(ctx)
	mustCode(t, err, entity.EUNAUTHENTICATED)
	_, err = client.New(serverURL, client.WithAPIKey("wrong-key-0123456789")).Session(ctx)
	mustCode(t, err, entity.EUNAUTHENTICATED)
	_, err = alice.Entity(ctx, "nobody at all")
	mustCode(t, err, entity.ENOTFOUND)
	mustCode(t, alice.Send(ctx, http.MethodPut, "/v1/facts", "", nil), entity.EMETHOD)
	mustCode(t, alice.Send(ctx, http.MethodPost, "/v1/facts", "text/plain", strings.NewReader("facts")), entity.EMEDIATYPE)

	dead := client.New("http://127.0.0.1:1", client.WithTimeout(5*time.Second))
	mustCode(t, dead.Health(ctx), entity.EUNAVAILABLE)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := alice.Health(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
}

// TestClient_Operations: health, readiness, the session, the ontology and
// the overview.
func TestClient_Operations(t *testing.T) {
	ctx := context.Background()
	c := client.New(serverURL, client.WithAPIKey(aliceKey), client.WithScope("shared"))
	if err := c.Health(ctx); err != nil {
		t.Error(err)
	}
	if h, err := c.Ready(ctx); err != nil || h.Status != "ready" {
		t.Errorf("ready: %+v %v", h, err)
	}
	s, err := c.Session(ctx)
	if err != nil || s.Scope != "shared" || len(s.Scopes) != 3 || s.DevelopmentMode {
		t.Errorf("session: %+v %v", s, err)
	}
	o, err := c.Ontology(ctx)
	if err != nil || len(o.Predicates) == 0 {
		t.Errorf("ontology: %+v %v", o, err)
	}
	if _, err := c.Overview(ctx, 5); err != nil {
		t.Errorf("overview: %v", err)
	}
}

// TestClient_ImportsNoServer: a program that only calls graphmem does not
// link the server's machinery (Gin, the search and vector indexes, the
// stores' drivers, metrics).
func TestClient_ImportsNoServer(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, heavy := range []string{"gin-gonic", "blevesearch", "go.etcd.io/bbolt", "prometheus", "neo4j", "graphmem/graphmem/api\n", "graphmem/graphmem/search", "graphmem/graphmem/recall", "graphmem/graphmem/vector"} {
			if strings.Contains(dep+"\n", heavy) {
				t.Errorf("the client imports %s", dep)
			}
		}
	}
}

// TestDefaultURL: New("") talks to $GRAPHMEM_URL, or to the address the
// other clients and the CLI default to.
func TestDefaultURL(t *testing.T) {
	t.Setenv("GRAPHMEM_URL", "")
	if got := client.New("").URL(); got != "http://127.0.0.1:8080" {
		t.Errorf("without GRAPHMEM_URL: %q", got)
	}
	t.Setenv("GRAPHMEM_URL", "http://memory.internal:9000/")
	if got := client.New("").URL(); got != "http://memory.internal:9000" {
		t.Errorf("with GRAPHMEM_URL: %q", got)
	}
	if got := client.New("http://other:1").URL(); got != "http://other:1" {
		t.Errorf("an address given: %q", got)
	}
}
