package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
)

// writeFile writes a test file and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestE2E_OneDateFormat: REST, JSON Lines ingest, the CLI and MCP accept the
// same times (RFC 3339 or a plain date) and refuse the same ones with the
// same message.
func TestE2E_OneDateFormat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	m := MustRunMain(t, nil)
	c := newClient(t, m)
	url := "http://" + m.Addr()
	// The last three are well-formed but outside the years 1000 to 9999:
	// year 1 must not read as "start unknown".
	bad := []string{"yesterday", "2024-03-01T09:30", "2024-03-01T09:30:00", "0001-01-01T00:00:00Z", "0000-01-01", "9999-12-31T23:00:00-05:00"}

	t.Run("REST", func(t *testing.T) {
		c.postFacts(map[string]any{"subject": "rest-db", "predicate": "port", "value": "5432", "valid_from": "2024-03-01"})
		if fs := c.facts("subject=rest-db&as_of=2024-03-02"); len(fs) != 1 || fs[0].ValidFrom == nil || fs[0].ValidFrom.Format("2006-01-02T15:04:05Z07:00") != "2024-03-01T00:00:00Z" {
			t.Errorf("a plain date: %+v", fs)
		}
		for _, s := range bad {
			r := c.do("POST", "/v1/facts", map[string]any{"facts": []map[string]any{{"subject": "x", "predicate": "port", "value": "1", "valid_from": s}}})
			if d := r.errorDetail(t); r.status != 400 || d.Fields["facts[0].valid_from"] != entity.TimeMessage {
				t.Errorf("valid_from %q: %d %+v", s, r.status, d)
			}
			r = c.do("GET", "/v1/facts?as_of="+s, nil)
			if d := r.errorDetail(t); r.status != 400 || d.Fields["as_of"] != entity.TimeMessage {
				t.Errorf("as_of %q: %d %+v", s, r.status, d)
			}
			r = c.do("POST", "/v1/context", map[string]any{"query": "port", "as_of": s})
			if d := r.errorDetail(t); r.status != 400 || d.Fields["as_of"] != entity.TimeMessage {
				t.Errorf("context as_of %q: %d %+v", s, r.status, d)
			}
		}
		r := c.do("POST", "/v1/context", map[string]any{"query": "rest-db port", "as_of": "2024-03-02"})
		if r.status != 200 {
			t.Errorf("context with a plain date: %d %s", r.status, r.body)
		}
	})
	t.Run("Ingest", func(t *testing.T) {
		good := writeFile(t, "good.jsonl", `{"subject":"ingest-db","predicate":"port","value":"5432","valid_from":"2024-03-01"}`+"\n"+
			`{"content":"ingest-db moved","speaker":"Sam","reference_time":"2024-03-05"}`+"\n")
		if out, err := runCLI(t, bin, "ingest", "--quiet", "--url", url, good); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if fs := c.facts("subject=ingest-db&as_of=2024-03-02"); len(fs) != 1 {
			t.Errorf("ingested with a plain date: %+v", fs)
		}
		for _, s := range bad {
			file := writeFile(t, "bad.jsonl", `{"subject":"ingest-db","predicate":"port","value":"1"}`+"\n"+
				`{"subject":"ingest-db","predicate":"port","value":"2","valid_to":"`+s+`"}`+"\n")
			out, err := runCLI(t, bin, "ingest", "--quiet", "--url", url, file)
			if err == nil || !strings.Contains(out, "line 2: valid_to: "+entity.TimeMessage) || strings.Contains(out, "parsing time") {
				t.Errorf("valid_to %q: %v: %s", s, err, out)
			}
		}
	})
	t.Run("CLI", func(t *testing.T) {
		if out, err := runCLI(t, bin, "facts", "--subject", "rest-db", "--as-of", "2024-03-02", "--url", url); err != nil || !strings.Contains(out, "5432") {
			t.Errorf("--as-of with a plain date: %v: %s", err, out)
		}
		for _, s := range bad {
			out, err := runCLI(t, bin, "facts", "--as-of", s, "--url", url)
			if err == nil || !strings.Contains(out, "--as-of: "+entity.TimeMessage) {
				t.Errorf("--as-of %q: %v: %s", s, err, out)
			}
		}
	})
	t.Run("MCP", func(t *testing.T) {
		cs, err := connectHTTP(t, m, "")
		if err != nil {
			t.Fatal(err)
		}
		mcpOK(t, cs, "add_facts", map[string]any{"facts": []map[string]any{{"subject": "mcp-db", "predicate": "port", "value": "5432", "valid_from": "2024-03-01"}}})
		for _, s := range bad {
			text, _, isErr := mcpCall(t, cs, "add_facts", map[string]any{"facts": []map[string]any{{"subject": "mcp-db", "predicate": "port", "value": "1", "valid_from": s}}})
			if !isErr || !strings.Contains(text, "facts[0].valid_from: "+entity.TimeMessage) {
				t.Errorf("valid_from %q: %s", s, text)
			}
			text, _, isErr = mcpCall(t, cs, "context", map[string]any{"query": "port", "as_of": s})
			if !isErr || !strings.Contains(text, "as_of: "+entity.TimeMessage) {
				t.Errorf("as_of %q: %s", s, text)
			}
		}
	})
}

// TestE2E_ForgetEntity: forgetting an entity takes it off every read path
// — lists, search, context, timeline and MCP — and the dry run names what
// would go.
func TestE2E_ForgetEntity(t *testing.T) {
	m := MustRunMain(t, nil)
	c := newClient(t, m)
	c.postFacts(
		map[string]any{"subject": "Priya", "subject_type": "person", "predicate": "works_at", "object": "Acme Corp", "text": "Priya works at Acme Corp", "source_kind": "user_explicit"},
		map[string]any{"subject": "Priya", "subject_type": "person", "predicate": "lives_in", "object": "Lisbon", "text": "Priya lives in Lisbon", "source_kind": "user_explicit"},
		map[string]any{"subject": "Sam", "subject_type": "person", "predicate": "works_at", "object": "Acme Corp", "text": "Sam works at Acme Corp", "source_kind": "user_explicit"},
	)
	var found api.EntityMatchList
	c.do("GET", "/v1/entities?name=Priya", nil).ok(t, 200, &found)
	if len(found.Items) != 1 {
		t.Fatalf("before: %+v", found.Items)
	}
	priya := found.Items[0].Entity.ID

	var dry memory.ForgetResult
	c.do("POST", "/v1/forget", map[string]any{"entity": "Priya", "dry_run": true}).ok(t, 200, &dry)
	names := map[string]bool{}
	for _, it := range dry.Items {
		names[it.Type+": "+it.Name] = true
	}
	for _, want := range []string{"entity: Priya", "fact: Priya works at Acme Corp", "fact: Priya lives in Lisbon"} {
		if !names[want] {
			t.Errorf("dry run does not name %q: %+v", want, dry.Items)
		}
	}
	c.do("GET", "/v1/entities?name=Priya", nil).ok(t, 200, &found)
	if len(found.Items) != 1 {
		t.Fatalf("a dry run changed something: %+v", found.Items)
	}

	var res memory.ForgetResult
	c.do("POST", "/v1/forget", map[string]any{"entity": "Priya"}).ok(t, 200, &res)
	if res.Entities != 1 || res.Facts != 2 {
		t.Fatalf("forget: %+v", res)
	}
	// An answer may name Priya only to say memory holds nothing about
	// her: the question's own word, never a record.
	mentions := func(what string, v any) {
		t.Helper()
		b, _ := json.Marshal(v)
		s := strings.NewReplacer(`holds nothing about \"Priya\"`, "", `\"kind\":\"unknown\",\"id\":\"\",\"text\":\"Priya\"`, "",
			`{"name":"Priya","candidates":[]}`, "").Replace(string(b))
		if strings.Contains(s, "Priya") || strings.Contains(s, priya) {
			t.Errorf("%s still shows Priya: %s", what, b)
		}
	}
	c.do("GET", "/v1/entities?name=Priya", nil).ok(t, 200, &found)
	mentions("GET /v1/entities", found)
	for _, path := range []string{"/v1/entities/" + priya, "/v1/entities/" + priya + "/timeline", "/v1/entities/Priya/timeline"} {
		if r := c.do("GET", path, nil); r.status != 404 {
			t.Errorf("GET %s: %d %s", path, r.status, r.body)
		}
	}
	var hits api.SearchResponse
	c.do("POST", "/v1/search", map[string]any{"query": "Priya"}).ok(t, 200, &hits)
	mentions("search", hits)
	var ctxRes api.ContextResponse
	c.do("POST", "/v1/context", map[string]any{"query": "Where does Priya work and live?"}).ok(t, 200, &ctxRes)
	mentions("context", ctxRes)
	if len(ctxRes.Unresolved) != 1 || ctxRes.Unresolved[0].Name != "Priya" {
		t.Errorf("a forgotten name is not unresolved: %+v", ctxRes.Unresolved)
	}
	var sam api.ContextResponse
	c.do("POST", "/v1/context", map[string]any{"query": "Where does Sam work?"}).ok(t, 200, &sam)
	if !strings.Contains(sam.Context, `"Sam" works_at "Acme Corp"`) {
		t.Errorf("Sam went too: %s", sam.Context)
	}

	cs, err := connectHTTP(t, m, "")
	if err != nil {
		t.Fatal(err)
	}
	if text, _, isErr := mcpCall(t, cs, "timeline", map[string]any{"entity": "Priya"}); !isErr {
		t.Errorf("MCP timeline: %s", text)
	}
	text, _ := mcpOK(t, cs, "search", map[string]any{"query": "Priya"})
	mentions("MCP search", text)
	text, _ = mcpOK(t, cs, "context", map[string]any{"query": "Where does Priya work?", "format": "json"})
	mentions("MCP recall", text)
}

// TestE2E_TimelineByIdOrName: REST, the CLI and MCP take an entity's id, name
// or alias for a timeline, and answer the same entity.
func TestE2E_TimelineByIdOrName(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	m := MustRunMain(t, nil)
	c := newClient(t, m)
	c.postFacts(
		map[string]any{"subject": "Alice Chen", "subject_type": "person", "predicate": "works_at", "object": "Initech", "valid_from": "2018-09-01"},
		map[string]any{"subject": "Alice Chen", "subject_type": "person", "predicate": "works_at", "object": "Globex", "valid_from": "2021-05-01"},
		map[string]any{"subject": "Mercury", "subject_type": "planet", "predicate": "orbits", "object": "Sun"},
		map[string]any{"subject": "Mercury", "subject_type": "element", "predicate": "symbol", "value": "Hg"},
		map[string]any{"subject": "ops/db-1", "predicate": "port", "value": "5432"},
	)
	var byName api.Timeline
	c.do("GET", "/v1/entities/Alice%20Chen/timeline", nil).ok(t, 200, &byName)
	if byName.Entity.Name != "Alice Chen" || len(byName.Items) != 2 {
		t.Fatalf("by name: %+v", byName)
	}
	id := byName.Entity.ID
	var byID api.Timeline
	c.do("GET", "/v1/entities/"+id+"/timeline", nil).ok(t, 200, &byID)
	if byID.Entity.ID != id || len(byID.Items) != 2 {
		t.Errorf("by id: %+v", byID)
	}
	var slash api.Timeline
	c.do("GET", "/v1/entities/ops%2Fdb-1/timeline", nil).ok(t, 200, &slash)
	if slash.Entity.Name != "ops/db-1" {
		t.Errorf("a name with a slash: %+v", slash)
	}
	r := c.do("GET", "/v1/entities/Mercury/timeline", nil)
	if d := r.errorDetail(t); r.status != 409 || strings.Count(d.Message, "id ") != 2 {
		t.Errorf("a shared name: %d %+v", r.status, d)
	}
	r = c.do("GET", "/v1/entities/Alice%20Chn/timeline", nil)
	if d := r.errorDetail(t); r.status != 404 || !strings.Contains(d.Message, `did you mean "Alice Chen"`) {
		t.Errorf("a misspelt name: %d %+v", r.status, d)
	}

	url := "http://" + m.Addr()
	for _, ref := range []string{"Alice Chen", "alice chen", id} {
		out, err := runCLI(t, bin, "timeline", ref, "--json", "--url", url)
		var tl api.Timeline
		if err != nil || json.Unmarshal([]byte(out), &tl) != nil || tl.Entity.ID != id || len(tl.Items) != 2 {
			t.Errorf("CLI timeline %q: %v: %s", ref, err, out)
		}
	}
	if out, err := runCLI(t, bin, "timeline", "Mercury", "--url", url); err == nil || !strings.Contains(out, "409") {
		t.Errorf("CLI, a shared name: %v: %s", err, out)
	}

	cs, err := connectHTTP(t, m, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"Alice Chen", id} {
		_, out := mcpOK(t, cs, "timeline", map[string]any{"entity": ref})
		if e, _ := out["entity"].(map[string]any); e["id"] != id {
			t.Errorf("MCP timeline %q: %v", ref, out)
		}
	}
	if text, _, isErr := mcpCall(t, cs, "timeline", map[string]any{"entity": "Mercury"}); !isErr || !strings.Contains(text, "give one of their ids") {
		t.Errorf("MCP, a shared name: %s", text)
	}
}

// TestE2E_ForgetQuerySelection: a forget by query selects the same facts —
// the current value and the ones it superseded — through REST, the CLI and
// MCP.
func TestE2E_ForgetQuerySelection(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	m := MustRunMain(t, nil)
	c := newClient(t, m)
	c.postFacts(map[string]any{"subject": "production database", "predicate": "port", "value": "5432", "valid_from": "2023-03-01", "text": "The production database listens on port 5432"})
	c.postFacts(map[string]any{"subject": "production database", "predicate": "port", "value": "3307", "valid_from": "2024-02-15", "text": "The production database moved to port 3307"})
	all := c.facts("subject=production%20database&include_history=true")
	if len(all) != 2 {
		t.Fatalf("history: %+v", all)
	}
	want := []string{all[0].ID, all[1].ID}
	slices.Sort(want)
	q := "production database port"

	var rest memory.ForgetResult
	c.do("POST", "/v1/forget", map[string]any{"query": q, "dry_run": true}).ok(t, 200, &rest)
	out, err := runCLI(t, bin, "forget", "--query", q, "--dry-run", "--json", "--url", "http://"+m.Addr())
	var cli memory.ForgetResult
	if err != nil || json.Unmarshal([]byte(out), &cli) != nil {
		t.Fatalf("CLI: %v: %s", err, out)
	}
	cs, err := connectHTTP(t, m, "")
	if err != nil {
		t.Fatal(err)
	}
	_, st := mcpOK(t, cs, "forget", map[string]any{"query": q, "dry_run": true})
	var viaMCP memory.ForgetResult
	b, _ := json.Marshal(st)
	if err := json.Unmarshal(b, &viaMCP); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]memory.ForgetResult{"REST": rest, "CLI": cli, "MCP": viaMCP} {
		ids := slices.Clone(got.FactIDs)
		slices.Sort(ids)
		if !slices.Equal(ids, want) || !got.DryRun {
			t.Errorf("%s selects %v, want %v (current and superseded)", name, ids, want)
		}
	}
	if text, _ := mcpOK(t, cs, "forget", map[string]any{"query": q, "dry_run": true}); !strings.Contains(text, "The production database moved to port 3307") {
		t.Errorf("MCP dry run does not name the facts: %s", text)
	}
	if !strings.Contains(out, "The production database listens on port 5432") {
		t.Errorf("CLI dry run does not name the facts: %s", out)
	}
}

// TestE2E_SpeakerOnce: an episode whose content already starts with its
// speaker is shown with the speaker named once.
func TestE2E_SpeakerOnce(t *testing.T) {
	m := MustRunMain(t, nil)
	c := newClient(t, m)
	if r := c.do("POST", "/v1/episodes?wait=true", map[string]any{"content": "Sam: I moved to Lisbon last week", "speaker": "Sam"}); r.status/100 != 2 {
		t.Fatalf("episode: %d %s", r.status, r.body)
	}
	var hits api.SearchResponse
	c.do("POST", "/v1/search", map[string]any{"query": "Lisbon", "types": []string{"episode"}}).ok(t, 200, &hits)
	if len(hits.Hits) != 1 || hits.Hits[0].Text != "Sam: I moved to Lisbon last week" {
		t.Errorf("hits: %+v", hits.Hits)
	}
	var res api.ContextResponse
	c.do("POST", "/v1/context", map[string]any{"query": "Where did Sam move?"}).ok(t, 200, &res)
	if !strings.Contains(res.Context, `"Sam": "I moved to Lisbon last week"`) {
		t.Errorf("context:\n%s", res.Context)
	}
}

// TestE2E_IngestAllOrNothing: a file with a bad line writes nothing, with
// any batch size, and the error names the file line; --continue-on-error
// loads the rest and still fails.
func TestE2E_IngestAllOrNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	m := MustRunMain(t, nil)
	c := newClient(t, m)
	url := "http://" + m.Addr()
	file := writeFile(t, "facts.jsonl", `{"subject":"svc-a","predicate":"port","value":"1"}
# a comment

{"subject":"svc-b","predicate":"port","value":"2"}
{"subject":"svc-c","predicate":"port","value":"3","valid_from":"2024-03-02","valid_to":"2024-03-01"}
{"subject":"svc-d","predicate":"port","value":"4"}
`)
	for _, batch := range []string{"1", "500"} {
		out, err := runCLI(t, bin, "ingest", "--batch", batch, "--url", url, file)
		if err == nil || !strings.Contains(out, "line 5: valid_to: must be after valid_from") || !strings.Contains(out, "nothing was written") {
			t.Errorf("--batch %s: %v: %s", batch, err, out)
		}
		if fs := c.facts("predicate=port"); len(fs) != 0 {
			t.Fatalf("--batch %s: a refused file left %d facts", batch, len(fs))
		}
	}
	out, err := runCLI(t, bin, "ingest", "--batch", "1", "--continue-on-error", "--url", url, file)
	if err == nil || !strings.Contains(out, "line 5: valid_to") || !strings.Contains(out, "1 line(s) not loaded") {
		t.Errorf("--continue-on-error: %v: %s", err, out)
	}
	if fs := c.facts("predicate=port"); len(fs) != 3 {
		t.Errorf("--continue-on-error loaded %d facts, want 3", len(fs))
	}
	// The server refuses what only it can check (an unknown episode); the
	// answer is mapped back to the line.
	file = writeFile(t, "episodes.jsonl", `{"subject":"svc-e","predicate":"port","value":"5"}
{"subject":"svc-f","predicate":"port","value":"6","episode_id":"no-such-episode"}
`)
	out, err = runCLI(t, bin, "ingest", "--continue-on-error", "--url", url, file)
	if err == nil || !strings.Contains(out, "line 2: episode_id: no such episode") {
		t.Errorf("refused by the server: %v: %s", err, out)
	}
	if fs := c.facts("subject=svc-e"); len(fs) != 1 {
		t.Errorf("the good line of a refused batch: %+v", fs)
	}
	// Bad JSON and a wrong type name the line and the field, not Go.
	file = writeFile(t, "shape.jsonl", "{\"subject\":\"x\",\"predicate\":\"port\",\"value\":7}\n{\"subject\":\"x\",\"predicat\":\"port\",\"value\":\"7\"}\nnot json\n")
	out, _ = runCLI(t, bin, "ingest", "--url", url, file)
	for _, want := range []string{"line 1: value: must be a JSON string", "line 2: predicat: unknown field", "line 3: not a JSON object"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Go struct") || strings.Contains(out, "invalid character") {
		t.Errorf("a Go error reached the user:\n%s", out)
	}
}

// TestCLI_HelpVersionAndHeldFolder: each command's help starts with what it
// does and its own flags, lists only settings it uses, and never promises
// what the command refuses; version and --version agree with MCP; a held
// data folder is named as such.
func TestCLI_HelpVersionAndHeldFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	help := func(cmd string) (own, shared string) {
		out, _ := runCLI(t, bin, cmd, "-h")
		own, shared, ok := strings.Cut(out, "\nsettings (")
		if !ok {
			t.Fatalf("%s -h has no settings section:\n%s", cmd, out)
		}
		return own, shared
	}
	for _, tc := range []struct {
		cmd         string
		own, shared []string // flags that must be listed in each section
		absent      []string // flags that must not be listed at all
	}{
		{"serve", nil, []string{"-addr", "-api-keys", "-data", "-llm-model"}, []string{"-url", "-api-key "}},
		{"facts", []string{"-subject", "-as-of", "-json"}, []string{"-url", "-api-key", "-data"}, []string{"-api-keys", "-llm-model", "-addr"}},
		{"timeline", []string{"-predicate"}, []string{"-url", "-data"}, []string{"-llm-model"}},
		{"ingest", []string{"-batch", "-continue-on-error"}, []string{"-url", "-data"}, []string{"-llm-model", "-addr"}},
		{"search", []string{"-limit", "-types"}, []string{"-url", "-api-key"}, []string{"-data", "-store", "-llm-model"}},
		{"context", []string{"-max-tokens"}, []string{"-url"}, []string{"-data", "-store"}},
		{"forget", []string{"-entity", "-query", "-dry-run"}, []string{"-url"}, []string{"-data", "-store"}},
		{"reindex", nil, []string{"-data", "-store"}, []string{"-url", "-api-key"}},
		{"mcp", []string{"-scope"}, []string{"-data", "-url", "-llm-model"}, []string{"-addr", "-api-keys"}},
	} {
		own, shared := help(tc.cmd)
		if !strings.HasPrefix(own, "usage: graphmem "+tc.cmd) {
			t.Errorf("%s -h starts with:\n%s", tc.cmd, own)
		}
		for _, f := range tc.own {
			if !strings.Contains(own, "  "+f) {
				t.Errorf("%s -h: %s not among its own flags:\n%s", tc.cmd, f, own)
			}
		}
		for _, f := range tc.shared {
			if !strings.Contains(shared, "  "+f) {
				t.Errorf("%s -h: %s not among the settings:\n%s", tc.cmd, f, shared)
			}
		}
		for _, f := range tc.absent {
			if strings.Contains(own+shared, "  "+f) {
				t.Errorf("%s -h lists %s, which it does not use", tc.cmd, f)
			}
		}
	}
	if own, _ := help("reindex"); strings.Contains(own, "GRAPHMEM_URL") || !strings.Contains(own, "stop the server") {
		t.Errorf("reindex -h:\n%s", own)
	}
	if out, _ := runCLI(t, bin, "--help"); !strings.Contains(out, "GRAPHMEM_URL") || !strings.Contains(out, "version") {
		t.Errorf("--help:\n%s", out)
	}

	v1, err := runCLI(t, bin, "version")
	v2, err2 := runCLI(t, bin, "--version")
	if err != nil || err2 != nil || v1 != v2 || !strings.HasPrefix(v1, "graphmem ") || !strings.Contains(v1, " commit ") || !strings.Contains(v1, " go1.") {
		t.Errorf("version: %q %v, --version: %q %v", v1, err, v2, err2)
	}
	cs := connectCommand(t, bin, mcpEnv(), "mcp", "--data", t.TempDir())
	if got := cs.InitializeResult().ServerInfo.Version; "graphmem "+got+"\n" != v1 {
		t.Errorf("MCP reports %q, graphmem version %q", got, v1)
	}

	m := MustRunMain(t, nil)
	if m.Config.Store == "embedded" {
		out, err := runCLI(t, bin, "facts", "--data", m.Config.Data)
		if err == nil || !strings.Contains(out, "held by another graphmem process") || !strings.Contains(out, "GRAPHMEM_URL") {
			t.Errorf("held data folder: %v: %s", err, out)
		}
	}
}
