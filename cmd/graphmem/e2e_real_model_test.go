package main

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/entity"
)

// TestRealModel runs the episode pipeline against a real OpenAI-compatible
// server: GRAPHMEM_REAL_LLM_BASE_URL and GRAPHMEM_REAL_LLM_MODEL name it
// (scripts/real-model-check.sh starts llama-cpp-python's server with
// SmolLM2-135M-Instruct and sets them, with the sampling in
// GRAPHMEM_LLM_TEMPERATURE, GRAPHMEM_LLM_TOP_P and GRAPHMEM_LLM_TOP_K, a
// fixed GRAPHMEM_LLM_SEED, the prompt style in GRAPHMEM_LLM_PROMPT and the
// completion cap in GRAPHMEM_LLM_MAX_TOKENS, which the test passes on as
// the server would read them). Skipped when they are not set. It judges
// the protocol, the pipeline and the report, not the quality of the facts:
// the episode posted with wait=true ends done after one model call plus at
// most the response-format fallback's; its extraction report counts what
// the model proposed, kept and dropped (each drop with its reason) and the
// tokens; every kept fact is grounded in the episode, stored, and found by
// search; an episode with no fact says why.
func TestRealModel(t *testing.T) {
	base, model := os.Getenv("GRAPHMEM_REAL_LLM_BASE_URL"), os.Getenv("GRAPHMEM_REAL_LLM_MODEL")
	if base == "" || model == "" {
		t.Skip("GRAPHMEM_REAL_LLM_BASE_URL and GRAPHMEM_REAL_LLM_MODEL not set (scripts/real-model-check.sh sets them)")
	}
	var logs syncBuffer
	m := MustRunMain(t, func(m *Main) {
		m.Config.LLMBaseURL, m.Config.LLMModel = base, model
		m.Config.LLMTemp, m.Config.LLMTopP, m.Config.LLMTopK, m.Config.LLMSeed = os.Getenv("GRAPHMEM_LLM_TEMPERATURE"), os.Getenv("GRAPHMEM_LLM_TOP_P"), os.Getenv("GRAPHMEM_LLM_TOP_K"), os.Getenv("GRAPHMEM_LLM_SEED")
		m.Config.LLMPrompt, m.Config.LLMMaxTokens = os.Getenv("GRAPHMEM_LLM_PROMPT"), os.Getenv("GRAPHMEM_LLM_MAX_TOKENS")
		m.Config.LLMTimeout = "5m" // a CPU shared with other work
		m.Config.EpisodeWait = "10m"
		m.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	})
	c := newClient(t, m)
	c.hc = &http.Client{Timeout: 10 * time.Minute}

	// The episode of the bug report: one message, wait=true.
	const content = "From March 1 our prod-db listens on port 3307 instead of 3306, because the old port clashed with the monitoring agent."
	start := time.Now()
	var acc api.EpisodeAccepted
	r := c.do("POST", "/v1/episodes?wait=true", map[string]any{
		"content": content, "role": "user", "speaker": "Sam", "reference_time": "2025-02-24T10:20:00Z",
	})
	if r.status != http.StatusOK && r.status != http.StatusAccepted {
		t.Fatalf("POST /v1/episodes?wait=true: %d %s", r.status, r.body)
	}
	if err := json.Unmarshal(r.body, &acc); err != nil {
		t.Fatal(err)
	}
	t.Logf("POST /v1/episodes?wait=true answered %s in %s", acc.Status, time.Since(start).Round(time.Millisecond))
	ep := awaitEpisode(t, c, acc.EpisodeID, 10*time.Minute)
	t.Logf("episode %s after %s: %d facts, %d prompt and %d completion tokens, attempts %d, error %q",
		ep.Status, time.Since(start).Round(time.Millisecond), len(ep.FactIDs), ep.PromptTokens, ep.CompletionTokens, ep.Attempts, ep.Error)
	if acc.Status != entity.EpisodeDone || ep.Status != entity.EpisodeDone {
		t.Fatalf("wait=true answered %q, the episode ended %q (error %q); want done\nlog:\n%s", acc.Status, ep.Status, ep.Error, logs.String())
	}
	if ep.Attempts > 1 || ep.PromptTokens <= 0 || ep.CompletionTokens <= 0 {
		t.Errorf("attempts %d, tokens %d/%d; want one attempt with tokens", ep.Attempts, ep.PromptTokens, ep.CompletionTokens)
	}

	// The record: what was proposed, kept and dropped, and why.
	x := ep.Extraction
	if x == nil {
		t.Fatalf("the episode has no extraction report: %+v", ep)
	}
	t.Logf("extraction: %s (prompt %s, format %s, %d calls, %d + %d tokens)", x.Summary, x.Prompt, x.Mode, x.Calls, x.PromptTokens, x.CompletionTokens)
	for _, d := range x.Dropped {
		t.Logf("  dropped (%s): %q %q %q: %s", d.Reason, d.Subject, d.Predicate, d.Object, d.Detail)
	}
	for _, w := range x.Warnings {
		t.Logf("  warning: %s", w)
	}
	if x.Proposed != x.Kept+len(x.Dropped) || x.Summary == "" || x.PromptTokens != ep.PromptTokens || x.Prompt == "" || x.Mode == "" {
		t.Errorf("report %+v does not add up", x)
	}
	for _, d := range x.Dropped {
		if d.Reason == "" || d.Detail == "" && d.Reason != entity.DropDuplicate {
			t.Errorf("drop without a reason: %+v", d)
		}
	}

	// One model call, plus at most the one refused by the response-format
	// fallback (llama-cpp-python answers json_schema with a 500) and the
	// repair call when the first answer was unusable.
	var line map[string]any
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec["msg"] == "extract: episode" {
			line = rec
		}
	}
	if line == nil {
		t.Fatalf("no extract: episode log line:\n%s", logs.String())
	}
	t.Logf("log line: %v", line)
	most := 2.0
	if x.Repaired {
		most++
	}
	if calls := line["calls"].(float64); calls < 1 || calls > most || int(calls) != x.Calls {
		t.Errorf("%v model calls (report %d, repaired %v), want 1 (2 with the fallback, one more with a repair)", calls, x.Calls, x.Repaired)
	}
	metrics := c.do("GET", "/metrics", nil)
	if calls := metricValue(string(metrics.body), "graphmem_llm_calls_total"); calls != line["calls"] {
		t.Errorf("/metrics counts %v calls, the log line %v", calls, line["calls"])
	}

	// The kept facts are grounded in the episode, stored and found by
	// search. An episode with none says why (above).
	if len(ep.FactIDs) == 0 {
		t.Logf("no fact kept: %s", x.Summary)
	}
	words := " " + entity.Normalize(content+" Sam i me we us our user") + " " // the speaker, however named
	for _, id := range ep.FactIDs {
		var d api.FactDetail
		c.do("GET", "/v1/facts/"+id, nil).ok(t, 200, &d)
		f := d.Fact
		t.Logf("fact: %q %q %q %q (%s, from %v to %v)", f.Subject, f.Predicate, f.Object, f.Value, f.SourceKind, f.ValidFrom, f.ValidTo)
		if f.Predicate == "" || (f.Value == "" && f.Object == "") {
			t.Errorf("fact %s lacks a predicate or a value: %+v", id, f)
		}
		for _, name := range []string{f.Subject, f.Object + f.Value} {
			if !strings.Contains(words, " "+entity.Normalize(name)+" ") && !strings.Contains(words, entity.Normalize(name)) {
				t.Errorf("kept fact %s names %q, which the episode does not", id, name)
			}
		}
		var res api.SearchResponse
		c.do("POST", "/v1/search", map[string]any{"query": strings.TrimSpace(f.Subject + " " + f.Value + " " + f.Object), "types": []string{"fact"}, "limit": 50}).ok(t, 200, &res)
		found := false
		for _, h := range res.Hits {
			found = found || h.ID == id
		}
		if !found {
			t.Errorf("fact %s not found by search: %+v", id, res.Hits)
		}
	}
}

// awaitEpisode polls an episode until it is done or failed, or d passes.
func awaitEpisode(t *testing.T, c client, id string, d time.Duration) api.Episode {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		var ep api.Episode
		c.do("GET", "/v1/episodes/"+id, nil).ok(t, 200, &ep)
		if ep.Status == entity.EpisodeDone || ep.Status == entity.EpisodeFailed || time.Now().After(deadline) {
			return ep
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// metricValue reads an unlabelled counter from a Prometheus text page.
func metricValue(page, name string) any {
	for _, l := range strings.Split(page, "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				return f
			}
		}
	}
	return nil
}
