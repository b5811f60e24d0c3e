package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/mcp"
)

// mcpPortSwitch: the payments database listened on 5432, then moved to
// 3307, a decision taken for a stated reason.
var mcpPortSwitch = []map[string]any{
	{"subject": "payments-db", "subject_type": "service", "predicate": "port", "value": "5432",
		"valid_from": "2024-01-10", "text": "payments-db listens on port 5432", "source_kind": "user_explicit"},
	{"subject": "payments-db", "subject_type": "service", "predicate": "port", "value": "3307",
		"valid_from": "2024-03-01", "text": "payments-db listens on port 3307", "source_kind": "user_explicit"},
	{"subject": "payments-db", "subject_type": "service", "predicate": "decided", "value": "move payments-db from port 5432 to 3307",
		"valid_from": "2024-03-01", "text": "the team decided to move payments-db to port 3307", "source_kind": "user_explicit",
		"attributes": map[string]any{"reason": "the analytics replica already binds 5432"}},
}

const mcpReason = "the analytics replica already binds 5432"

// mcpCall calls a tool and returns its text, its structured content and
// whether it is a tool error; a protocol error fails the test.
func mcpCall(tb testing.TB, cs *sdk.ClientSession, tool string, args any) (string, map[string]any, bool) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		tb.Fatalf("%s: protocol error: %v", tool, err)
	}
	var text []string
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			text = append(text, t.Text)
		}
	}
	var out map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &out)
	}
	return strings.Join(text, "\n"), out, res.IsError
}

// mcpOK is mcpCall for a call that must succeed.
func mcpOK(tb testing.TB, cs *sdk.ClientSession, tool string, args any) (string, map[string]any) {
	tb.Helper()
	text, out, isErr := mcpCall(tb, cs, tool, args)
	if isErr {
		tb.Fatalf("%s: tool error: %s", tool, text)
	}
	return text, out
}

func mcpLine(text string, parts ...string) string {
	for _, l := range strings.Split(text, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return l
		}
	}
	return ""
}

// mcpScenario is what every transport must get right: the six tools are
// listed, a supersession is recorded, recall gives the current value and
// the reason, the timeline both values, and bad input is a tool error
// naming the field. withRecall is false for a server without /v1/context.
func mcpScenario(t *testing.T, cs *sdk.ClientSession, withRecall bool) {
	t.Helper()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if schema, _ := json.Marshal(tool.InputSchema); strings.Contains(string(schema), `"scope"`) {
			t.Errorf("%s takes a scope: %s", tool.Name, schema)
		}
	}
	if got := strings.Join(names, ","); got != "add_facts,context,forget,recall,remember,search,timeline" {
		t.Errorf("tools: %s", got)
	}

	text, out := mcpOK(t, cs, "add_facts", map[string]any{"facts": mcpPortSwitch})
	rs, _ := out["results"].([]any)
	if len(rs) != 3 || rs[1].(map[string]any)["action"] != "superseded_previous" {
		t.Fatalf("add_facts: %v\n%s", out, text)
	}

	if withRecall {
		text, _ = mcpOK(t, cs, "context", map[string]any{"query": "which port does payments-db listen on?"})
		if l := mcpLine(text, `"3307"`, "current"); l == "" || strings.Contains(l, "[was") {
			t.Errorf("recall does not show 3307 as current:\n%s", text)
		}
		text, _ = mcpOK(t, cs, "context", map[string]any{"query": "why did the payments-db port change?"})
		if !strings.Contains(text, mcpReason) || mcpLine(text, "[was; ", `"5432"`) == "" {
			t.Errorf("recall does not give the reason and the former value:\n%s", text)
		}
	}

	text, out = mcpOK(t, cs, "timeline", map[string]any{"entity": "payments-db", "predicate": "port"})
	fs, _ := out["facts"].([]any)
	if len(fs) != 2 {
		t.Fatalf("timeline: %v\n%s", out, text)
	}
	if a, b := fs[0].(map[string]any), fs[1].(map[string]any); a["value"] != "5432" || a["status"] != "superseded" ||
		b["value"] != "3307" || b["status"] != "current" {
		t.Errorf("timeline: %v then %v", a, b)
	}
	if mcpLine(text, "= 5432", "[superseded]") == "" || mcpLine(text, "= 3307", "[current]") == "" {
		t.Errorf("timeline text:\n%s", text)
	}

	for _, tc := range []struct {
		tool  string
		args  any
		field string
	}{
		{"add_facts", map[string]any{"facts": []any{map[string]any{"subject": "payments-db", "value": "1"}}}, "facts[0].predicate"},
		{"add_facts", map[string]any{"facts": []any{map[string]any{"subject": "payments-db", "predicate": "port", "value": "1", "valid_from": "soon"}}}, "facts[0].valid_from"},
		{"context", map[string]any{"query": "port", "mode": "sideways"}, "mode"},
		{"timeline", map[string]any{"entity": "no-such-service-at-all"}, "entity"},
		{"add_facts", map[string]any{"facts": mcpPortSwitch[:1], "scope": "user:mallory"}, "scope"},
	} {
		text, _, isErr := mcpCall(t, cs, tc.tool, tc.args)
		if !isErr || !strings.Contains(text, tc.field) {
			t.Errorf("%s %v: want a tool error naming %s, got (error %v) %s", tc.tool, tc.args, tc.field, isErr, text)
		}
	}
}

// mcpEnv is the environment of a subprocess without any GRAPHMEM_ setting
// of the test's own environment, plus extra.
func mcpEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GRAPHMEM_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// connectCommand runs the binary with args as an MCP server on stdio.
func connectCommand(t *testing.T, bin string, env []string, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "graphmem-test", Version: "v0"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to %v: %v", args, err)
	}
	return cs
}

func TestMCP_Stdio(t *testing.T) {
	bin := buildBinary(t)
	data := t.TempDir()
	cs := connectCommand(t, bin, mcpEnv(), "mcp", "--data", data)
	mcpScenario(t, cs, true)
	if err := cs.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}

	// A new process on the same folder finds what the first one stored,
	// and another scope sees none of it.
	cs = connectCommand(t, bin, mcpEnv(), "mcp", "--data", data)
	text, _ := mcpOK(t, cs, "context", map[string]any{"query": "payments-db port"})
	if mcpLine(text, "3307", "current") == "" {
		t.Errorf("after a restart:\n%s", text)
	}
	cs.Close()
	cs = connectCommand(t, bin, mcpEnv("GRAPHMEM_SCOPE=user:other"), "mcp", "--data", data)
	defer cs.Close()
	if _, out := mcpOK(t, cs, "search", map[string]any{"query": "payments-db 3307", "include_history": true}); len(out["hits"].([]any)) != 0 {
		t.Errorf("another scope sees the facts: %v", out)
	}
}

// bearer adds an API key to every request.
type bearer struct {
	key string
	rt  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.key != "" {
		r.Header.Set("Authorization", "Bearer "+b.key)
	}
	return b.rt.RoundTrip(r)
}

// runMCPServer starts the real server (which serves the recall routes and
// /mcp) with two keys.
func runMCPServer(t *testing.T) *Main {
	t.Helper()
	return MustRunMain(t, func(m *Main) { m.Config.APIKeys = "key-payments-0123456=repo:payments;key-zed-0123456789ab=user:zed" })
}

func connectHTTP(t *testing.T, m *Main, key string) (*sdk.ClientSession, error) {
	t.Helper()
	tr := &sdk.StreamableClientTransport{
		Endpoint:   "http://" + m.Addr() + api.MCPPath,
		HTTPClient: &http.Client{Timeout: 30 * time.Second, Transport: bearer{key: key, rt: http.DefaultTransport}},
		MaxRetries: -1,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "graphmem-test", Version: "v0"}, nil).Connect(ctx, tr, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func TestMCP_HTTP(t *testing.T) {
	m := runMCPServer(t)
	cs, err := connectHTTP(t, m, "key-payments-0123456")
	if err != nil {
		t.Fatal(err)
	}
	mcpScenario(t, cs, true)

	// The key decided the scope: the REST API with the same key sees the
	// facts, another key sees nothing of them, over either protocol.
	c := newClient(t, m)
	if fs := c.as("key-payments-0123456", "").facts("subject=payments-db&predicate=port"); len(fs) != 1 || fs[0].Value != "3307" || fs[0].Scope != "repo:payments" {
		t.Errorf("REST with the same key: %+v", fs)
	}
	zed, err := connectHTTP(t, m, "key-zed-0123456789ab")
	if err != nil {
		t.Fatal(err)
	}
	if _, out := mcpOK(t, zed, "search", map[string]any{"query": "payments-db port 3307", "include_history": true}); len(out["hits"].([]any)) != 0 {
		t.Errorf("another key's session sees the facts: %v", out)
	}
	if text, _, isErr := mcpCall(t, zed, "timeline", map[string]any{"entity": "payments-db"}); !isErr {
		t.Errorf("another key's session sees the entity:\n%s", text)
	}

	// Forgetting through /mcp is audited under the key that asked.
	_, out := mcpOK(t, cs, "forget", map[string]any{"query": "payments-db decided to move", "dry_run": true})
	if out["dry_run"] != true || out["facts"].(float64) < 1 {
		t.Fatalf("dry run: %v", out)
	}
	ids, _ := out["fact_ids"].([]any)
	text, out := mcpOK(t, cs, "forget", map[string]any{"fact_ids": []any{ids[0]}, "reason": "test"})
	if out["facts"].(float64) != 1 {
		t.Fatalf("forget: %v %s", out, text)
	}
	var audit api.AuditList
	c.as("key-payments-0123456", "").do("GET", "/v1/audit", nil).ok(t, 200, &audit)
	if len(audit.Items) != 1 || !strings.HasPrefix(audit.Items[0].Actor, "key:") || !strings.HasSuffix(audit.Items[0].Actor, " via mcp") {
		t.Errorf("audit: %+v", audit.Items)
	}

	// No key, a wrong key, or a scope the key may not use: refused before
	// any tool runs, with the API's status codes.
	if _, err := connectHTTP(t, m, ""); err == nil {
		t.Error("connected without a key")
	}
	if _, err := connectHTTP(t, m, "key-wrong-0123456789"); err == nil {
		t.Error("connected with an unknown key")
	}
	for _, tc := range []struct {
		key, scope string
		status     int
	}{{"", "", 401}, {"key-wrong-0123456789", "", 401}, {"key-zed-0123456789ab", "repo:payments", 403}} {
		r := c.as(tc.key, tc.scope).do("POST", api.MCPPath, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			"Accept", "application/json, text/event-stream")
		if r.status != tc.status {
			t.Errorf("key %q scope %q: status %d, want %d: %s", tc.key, tc.scope, r.status, tc.status, r.body)
		}
	}
}

// TestMCP_HTTPHost: behind a reverse proxy requests arrive on loopback
// with the public Host header. With keys they are served; in development
// mode (no keys) they are refused as possible DNS rebinding.
func TestMCP_HTTPHost(t *testing.T) {
	post := func(m *Main, key string) int {
		t.Helper()
		req, err := http.NewRequest("POST", "http://"+m.Addr()+api.MCPPath, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "memory.example.com"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if status := post(runMCPServer(t), "key-payments-0123456"); status != http.StatusOK {
		t.Errorf("with keys, behind a proxy: status %d", status)
	}
	dev := MustRunMain(t, nil)
	if status := post(dev, ""); status != http.StatusForbidden {
		t.Errorf("development mode, foreign Host: status %d, want 403", status)
	}
}

// TestMCP_StdioRemote: with GRAPHMEM_URL the stdio server forwards to a
// running server, whose key decides the scope.
func TestMCP_StdioRemote(t *testing.T) {
	m := runMCPServer(t)
	_, hasContext := documented(m, "POST", "/v1/context")
	bin := buildBinary(t)
	cs := connectCommand(t, bin, mcpEnv("GRAPHMEM_URL=http://"+m.Addr(), "GRAPHMEM_API_KEY=key-payments-0123456"), "mcp")
	defer cs.Close()
	mcpScenario(t, cs, hasContext)
	if !hasContext {
		t.Log("the server has no POST /v1/context yet: context through the remote backend not checked")
	} else if text, _ := mcpOK(t, cs, "search", map[string]any{"query": "payments-db port", "types": []string{"fact"}}); mcpLine(text, "[fact, current]", "3307") == "" {
		t.Errorf("search through the remote backend:\n%s", text)
	}
	if fs := newClient(t, m).as("key-payments-0123456", "").facts("subject=payments-db&predicate=port"); len(fs) != 1 || fs[0].Scope != "repo:payments" {
		t.Errorf("facts written through the remote backend: %+v", fs)
	}

	bad := connectCommand(t, bin, mcpEnv("GRAPHMEM_URL=http://"+m.Addr(), "GRAPHMEM_API_KEY=k-wrong"), "mcp")
	defer bad.Close()
	text, _, isErr := mcpCall(t, bad, "add_facts", map[string]any{"facts": mcpPortSwitch[:1]})
	if !isErr || !strings.Contains(text, "unauthenticated") {
		t.Errorf("a wrong key: want an unauthenticated tool error, got (error %v) %s", isErr, text)
	}
}

// documented reports whether the server documents a route.
func documented(m *Main, method, path string) (api.Endpoint, bool) {
	for _, ep := range m.API.Endpoints() {
		if ep.Method == method && ep.Path == path {
			return ep, true
		}
	}
	return api.Endpoint{}, false
}

// TestMCP_HTTPBatch: a JSON-RPC batch (2025-03-26 clients, no protocol
// version header) is served within its bounds and refused whole over
// them, with a JSON-RPC error and before any call runs.
func TestMCP_HTTPBatch(t *testing.T) {
	m := runMCPServer(t)
	post := func(calls ...string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequest("POST", "http://"+m.Addr()+api.MCPPath, strings.NewReader("["+strings.Join(calls, ",")+"]"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer key-payments-0123456")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	recall := func(id, maxTokens int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"context","arguments":{"query":"payments-db port","max_tokens":%d}}}`, id, maxTokens)
	}
	initialize := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	refused := func(name string, status int, body []byte, field string) {
		t.Helper()
		var out struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct {
				Code    int            `json:"code"`
				Message string         `json:"message"`
				Data    map[string]int `json:"data"`
			} `json:"error"`
		}
		if status != http.StatusBadRequest || json.Unmarshal(body, &out) != nil || out.JSONRPC != "2.0" || string(out.ID) != "null" ||
			out.Error.Code != -32600 || !strings.HasPrefix(out.Error.Message, "batch:") || out.Error.Data[field] == 0 {
			t.Errorf("%s: %d %s, want 400 and a JSON-RPC error on %s", name, status, body, field)
		}
	}

	within := []string{initialize}
	for i := 1; i < mcp.MaxBatchCalls; i++ {
		within = append(within, recall(i, entity.DefaultMaxTokens))
	}
	if status, body := post(within...); status != http.StatusOK || !bytes.HasPrefix(body, []byte("[")) {
		t.Fatalf("a batch within the bounds: %d %.300s", status, body)
	}

	over := append(within, recall(99, entity.DefaultMaxTokens))
	status, body := post(over...)
	refused("one call too many", status, body, "calls")

	status, body = post(initialize, recall(1, entity.MaxMaxTokens), recall(2, entity.MaxMaxTokens))
	refused("two recalls of the largest budget", status, body, "work")

	many := make([]string, 300)
	for i := range many {
		many[i] = recall(i, entity.DefaultMaxTokens)
	}
	status, body = post(many...)
	refused("300 recalls", status, body, "calls")
}

// TestMCP_HTTPInvalidUTF8: a tool argument that is not valid UTF-8 is
// refused by its path, not stored with U+FFFD in its place.
func TestMCP_HTTPInvalidUTF8(t *testing.T) {
	m := runMCPServer(t)
	body := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"remember\",\"arguments\":{\"content\":\"caf\xe9 opens at 9\"}}}"
	req, err := http.NewRequest("POST", "http://"+m.Addr()+api.MCPPath, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	req.Header.Set("Authorization", "Bearer key-payments-0123456")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Error struct {
			Code int               `json:"code"`
			Data map[string]string `json:"data"`
		} `json:"error"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(raw, &out) != nil || out.Error.Code != -32602 ||
		out.Error.Data["field"] != "params.arguments.content" {
		t.Errorf("%d %s, want 400 naming params.arguments.content", resp.StatusCode, raw)
	}
	var eps api.EpisodeList
	newClient(t, m).as("key-payments-0123456", "").do("GET", "/v1/episodes", nil).ok(t, 200, &eps)
	if len(eps.Items) != 0 {
		t.Errorf("stored: %+v", eps.Items)
	}
}

// Bare `graphmem mcp` follows the rule of the other client commands: with
// no --data or --store it talks to the server (GRAPHMEM_URL, else the
// default address) and opens no data folder, saying at start when nothing
// answers there; GRAPHMEM_DATA alone does not switch it to a folder.
func TestMCP_BareTalksToTheServer(t *testing.T) {
	bin := buildBinary(t)
	dir, data := t.TempDir(), t.TempDir()+"/env-data"
	url := "http://127.0.0.1:" + closedPort(t)
	cmd := exec.Command(bin, "mcp")
	cmd.Env, cmd.Dir = mcpEnv("GRAPHMEM_URL="+url, "GRAPHMEM_DATA="+data), dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "graphmem-test", Version: "v0"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	text, _, isErr := mcpCall(t, cs, "context", map[string]any{"query": "which port does payments-db use?"})
	cs.Close()
	if !isErr || !strings.Contains(text, url) {
		t.Errorf("a tool call without a server: want an error naming %s, got (error %v) %s", url, isErr, text)
	}
	if want := "cannot reach graphmem at " + url; !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), "--data DIR") {
		t.Errorf("stderr does not say %q and what to do:\n%s", want, stderr.String())
	}
	for _, d := range []string{dir + "/graphmem-data", data} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("bare mcp opened a data folder: %s", d)
		}
	}
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	return port
}
