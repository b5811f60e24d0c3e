package main

import (
	"strings"
	"testing"

	"github.com/graphmem/graphmem/memory"
)

// A forget or purge by query that names something memory does not know is
// refused with its candidates, over REST and MCP, and nothing changes: the
// probe's "Bob Marley" purged Bob Lindqvist (alias Bob).
func TestE2E_ForgetRefusesGuess(t *testing.T) {
	m := runMCPServer(t)
	c := newClient(t, m).as("key-payments-0123456", "")
	c.postFacts(
		map[string]any{"subject": "Bob Lindqvist", "subject_type": "person", "subject_aliases": []string{"Bob"}, "predicate": "works_at", "object": "Acme"},
		map[string]any{"subject": "gateway-service", "subject_type": "service", "predicate": "port", "value": "8443"},
		map[string]any{"subject": "bob-secret-db", "subject_type": "database", "predicate": "port", "value": "5433"},
	)
	for _, body := range []map[string]any{
		{"query": "Bob Marley", "mode": "purge"},
		{"query": "zebra-gateway", "mode": "purge"},
		{"query": "alice-secret-db", "mode": "purge"},
		{"query": "Bob Marley", "dry_run": true},
		{"query": "zebra-gateway"},
	} {
		r := c.do("POST", "/v1/forget", body)
		if r.status != 404 {
			t.Fatalf("%v: status %d, want 404: %s", body, r.status, r.body)
		}
		d := r.errorDetail(t)
		if d.Fields["query"] == "" || !strings.Contains(d.Message, "nothing was changed") {
			t.Errorf("%v: the refusal does not name the query and say nothing changed: %+v", body, d)
		}
	}
	r := c.do("POST", "/v1/forget", map[string]any{"query": "Bob Marley", "mode": "purge"})
	if d := r.errorDetail(t); !strings.Contains(d.Message, "Bob Lindqvist") {
		t.Errorf("the refusal offers no candidate: %s", d.Message)
	}
	if n := len(c.facts("subject=Bob+Lindqvist")) + len(c.facts("subject=gateway-service")) + len(c.facts("subject=bob-secret-db")); n != 3 {
		t.Fatalf("%d of 3 facts left after refused purges", n)
	}

	// MCP refuses the same way.
	cs, err := connectHTTP(t, m, "key-payments-0123456")
	if err != nil {
		t.Fatal(err)
	}
	text, _, isErr := mcpCall(t, cs, "forget", map[string]any{"query": "Bob Marley", "mode": "purge"})
	if !isErr || !strings.Contains(text, "Bob Lindqvist") {
		t.Errorf("MCP forget of an unknown name: error %v: %s", isErr, text)
	}

	// The CLI refuses the same way, and its dry run names the resolution.
	bin := buildBinary(t)
	out, err := runCLI(t, bin, "forget", "--query", "Bob Marley", "--purge", "--url", "http://"+m.Addr(), "--api-key", "key-payments-0123456")
	if err == nil || !strings.Contains(out, "Bob Lindqvist") || !strings.Contains(out, "nothing was changed") {
		t.Errorf("CLI forget of an unknown name: %v: %s", err, out)
	}
	out, err = runCLI(t, bin, "forget", "--query", "Bob Lindqvist", "--dry-run", "--url", "http://"+m.Addr(), "--api-key", "key-payments-0123456")
	if err != nil || !strings.Contains(out, `"Bob Lindqvist" is Bob Lindqvist`) {
		t.Errorf("CLI dry run: %v: %s", err, out)
	}

	// A dry run that resolves shows the resolution; the purge then acts on it.
	var dry memory.ForgetResult
	c.do("POST", "/v1/forget", map[string]any{"query": "Bob Lindqvist", "dry_run": true}).ok(t, 200, &dry)
	if dry.Facts != 1 || len(dry.Resolved) != 1 || dry.Resolved[0].Entity != "Bob Lindqvist" {
		t.Fatalf("dry run: %+v", dry)
	}
	var res memory.ForgetResult
	c.do("POST", "/v1/forget", map[string]any{"query": "Bob Lindqvist", "mode": "purge"}).ok(t, 200, &res)
	if res.Facts != 1 || len(c.facts("subject=gateway-service")) != 1 {
		t.Fatalf("purge of Bob Lindqvist: %+v", res)
	}
}
