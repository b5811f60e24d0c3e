package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/api"
)

// runCLI runs the built binary with a clean GRAPHMEM_ environment.
func runCLI(t *testing.T, bin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GRAPHMEM_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out) + string(ee.Stderr), err
	}
	return string(out), err
}

// TestE2E_ClientCommands runs `graphmem facts` and `graphmem timeline`
// against a running server (tables and JSON, with a key and a scope) and
// offline on its data folder.
func TestE2E_ClientCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	m := MustRunMain(t, func(m *Main) { m.Config.APIKeys = "key-0123456789abcdef=alice,bob" })
	c := newClient(t, m).as("key-0123456789abcdef", "bob")
	c.postFacts(
		map[string]any{"subject": "Alice Chen", "predicate": "works_at", "object": "Globex", "valid_from": "2021-05-01T00:00:00Z"},
		map[string]any{"subject": "Alice Chen", "predicate": "works_at", "object": "Initech", "valid_from": "2018-09-01T00:00:00Z"},
	)
	c.postFacts(map[string]any{"subject": "Alice Chen", "predicate": "works_at", "object": "Acme Corp", "valid_from": "2024-03-01T00:00:00Z"})
	online := []string{"--url", "http://" + m.Addr(), "--api-key", "key-0123456789abcdef"}

	t.Run("FactsJSON", func(t *testing.T) {
		out, err := runCLI(t, bin, append([]string{"facts", "--subject", "alice chen", "--scope", "bob", "--json"}, online...)...)
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		var list api.FactList
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if len(list.Items) != 1 || list.Items[0].Object != "Acme Corp" {
			t.Errorf("current employer: %+v", list.Items)
		}
	})
	t.Run("FactsAsOfTable", func(t *testing.T) {
		out, err := runCLI(t, bin, append([]string{"facts", "--subject", "Alice Chen", "--as-of", "2022-01-01", "--scope", "bob"}, online...)...)
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if !strings.HasPrefix(out, "SUBJECT") || !strings.Contains(out, "Globex") || strings.Contains(out, "Acme") {
			t.Errorf("table:\n%s", out)
		}
	})
	t.Run("FactsAsOfStatus", func(t *testing.T) {
		out, err := runCLI(t, bin, append([]string{"facts", "--subject", "Alice Chen", "--as-of", "2022-01-01", "--scope", "bob", "--json"}, online...)...)
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		var list api.FactList
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if len(list.Items) != 1 || list.Items[0].Object != "Globex" || list.Items[0].Status != "current" {
			t.Errorf("employer in 2022 should be Globex, current then: %+v", list.Items)
		}
	})
	t.Run("OtherScope", func(t *testing.T) {
		out, err := runCLI(t, bin, append([]string{"facts", "--history", "--json"}, online...)...) // the key's first scope: alice
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		var list api.FactList
		if json.Unmarshal([]byte(out), &list); len(list.Items) != 0 {
			t.Errorf("alice sees %d facts of bob", len(list.Items))
		}
	})
	t.Run("BadKey", func(t *testing.T) {
		out, err := runCLI(t, bin, "facts", "--url", "http://"+m.Addr(), "--api-key", "wrong")
		if err == nil || !strings.Contains(out, "401") {
			t.Errorf("wrong key: %v: %s", err, out)
		}
	})
	t.Run("Timeline", func(t *testing.T) {
		out, err := runCLI(t, bin, append([]string{"timeline", "Alice Chen", "--scope", "bob", "--json"}, online...)...)
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		var tl api.Timeline
		if err := json.Unmarshal([]byte(out), &tl); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		var got []string
		for _, f := range tl.Items {
			got = append(got, f.Object+"/"+string(f.Status))
		}
		if want := []string{"Initech/superseded", "Globex/superseded", "Acme Corp/current"}; !slices.Equal(got, want) {
			t.Errorf("timeline %v, want %v", got, want)
		}
		table, err := runCLI(t, bin, append([]string{"timeline", "--scope", "bob", tl.Entity.ID}, online...)...)
		if err != nil || !strings.Contains(table, "VALID FROM") || strings.Index(table, "Initech") > strings.Index(table, "Acme Corp") {
			t.Errorf("timeline by id: %v\n%s", err, table)
		}
		if out, err := runCLI(t, bin, append([]string{"timeline", "Alice Chn", "--scope", "bob"}, online...)...); err == nil || !strings.Contains(out, `did you mean "Alice Chen"`) {
			t.Errorf("misspelt name: %v: %s", err, out)
		}
	})
	t.Run("SearchAndContext", func(t *testing.T) {
		out, err := runCLI(t, bin, append([]string{"search", "--scope", "bob", "--types", "fact", "--json", "Alice Chen works at"}, online...)...)
		var hits api.SearchResponse
		if err != nil || json.Unmarshal([]byte(out), &hits) != nil || len(hits.Hits) == 0 || hits.Hits[0].Fact == nil {
			t.Fatalf("search: %v: %s", err, out)
		}
		out, err = runCLI(t, bin, append([]string{"context", "--scope", "bob", "--as-of", "2022-01-01", "--max-tokens", "300", "--json", "Where does Alice Chen work?"}, online...)...)
		var cr api.ContextResponse
		if err != nil || json.Unmarshal([]byte(out), &cr) != nil || !strings.Contains(cr.Context, "Globex") || strings.Contains(cr.Context, "Acme") {
			t.Fatalf("context as of 2022: %v: %s", err, out)
		}
		out, err = runCLI(t, bin, append([]string{"context", "--scope", "bob", "--max-tokens", "10", "Where?"}, online...)...)
		if err == nil || !strings.Contains(out, "max_tokens") {
			t.Errorf("a budget out of range: %v: %s", err, out)
		}
	})
	t.Run("Offline", func(t *testing.T) {
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		out, err := runCLI(t, bin, "facts", "--data", m.Config.Data, "--scope", "bob", "--history", "--json")
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		var list api.FactList
		if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Items) != 3 {
			t.Errorf("offline history: %v: %s", err, out)
		}
		out, err = runCLI(t, bin, "timeline", "Alice Chen", "--data", m.Config.Data, "--scope", "bob")
		if err != nil || !strings.Contains(out, "Acme Corp") {
			t.Errorf("offline timeline: %v: %s", err, out)
		}
	})
}
