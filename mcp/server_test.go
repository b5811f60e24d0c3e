package mcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph/bolt"
	"github.com/graphmem/graphmem/mcp"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/recall"
	"github.com/graphmem/graphmem/search"
)

// env is a memory service and a recall engine over one store and index.
type env struct {
	svc    *memory.Service
	engine *recall.Engine
}

func newEnv(tb testing.TB) *env {
	tb.Helper()
	dir := tb.TempDir()
	store, err := bolt.Open(filepath.Join(dir, "graph.db"))
	if err != nil {
		tb.Fatal(err)
	}
	idx, err := search.Open(filepath.Join(dir, "index"))
	if err != nil {
		tb.Fatal(err)
	}
	e := &env{svc: memory.New(store, nil), engine: &recall.Engine{Store: store, Index: idx}}
	e.svc.Changed = idx.Notify
	tb.Cleanup(func() {
		e.engine.Close()
		idx.Close()
		store.Close()
	})
	return e
}

// connect starts a server on backend b and returns a client session
// connected to it through in-memory transports.
func connect(tb testing.TB, b mcp.Backend) *sdk.ClientSession {
	tb.Helper()
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := mcp.NewServer(b, nil).Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// call calls a tool and returns its text; a tool error fails the test.
func call(tb testing.TB, cs *sdk.ClientSession, tool string, args any) (string, map[string]any) {
	tb.Helper()
	text, structured, isErr := callRaw(tb, cs, tool, args)
	if isErr {
		tb.Fatalf("%s: tool error: %s", tool, text)
	}
	return text, structured
}

// callRaw calls a tool and returns its text, its structured content and
// whether it is a tool error; a protocol error fails the test.
func callRaw(tb testing.TB, cs *sdk.ClientSession, tool string, args any) (string, map[string]any, bool) {
	tb.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		tb.Fatalf("%s: protocol error: %v", tool, err)
	}
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	var structured map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &structured)
	}
	return strings.Join(parts, "\n"), structured, res.IsError
}

// lineWith returns the first line of text containing every part.
func lineWith(text string, parts ...string) string {
	for _, l := range strings.Split(text, "\n") {
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

// portSwitch is the scenario of the tests: the payments database listened
// on 5432, then moved to 3307, a decision taken for a stated reason.
var portSwitch = []map[string]any{
	{"subject": "payments-db", "subject_type": "service", "predicate": "port", "value": "5432",
		"valid_from": "2024-01-10", "text": "payments-db listens on port 5432", "source_kind": "user_explicit"},
	{"subject": "payments-db", "subject_type": "service", "predicate": "port", "value": "3307",
		"valid_from": "2024-03-01", "text": "payments-db listens on port 3307", "source_kind": "user_explicit"},
	{"subject": "payments-db", "subject_type": "service", "predicate": "decided", "value": "move payments-db from port 5432 to 3307",
		"valid_from": "2024-03-01", "text": "the team decided to move payments-db to port 3307", "source_kind": "user_explicit",
		"attributes": map[string]any{"reason": "the analytics replica already binds 5432"}},
}

// mustFacts is portSwitch as the memory service takes it.
func mustFacts(tb testing.TB) []memory.FactInput {
	tb.Helper()
	b, err := json.Marshal(map[string]any{"facts": portSwitch})
	if err != nil {
		tb.Fatal(err)
	}
	var args mcp.AddFactsArgs
	if err := json.Unmarshal(b, &args); err != nil {
		tb.Fatal(err)
	}
	out := make([]memory.FactInput, len(args.Facts))
	for i, f := range args.Facts {
		out[i] = memory.FactInput{Subject: f.Subject, SubjectType: f.SubjectType, Predicate: f.Predicate, Value: f.Value,
			Text: f.Text, SourceKind: entity.SourceKind(f.SourceKind), Attributes: f.Attributes}
	}
	return out
}

const reason = "the analytics replica already binds 5432"

func TestTools_List(t *testing.T) {
	cs := connect(t, mcp.NewLocal(newEnv(t).svc, nil, "default"))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"remember": true, "add_facts": true, "context": true, "recall": true, "search": true, "timeline": true, "forget": true}
	for _, tool := range res.Tools {
		// recall is the old name of context, kept one release: it says so.
		if deprecated := strings.HasPrefix(tool.Description, "Deprecated"); deprecated != (tool.Name == "recall") {
			t.Errorf("%s: deprecated %v, want %v: %q", tool.Name, deprecated, tool.Name == "recall", tool.Description)
		}
		if !want[tool.Name] {
			t.Errorf("unexpected tool %q", tool.Name)
		}
		delete(want, tool.Name)
		if len(tool.Description) < 200 {
			t.Errorf("%s: description too thin for a model: %q", tool.Name, tool.Description)
		}
		schema, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Type                 string                     `json:"type"`
			Properties           map[string]json.RawMessage `json:"properties"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal(schema, &s); err != nil || s.Type != "object" || len(s.Properties) == 0 {
			t.Errorf("%s: input schema is not a described object: %s", tool.Name, schema)
		}
		if strings.Contains(strings.ToLower(string(schema)), `"scope"`) {
			t.Errorf("%s: the input schema has a scope parameter: %s", tool.Name, schema)
		}
		if s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s: the input schema admits unknown arguments: %s", tool.Name, schema)
		}
	}
	for name := range want {
		t.Errorf("tool %q missing", name)
	}
}

// recall, the old name of context, answers as context does.
func TestTools_RecallIsContext(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, mcp.NewLocal(e.svc, e.engine, "repo:payments"))
	call(t, cs, "add_facts", map[string]any{"facts": portSwitch})
	q := map[string]any{"query": "which port does payments-db listen on?"}
	text, out := call(t, cs, "context", q)
	old, oldOut := call(t, cs, "recall", q)
	if text != old || oldOut["context"] != out["context"] || !strings.Contains(old, "3307") {
		t.Errorf("recall answered\n%s\n%v\ncontext answered\n%s\n%v", old, oldOut, text, out)
	}
}

func TestTools_SupersessionRecallTimeline(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, mcp.NewLocal(e.svc, e.engine, "repo:payments"))

	text, out := call(t, cs, "add_facts", map[string]any{"facts": portSwitch})
	t.Log(text)
	results, _ := out["results"].([]any)
	if len(results) != 3 {
		t.Fatalf("want 3 results, got %v", out)
	}
	first, second := results[0].(map[string]any), results[1].(map[string]any)
	if first["action"] != "created" {
		t.Errorf("a brand-new fact is reported %v, want created (the action must not depend on the batch)", first["action"])
	}
	if second["action"] != "superseded_previous" || !strings.Contains(text, "facts[1] superseded_previous") {
		t.Errorf("the second port did not supersede the first: %v\n%s", second, text)
	}
	if sup, _ := second["superseded"].([]any); len(sup) != 1 || sup[0] != first["fact_id"] {
		t.Errorf("superseded %v, want [%v]", second["superseded"], first["fact_id"])
	}

	// The current value, for a plain question.
	text, out = call(t, cs, "context", map[string]any{"query": "which port does payments-db listen on?"})
	t.Log("\n" + text)
	if l := lineWith(text, `"3307"`, "current"); l == "" || strings.Contains(l, "[was") {
		t.Errorf("recall does not show 3307 as current:\n%s", text)
	}
	if l := lineWith(text, `"5432"`, "current"); l != "" && !strings.Contains(l, "[was") && !strings.Contains(l, "decided") {
		t.Errorf("recall shows 5432 as current: %q", l)
	}
	if ids, _ := out["fact_ids"].([]any); len(ids) == 0 {
		t.Errorf("no fact ids in the structured answer: %v", out)
	}

	// The reason and the former value, for a why question.
	text, _ = call(t, cs, "context", map[string]any{"query": "why did the payments-db port change?"})
	t.Log("\n" + text)
	if !strings.Contains(text, reason) {
		t.Errorf("recall does not give the reason:\n%s", text)
	}
	if lineWith(text, "[was; ", `"5432"`) == "" {
		t.Errorf("recall does not show 5432 as the former value:\n%s", text)
	}
	if l := lineWith(text, `"3307"`, "current"); l == "" || strings.Contains(l, "[was") {
		t.Errorf("recall (history) does not show 3307 as current:\n%s", text)
	}

	// Both values on the timeline, in order, with their statuses.
	text, out = call(t, cs, "timeline", map[string]any{"entity": "Payments DB", "predicate": "port"})
	t.Log("\n" + text)
	facts, _ := out["facts"].([]any)
	if len(facts) != 2 {
		t.Fatalf("timeline: want 2 port facts, got %d: %v", len(facts), out)
	}
	old, cur := facts[0].(map[string]any), facts[1].(map[string]any)
	if old["value"] != "5432" || old["status"] != "superseded" || cur["value"] != "3307" || cur["status"] != "current" {
		t.Errorf("timeline: got %v then %v", old, cur)
	}
	if !strings.HasPrefix(old["valid_to"].(string), "2024-03-01") {
		t.Errorf("the old port should end when the new one starts: %v", old["valid_to"])
	}
	if lineWith(text, "2024-01-10 -> 2024-03-01", "= 5432", "[superseded]") == "" ||
		lineWith(text, "2024-03-01 -> now", "= 3307", "[current]") == "" {
		t.Errorf("timeline text:\n%s", text)
	}

	// The whole entity's timeline carries the decision's reason.
	text, _ = call(t, cs, "timeline", map[string]any{"entity": "payments-db"})
	if lineWith(text, "decided", "reason: "+reason) == "" {
		t.Errorf("timeline does not show the decision's reason:\n%s", text)
	}

	// Search finds the current fact with its status.
	text, out = call(t, cs, "search", map[string]any{"query": "payments-db port", "types": []string{"fact"}})
	if hits, _ := out["hits"].([]any); len(hits) == 0 || lineWith(text, "[fact, current]", "3307") == "" {
		t.Errorf("search:\n%s", text)
	}
}

func TestTools_BadArguments(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, mcp.NewLocal(e.svc, e.engine, "default"))
	for _, tc := range []struct {
		name, tool string
		args       any
		field      string // must be named in the message
	}{
		{"missing predicate", "add_facts", map[string]any{"facts": []any{
			map[string]any{"subject": "x", "predicate": "p", "value": "1"},
			map[string]any{"subject": "x", "value": "1"}}}, "facts[1].predicate"},
		{"bad source kind", "add_facts", map[string]any{"facts": []any{
			map[string]any{"subject": "x", "predicate": "p", "value": "1", "source_kind": "user_explicit"},
			map[string]any{"subject": "x", "predicate": "p", "value": "2", "source_kind": "the user"}}}, "facts[1].source_kind"},
		{"confidence out of range", "add_facts", map[string]any{"facts": []any{
			map[string]any{"subject": "x", "predicate": "p", "value": "1", "confidence": 0.5},
			map[string]any{"subject": "x", "predicate": "p", "value": "1", "confidence": 7}}}, "facts[1].confidence: must be at most 1"},
		{"object and value", "add_facts", map[string]any{"facts": []any{map[string]any{"subject": "x", "predicate": "p", "object": "a", "value": "1"}}}, "facts[0].object"},
		{"bad time", "add_facts", map[string]any{"facts": []any{map[string]any{"subject": "x", "predicate": "p", "value": "1", "valid_from": "last spring"}}}, "facts[0].valid_from"},
		{"valid_to before valid_from", "add_facts", map[string]any{"facts": []any{
			map[string]any{"subject": "x", "predicate": "p", "value": "1"},
			map[string]any{"subject": "x", "predicate": "p", "value": "1", "valid_from": "2024-03-01", "valid_to": "2024-01-01"}}}, "facts[1].valid_to"},
		{"empty facts", "add_facts", map[string]any{"facts": []any{}}, "facts"},
		{"wrong type", "add_facts", map[string]any{"facts": "port is 5432"}, "facts"},
		{"scope is not an argument", "add_facts", map[string]any{"facts": portSwitch[:1], "scope": "user:mallory"}, "scope"},
		{"bad mode", "context", map[string]any{"query": "port?", "mode": "sideways"}, "mode"},
		{"blank query", "context", map[string]any{"query": "   "}, "query"},
		{"bad as_of", "context", map[string]any{"query": "port?", "as_of": "2024-13-45"}, "as_of"},
		{"bad reference_time", "context", map[string]any{"query": "port?", "reference_time": "last year"}, "reference_time"},
		{"tiny budget", "context", map[string]any{"query": "port?", "max_tokens": 3}, "max_tokens: must be at least 50"},
		{"bad type", "search", map[string]any{"query": "port", "types": []string{"fact", "document"}}, "types[1]"},
		{"no entity", "timeline", map[string]any{"predicate": "port"}, "entity"},
		{"unknown entity", "timeline", map[string]any{"entity": "zz-unknown-service-qq"}, "entity"},
		{"bad role", "remember", map[string]any{"content": "hello", "role": "boss"}, "role"},
		{"no content", "remember", map[string]any{"speaker": "Ann"}, "content"},
		{"nothing to forget", "forget", map[string]any{"reason": "asked"}, "fact_ids"},
		{"bad forget mode", "forget", map[string]any{"fact_ids": []string{"x"}, "mode": "shred"}, "mode"},
		{"unknown fact", "forget", map[string]any{"fact_ids": []string{"no-such-fact"}}, "no-such-fact"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, _, isErr := callRaw(t, cs, tc.tool, tc.args)
			if !isErr {
				t.Fatalf("not a tool error: %s", text)
			}
			if !strings.Contains(text, tc.field) || strings.Contains(text, "validating") {
				t.Errorf("the message does not name %q: %s", tc.field, text)
			}
			t.Log(text)
		})
	}
	// The server is still serving.
	call(t, cs, "add_facts", map[string]any{"facts": portSwitch[:1]})
}

func TestTools_RememberAndForget(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, mcp.NewLocal(e.svc, e.engine, "user:ann"))

	text, out := call(t, cs, "remember", map[string]any{"content": "I moved to Lisbon last month and I am learning Portuguese.",
		"speaker": "Ann", "role": "user", "reference_time": "2024-05-02T10:00:00Z"})
	if out["status"] != "done" || out["episode_id"] == "" || !strings.Contains(text, "Stored episode") {
		t.Fatalf("remember: %v %s", out, text)
	}
	// No model here: the answer says why there are no facts.
	if !strings.Contains(text, "(not extracted: no extraction model is configured") || !strings.Contains(out["extraction"].(string), "no extraction model") {
		t.Errorf("remember does not say why there are no facts: %v %s", out, text)
	}
	text, _ = call(t, cs, "search", map[string]any{"query": "Lisbon Portuguese", "types": []string{"episode"}})
	if lineWith(text, "[episode]", "Lisbon") == "" {
		t.Errorf("the episode is not searchable:\n%s", text)
	}

	call(t, cs, "add_facts", map[string]any{"facts": []any{
		map[string]any{"subject": "Ann", "predicate": "lives_in", "object": "Lisbon", "source_kind": "user_explicit"},
		map[string]any{"subject": "Ann", "predicate": "likes", "value": "green tea", "source_kind": "user_explicit"},
	}})
	// A dry run changes nothing.
	text, out = call(t, cs, "forget", map[string]any{"query": "Ann lives in Lisbon", "dry_run": true})
	if out["dry_run"] != true || out["facts"].(float64) < 1 {
		t.Fatalf("dry run: %v", out)
	}
	if !strings.Contains(text, "would have forgotten ") || strings.Contains(text, "(ies)") || strings.Contains(text, "(s)") {
		t.Errorf("dry run's words: %s", text)
	}
	text, _ = call(t, cs, "context", map[string]any{"query": "where does Ann live?"})
	if !strings.Contains(text, "Lisbon") {
		t.Fatalf("a dry run removed the fact:\n%s", text)
	}
	// Forget by entity name... of the fact's subject keeps nothing about Ann.
	_, out = call(t, cs, "timeline", map[string]any{"entity": "Ann"})
	var lisbon string
	for _, f := range out["facts"].([]any) {
		if m := f.(map[string]any); m["predicate"] == "lives_in" {
			lisbon = m["id"].(string)
		}
	}
	text, out = call(t, cs, "forget", map[string]any{"fact_ids": []string{lisbon}, "reason": "the user asked"})
	if out["facts"].(float64) != 1 || out["tombstones"].(float64) != 1 || !strings.Contains(text, "Forgot 1 fact, ") || !strings.Contains(text, "; 1 tombstone.") {
		t.Fatalf("forget: %v %s", out, text)
	}
	_, out = call(t, cs, "search", map[string]any{"query": "Ann lives in Lisbon", "types": []string{"fact"}})
	for _, h := range out["hits"].([]any) {
		if h.(map[string]any)["id"] == lisbon {
			t.Errorf("a forgotten fact is still found: %v", h)
		}
	}
	// Extraction or an agent cannot bring it back.
	_, out = call(t, cs, "add_facts", map[string]any{"facts": []any{
		map[string]any{"subject": "Ann", "predicate": "lives_in", "object": "Lisbon", "source_kind": "agent_inferred"}}})
	if r := out["results"].([]any)[0].(map[string]any); r["action"] != "blocked_by_tombstone" {
		t.Errorf("a tombstoned fact came back: %v", r)
	}
}

func TestTools_ScopeIsConfiguration(t *testing.T) {
	e := newEnv(t)
	alice := connect(t, mcp.NewLocal(e.svc, e.engine, "user:alice"))
	bob := connect(t, mcp.NewLocal(e.svc, e.engine, "user:bob"))
	call(t, alice, "add_facts", map[string]any{"facts": portSwitch})
	text, out := call(t, bob, "search", map[string]any{"query": "payments-db port 3307", "include_history": true})
	if hits := out["hits"].([]any); len(hits) != 0 {
		t.Errorf("bob sees alice's memory:\n%s", text)
	}
	if text, _, isErr := callRaw(t, bob, "timeline", map[string]any{"entity": "payments-db"}); !isErr {
		t.Errorf("bob sees alice's entity:\n%s", text)
	}
	text, _ = call(t, alice, "context", map[string]any{"query": "payments-db port"})
	if !strings.Contains(text, "3307") {
		t.Errorf("alice does not see her own memory:\n%s", text)
	}
}

// TestTools_NoIndex: without a search index the write tools still work
// and the read tools say what is missing.
func TestTools_NoIndex(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, mcp.NewLocal(e.svc, nil, "default"))
	call(t, cs, "add_facts", map[string]any{"facts": portSwitch})
	call(t, cs, "timeline", map[string]any{"entity": "payments-db"})
	text, _, isErr := callRaw(t, cs, "context", map[string]any{"query": "port"})
	if !isErr || !strings.Contains(text, "unavailable") {
		t.Errorf("recall without an index: %v %s", isErr, text)
	}
}

// TestTools_StatusAtAsOf: search as of a past time reports a value that
// was in force then as current, as REST and the context do.
func TestTools_StatusAtAsOf(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, mcp.NewLocal(e.svc, e.engine, "repo:payments"))
	call(t, cs, "add_facts", map[string]any{"facts": portSwitch})
	text, out := call(t, cs, "search", map[string]any{"query": "payments-db port 5432", "types": []string{"fact"}, "as_of": "2024-02-01"})
	if hits, _ := out["hits"].([]any); len(hits) == 0 || lineWith(text, "[fact, current]", "5432") == "" {
		t.Errorf("search as of 2024-02-01 should show 5432 as current:\n%s", text)
	}
	text, _ = call(t, cs, "search", map[string]any{"query": "payments-db port 5432", "types": []string{"fact"}, "include_history": true})
	if lineWith(text, "[fact, superseded]", "5432") == "" {
		t.Errorf("search now should show 5432 as superseded:\n%s", text)
	}
}

// TestTools_StartUnknown: add_facts takes start_unknown; recall marks the
// fact and a later dated value ends it.
func TestTools_StartUnknown(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, mcp.NewLocal(e.svc, e.engine, "user:me"))
	_, out := call(t, cs, "add_facts", map[string]any{"facts": []map[string]any{
		{"subject": "Mia", "subject_type": "person", "predicate": "lives_in", "object": "Lisbon", "object_type": "place", "start_unknown": true, "source_kind": "user_explicit"},
	}})
	if r, _ := out["results"].([]any); len(r) != 1 || r[0].(map[string]any)["action"] != "created" {
		t.Fatalf("add_facts: %v", out)
	}
	text, _ := call(t, cs, "context", map[string]any{"query": "where does Mia live?", "as_of": "1990-01-01"})
	if lineWith(text, "Lisbon", "start unknown") == "" {
		t.Errorf("recall as of 1990 should show Lisbon, start unknown:\n%s", text)
	}
	call(t, cs, "add_facts", map[string]any{"facts": []map[string]any{
		{"subject": "Mia", "predicate": "lives_in", "object": "Porto", "valid_from": "2022-03-01", "source_kind": "user_explicit"},
	}})
	// A time the question names, read against reference_time.
	text, _ = call(t, cs, "context", map[string]any{"query": "where did Mia live two years ago?", "reference_time": "2023-06-01"})
	if lineWith(text, "Lisbon", "current") == "" || lineWith(text, "For 2021-01-01 to 2021-12-31", "two years ago") == "" {
		t.Errorf("recall two years before 2023-06-01 should answer Lisbon, for 2021:\n%s", text)
	}
	text, out = call(t, cs, "timeline", map[string]any{"entity": "Mia", "predicate": "lives_in"})
	facts, _ := out["facts"].([]any)
	if len(facts) != 2 || facts[0].(map[string]any)["status"] != "superseded" {
		t.Errorf("timeline:\n%s", text)
	}
}

// TestResources_Ontology: the ontology is an MCP resource, as it is
// GET /v1/ontology: a model can learn which predicates replace their
// value.
func TestResources_Ontology(t *testing.T) {
	cs := connect(t, mcp.NewLocal(newEnv(t).svc, nil, "default"))
	list, err := cs.ListResources(context.Background(), nil)
	if err != nil || len(list.Resources) != 1 || list.Resources[0].URI != mcp.OntologyURI {
		t.Fatalf("resources: %+v, %v", list, err)
	}
	res, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: mcp.OntologyURI})
	if err != nil || len(res.Contents) != 1 {
		t.Fatalf("read: %+v, %v", res, err)
	}
	var d ontology.Description
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &d); err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Predicates {
		if p.Name == "port" && p.Cardinality == ontology.One {
			return
		}
	}
	t.Errorf("the ontology resource does not say port is one: %s", res.Contents[0].Text)
}

// TestTools_Unresolved: recall and search say memory holds nothing about a
// name it does not know, list it as unresolved and answer with no other
// entity's port.
func TestTools_Unresolved(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, mcp.NewLocal(e.svc, e.engine, "repo:payments"))
	call(t, cs, "add_facts", map[string]any{"facts": portSwitch})
	for _, tool := range []string{"recall", "search"} {
		text, out := call(t, cs, tool, map[string]any{"query": "which port does zebra-db listen on?"})
		un, _ := out["unresolved"].([]any)
		if len(un) != 1 || un[0].(map[string]any)["name"] != "zebra-db" {
			t.Errorf("%s: unresolved %v, want zebra-db", tool, out["unresolved"])
		}
		if !strings.Contains(strings.ToLower(text), "memory holds nothing about") || !strings.Contains(text, "payments-db") || strings.Contains(text, "3307") {
			t.Errorf("%s does not say it knows nothing of zebra-db (did you mean payments-db), or answers with payments-db's port:\n%s", tool, text)
		}
	}
	_, out := call(t, cs, "context", map[string]any{"query": "which port does payments-db listen on?"})
	if un, _ := out["unresolved"].([]any); un == nil || len(un) != 0 {
		t.Errorf("recall of a known name: unresolved %v, want []", out["unresolved"])
	}
	// Without an embedding model the answers say the vector list is off,
	// as the HTTP API does.
	for _, tool := range []string{"recall", "search"} {
		if _, out := call(t, cs, tool, map[string]any{"query": "payments-db port"}); out["vectors"] != "off" {
			t.Errorf("%s: vectors %v, want off", tool, out["vectors"])
		}
	}
}
