package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/entity"
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
	bad := []string{"yesterday", "2024-03-01T09:30", "2024-03-01T09:30:00"}

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
			text, _, isErr = mcpCall(t, cs, "recall", map[string]any{"query": "port", "as_of": s})
			if !isErr || !strings.Contains(text, "as_of: "+entity.TimeMessage) {
				t.Errorf("as_of %q: %s", s, text)
			}
		}
	})
}
