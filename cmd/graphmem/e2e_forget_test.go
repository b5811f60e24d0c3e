package main

import (
	"strings"
	"testing"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/extract/extracttest"
	"github.com/graphmem/graphmem/memory"
)

func askContext(c client, question string) api.ContextResponse {
	c.tb.Helper()
	var out api.ContextResponse
	c.do("POST", "/v1/context", map[string]any{"query": question}).ok(c.tb, 200, &out)
	return out
}

func searchHits(c client, q string) []api.SearchHit {
	c.tb.Helper()
	var out api.SearchResponse
	c.do("POST", "/v1/search", map[string]any{"query": q, "include_history": true}).ok(c.tb, 200, &out)
	return out.Hits
}

// currentValues lists the values a context presents as current.
func currentValues(ctx api.ContextResponse) []string {
	var out []string
	for _, f := range ctx.Facts {
		if f.Fact.Status == entity.StatusCurrent {
			out = append(out, f.Fact.Value)
		}
	}
	return out
}

// TestE2E_ForgetAcceptance runs the design's three acceptance checks of
// forgetting through the HTTP API, with a fake model doing extraction.
func TestE2E_ForgetAcceptance(t *testing.T) {
	fake := extracttest.NewServer(t, modelFor(t))
	c := newClient(t, MustRunMain(t, withModel(fake)))
	const question = "What port is our production database on?"

	// (1) Said in one session, answered from memory in a new one.
	waitEpisode(c, postEpisode(c, "our production database is on port 5432", "2025-01-10T09:00:00Z").EpisodeID)
	fix := extracttest.LoadFixture(t, "port_change")
	waitEpisode(c, postEpisode(c, fix.Episode.Content, "2025-03-14T10:20:00Z").EpisodeID)
	var export strings.Builder
	r := c.do("GET", "/v1/export", nil)
	r.ok(t, 200, nil)
	export.Write(r.body)

	ans := askContext(c, question)
	if !strings.Contains(ans.Context, "3307") || strings.Join(currentValues(ans), ",") != "3307" {
		t.Fatalf("(1) the context does not answer 3307 as current:\n%s\n%+v", ans.Context, currentValues(ans))
	}

	// (2) "Forget the port I told you": the agent finds the fact, forgets it.
	var dry memory.ForgetResult
	c.do("POST", "/v1/forget", map[string]any{"query": "production database port 3307", "dry_run": true}).ok(t, 200, &dry)
	if !dry.DryRun || dry.Facts == 0 {
		t.Fatalf("dry run: %+v", dry)
	}
	var current api.FactList
	c.do("GET", "/v1/facts?subject=production+database&predicate=port", nil).ok(t, 200, &current)
	if len(current.Items) != 1 {
		t.Fatalf("facts before forgetting: %+v", current.Items)
	}
	var res memory.ForgetResult
	c.do("POST", "/v1/forget", map[string]any{"fact_ids": []string{current.Items[0].ID}, "reason": "user asked to forget the port"}).ok(t, 200, &res)
	if res.Facts != 1 || res.Tombstones != 1 {
		t.Fatalf("forget: %+v", res)
	}
	ans = askContext(c, question)
	if strings.Contains(ans.Context, "3307") || len(currentValues(ans)) != 0 {
		t.Fatalf("(2) after forgetting, the context still knows 3307 or falls back to a current port:\n%s\n%+v", ans.Context, currentValues(ans))
	}
	for _, h := range searchHits(c, "3307") {
		t.Errorf("(2) search still finds %s %s: %s", h.Type, h.ID, h.Text)
	}

	// (3) Extracted again (a replay of the message) or imported again: it
	// stays forgotten.
	waitEpisode(c, postEpisode(c, fix.Episode.Content, "2025-03-14T10:20:00Z").EpisodeID)
	var imp memory.ImportResult
	c.do("POST", "/v1/import", export.String()).ok(t, 200, &imp)
	if imp.Blocked == 0 {
		t.Errorf("(3) import did not report the tombstoned fact: %+v", imp)
	}
	ans = askContext(c, question)
	if strings.Contains(ans.Context, "3307") || len(currentValues(ans)) != 0 {
		t.Fatalf("(3) the forgotten port came back:\n%s", ans.Context)
	}
	var audit api.AuditList
	c.do("GET", "/v1/audit", nil).ok(t, 200, &audit)
	if len(audit.Items) != 1 || audit.Items[0].Action != "forget" || audit.Items[0].Actor == "" {
		t.Fatalf("audit: %+v", audit.Items)
	}
}

// TestE2E_PurgeLeavesNoTrace purges an episode and checks search, context,
// export and the search index's own term dictionary.
func TestE2E_PurgeLeavesNoTrace(t *testing.T) {
	m := MustRunMain(t, nil)
	c := newClient(t, m)
	var ep api.EpisodeAccepted
	c.do("POST", "/v1/episodes", map[string]any{"content": "My therapist is Dr Quillfeather, every Tuesday", "role": "user"}).ok(t, 202, &ep)
	c.postFacts(map[string]any{"subject": "Dr Quillfeather", "subject_type": "person", "predicate": "job_title", "value": "therapist",
		"text": "Dr Quillfeather is the user's therapist", "episode_id": ep.EpisodeID, "source_kind": "user_explicit"})
	c.postFacts(map[string]any{"subject": "production database", "predicate": "port", "value": "3307"})
	if len(searchHits(c, "Quillfeather")) == 0 {
		t.Fatal("nothing to purge was found before the purge")
	}
	var res memory.ForgetResult
	c.do("POST", "/v1/forget", map[string]any{"episode_id": ep.EpisodeID, "mode": "purge", "reason": "privacy request"}).ok(t, 200, &res)
	if res.Episodes != 1 || res.Facts != 1 || res.Entities != 1 {
		t.Fatalf("purge: %+v", res)
	}
	if hits := searchHits(c, "Quillfeather therapist Tuesday"); len(hits) != 0 {
		t.Fatalf("search after purge: %+v", hits)
	}
	if ans := askContext(c, "Who is my therapist?"); strings.Contains(strings.ToLower(ans.Context), "quillfeather") {
		t.Fatalf("context after purge:\n%s", ans.Context)
	}
	r := c.do("GET", "/v1/export", nil)
	r.ok(t, 200, nil)
	if strings.Contains(strings.ToLower(string(r.body)), "quillfeather") || strings.Contains(string(r.body), ep.EpisodeID) {
		t.Fatalf("export after purge:\n%s", r.body)
	}
	c.do("GET", "/v1/episodes/"+ep.EpisodeID, nil).errorDetail(t)
	// The index itself: no term of any field still holds the name.
	terms, err := m.Index.Terms(func(field, term string) {
		// The stem: the text fields hold analysed terms ("quillfeath").
		if strings.Contains(strings.ToLower(term), "quillfeath") {
			t.Errorf("field %s still holds the term %q", field, term)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if terms == 0 {
		t.Fatal("the index has no terms at all: the check above proves nothing")
	}
	var audit api.AuditList
	c.do("GET", "/v1/audit", nil).ok(t, 200, &audit)
	if len(audit.Items) != 1 || audit.Items[0].Action != "purge" || strings.Contains(strings.ToLower(string(c.do("GET", "/v1/audit", nil).body)), "quillfeather") {
		t.Fatalf("audit: %+v", audit.Items)
	}
}
