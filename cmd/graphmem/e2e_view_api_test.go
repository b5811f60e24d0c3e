package main

import (
	"maps"
	"net/url"
	"slices"
	"testing"

	"github.com/graphmem/graphmem/api"
)

// The endpoints the web view needs beyond the rest of /v1: the graph
// around an entity, the session, and timeline pages.
func TestE2E_ViewAPI(t *testing.T) {
	m := MustRunMain(t, nil)
	c := newClient(t, m).as("", uiScope)
	seedUI(t, c)
	var found api.EntityMatchList
	c.do("GET", "/v1/entities?name="+url.QueryEscape("production database"), nil).ok(t, 200, &found)
	if len(found.Items) == 0 {
		t.Fatal("production database not found")
	}
	id := found.Items[0].Entity.ID

	graph := func(query string) api.EntityGraph {
		t.Helper()
		var g api.EntityGraph
		c.do("GET", "/v1/entities/"+id+"/graph"+query, nil).ok(t, 200, &g)
		if len(g.Nodes) == 0 || g.Nodes[0].ID != id || g.Nodes[0].Depth != 0 {
			t.Fatalf("the centre is not the first node: %+v", g.Nodes)
		}
		return g
	}
	depths := func(g api.EntityGraph) map[string]int {
		out := map[string]int{}
		for _, n := range g.Nodes {
			out[n.Name] = n.Depth
		}
		return out
	}
	edges := func(g api.EntityGraph) map[string]string {
		out := map[string]string{}
		for _, f := range g.Edges {
			out[f.Subject+" "+f.Predicate+" "+f.Object+f.Value] = string(f.Status)
		}
		return out
	}

	t.Run("Now", func(t *testing.T) {
		g := graph("")
		if d := depths(g); d["platform team"] != 1 || d["Carol Diaz"] != 2 || d["Bob Ruiz"] != 2 || len(d) != 4 {
			t.Errorf("nodes %v", d)
		}
		want := map[string]string{
			"production database port 3307": "current", "production database port 5432": "superseded",
			"production database owned_by platform team": "current", "production database root_password_hint the name of the first office cat": "current",
			"platform team led_by Carol Diaz": "current", "platform team led_by Bob Ruiz": "superseded",
		}
		if e := edges(g); !maps.Equal(e, want) {
			t.Errorf("edges %v, want %v", e, want)
		}
		if g.Truncated {
			t.Error("truncated")
		}
	})
	t.Run("AsOf", func(t *testing.T) {
		g := graph("?as_of=2023-06-01T00:00:00Z")
		e := edges(g)
		if e["production database port 5432"] != "current" || e["platform team led_by Bob Ruiz"] != "current" {
			t.Errorf("as of 2023-06-01: %v", e)
		}
		if _, ok := e["production database port 3307"]; ok {
			t.Errorf("a later fact is in the graph as of 2023-06-01: %v", e)
		}
		if _, ok := depths(g)["Carol Diaz"]; ok {
			t.Errorf("Carol Diaz led the team only from 2024: %v", depths(g))
		}
	})
	t.Run("Bounds", func(t *testing.T) {
		if d := depths(graph("?depth=1")); len(d) != 2 {
			t.Errorf("depth 1: %v", d)
		}
		if g := graph("?limit=1"); len(g.Nodes) != 1 || !g.Truncated {
			t.Errorf("limit 1: %d nodes, truncated %v", len(g.Nodes), g.Truncated)
		}
	})
	t.Run("BadInput", func(t *testing.T) {
		for q, field := range map[string]string{"?depth=3": "depth", "?as_of=yesterday": "as_of", "?limit=0": "limit", "?hops=2": "hops"} {
			r := c.do("GET", "/v1/entities/"+id+"/graph"+q, nil)
			if d := r.errorDetail(t); r.status != 400 || d.Fields[field] == "" {
				t.Errorf("%s: %d %+v", q, r.status, d)
			}
		}
		if r := c.do("GET", "/v1/entities/nope/graph", nil); r.status != 404 {
			t.Errorf("unknown entity: %d", r.status)
		}
	})
	t.Run("OtherScope", func(t *testing.T) {
		if r := c.as("", "other:scope").do("GET", "/v1/entities/"+id+"/graph", nil); r.status != 404 {
			t.Errorf("another scope reads the graph: %d %s", r.status, r.body)
		}
	})
	t.Run("TimelinePages", func(t *testing.T) {
		var all, p1, p2 api.FactList
		c.do("GET", "/v1/entities/"+id+"/timeline", nil).ok(t, 200, &all)
		c.do("GET", "/v1/entities/"+id+"/timeline?limit=2", nil).ok(t, 200, &p1)
		if len(all.Items) != 4 || all.NextCursor != nil || len(p1.Items) != 2 || p1.NextCursor == nil {
			t.Fatalf("%d facts (cursor %v), first page %d (cursor %v)", len(all.Items), all.NextCursor, len(p1.Items), p1.NextCursor)
		}
		c.do("GET", "/v1/entities/"+id+"/timeline?limit=2&cursor="+*p1.NextCursor, nil).ok(t, 200, &p2)
		if got := append(p1.Items, p2.Items...); len(got) != 4 || p2.NextCursor != nil || got[0].ID != all.Items[0].ID || got[3].ID != all.Items[3].ID {
			t.Errorf("pages differ from the whole timeline")
		}
		r := c.do("GET", "/v1/entities/"+id+"/timeline?cursor=x", nil)
		if d := r.errorDetail(t); r.status != 400 || d.Fields["cursor"] == "" {
			t.Errorf("bad cursor: %d %+v", r.status, d)
		}
	})
	t.Run("Session", func(t *testing.T) {
		var s api.Session
		c.do("GET", "/v1/session", nil).ok(t, 200, &s)
		if s.Scope != uiScope || !s.DevelopmentMode || !slices.Contains(s.Scopes, uiScope) || !slices.Contains(s.Scopes, "default") {
			t.Errorf("session %+v", s)
		}
	})
	overview := func(c client) api.Overview {
		t.Helper()
		var o api.Overview
		c.do("GET", "/v1/overview?limit=5", nil).ok(t, 200, &o)
		return o
	}
	t.Run("Overview", func(t *testing.T) {
		o := overview(c)
		if o.Counts != (api.OverviewCounts{Facts: 8, Entities: 4, Episodes: 1}) {
			t.Errorf("counts %+v, want 8 facts, 4 entities, 1 episode", o.Counts)
		}
		if len(o.Changes) != 5 {
			t.Fatalf("%d changes, want 5", len(o.Changes))
		}
		// The last write was the reversal: its two facts come first.
		got := map[string]bool{}
		for _, ch := range o.Changes[:2] {
			if ch.Fact == nil {
				t.Fatalf("change %+v is not a fact", ch)
			}
			got[ch.Fact.Value] = true
		}
		if !got["keep services on virtual machines"] || !got["move every service to Kubernetes"] {
			t.Errorf("the latest changes are %v", got)
		}
		if o := overview(c.as("", "other:scope")); o.Counts != (api.OverviewCounts{}) || len(o.Changes) != 0 {
			t.Errorf("another scope sees %+v", o)
		}
		r := c.do("GET", "/v1/overview?limit=0", nil)
		if d := r.errorDetail(t); r.status != 400 || d.Fields["limit"] == "" {
			t.Errorf("limit=0: %d %+v", r.status, d)
		}
	})
	t.Run("Forgotten", func(t *testing.T) {
		var res struct{ Facts int }
		c.do("POST", "/v1/forget", map[string]any{"entity": "platform team"}).ok(t, 200, &res)
		g := graph("")
		if _, ok := depths(g)["platform team"]; ok {
			t.Errorf("a forgotten entity is still in the graph: %v", depths(g))
		}
		// The overview counts what is left and shows nothing forgotten.
		o := overview(c)
		if o.Counts.Facts != uint64(8-res.Facts) {
			t.Errorf("%d facts counted after forgetting %d of 8", o.Counts.Facts, res.Facts)
		}
		for _, ch := range o.Changes {
			if (ch.Entity != nil && ch.Entity.Name == "platform team") || (ch.Fact != nil && (ch.Fact.Subject == "platform team" || ch.Fact.Object == "platform team")) {
				t.Errorf("the overview shows a forgotten record: %+v", ch)
			}
		}
	})
}
