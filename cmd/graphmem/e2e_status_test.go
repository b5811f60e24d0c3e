package main

import (
	"strings"
	"testing"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/entity"
)

// TestE2E_StatusAtAsOf: a fact that was in force at as_of is "current" in
// every answer about that time — the fact list, search and the context —
// even though it has been superseded since.
func TestE2E_StatusAtAsOf(t *testing.T) {
	c := newClient(t, MustRunMain(t, nil))
	c.postFacts(fact("orders-db", "port", "5432", "2023-01-01T00:00:00Z"))
	c.postFacts(fact("orders-db", "port", "3307", "2024-01-01T00:00:00Z"))

	fs := c.facts("subject=orders-db&predicate=port&as_of=2023-06-01T00:00:00Z")
	if len(fs) != 1 || fs[0].Value != "5432" || fs[0].Status != "current" {
		t.Errorf("GET /v1/facts as_of 2023-06-01: %+v, want 5432 current", fs)
	}
	fs = c.facts("subject=orders-db&predicate=port&include_history=true&as_of=2023-06-01T00:00:00Z")
	for _, f := range fs {
		if want := map[string]entity.Status{"5432": "current", "3307": "future"}[f.Value]; f.Status != want {
			t.Errorf("history as_of 2023-06-01: %s is %s, want %s", f.Value, f.Status, want)
		}
	}
	if fs := c.facts("subject=orders-db&predicate=port&include_history=true"); len(fs) != 2 {
		t.Errorf("history now: %+v", fs)
	} else {
		for _, f := range fs {
			if want := map[string]entity.Status{"5432": "superseded", "3307": "current"}[f.Value]; f.Status != want {
				t.Errorf("history now: %s is %s, want %s", f.Value, f.Status, want)
			}
		}
	}

	var sr api.SearchResponse
	c.do("POST", "/v1/search", map[string]any{"query": "orders-db port 5432", "as_of": "2023-06-01T00:00:00Z"}).ok(t, 200, &sr)
	found := false
	for _, h := range sr.Hits {
		if h.Fact != nil && h.Fact.Value == "5432" {
			found = true
			if h.Fact.Status != "current" {
				t.Errorf("search as_of 2023-06-01: 5432 is %s", h.Fact.Status)
			}
		}
	}
	if !found {
		t.Errorf("search as_of 2023-06-01 did not find 5432: %+v", sr.Hits)
	}

	var cr api.ContextResponse
	c.do("POST", "/v1/context", map[string]any{"query": "orders-db port", "as_of": "2023-06-01T00:00:00Z", "mode": "current"}).ok(t, 200, &cr)
	found = false
	for _, f := range cr.Facts {
		if f.Fact.Value == "5432" {
			found = true
			if f.Fact.Status != "current" {
				t.Errorf("context as_of 2023-06-01: 5432 is %s", f.Fact.Status)
			}
		}
	}
	if !found || !strings.Contains(cr.Context, "5432") {
		t.Errorf("context as_of 2023-06-01 lacks 5432:\n%s", cr.Context)
	}
}
