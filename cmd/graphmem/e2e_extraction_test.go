package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/extract/extracttest"
)

// portAnswer is a model answer stating the production database's port from
// the given time.
func portAnswer(port, from string) string {
	return fmt.Sprintf(`{"entities":[{"name":"production database","type":"service","aliases":["prod db"]}],
	"facts":[{"subject":"production database","predicate":"port","object":null,"value":%q,
	"text":"The production database listens on port %s.","valid_from":%q,"valid_to":null,
	"cardinality":"one","source_kind":"user_explicit","importance":8,"attributes":{"reason":null,"alternatives":[]}}]}`, port, port, from)
}

// modelFor answers like a model would, by what the episode says; content
// "flaky…" fails first in the way it names.
func modelFor(t *testing.T) extracttest.Handler {
	portChange := extracttest.LoadFixture(t, "port_change")
	failed := map[string]bool{}
	return func(n int, req extracttest.Request) extracttest.Reply {
		p := req.Prompt()
		for _, kind := range []string{"flaky500", "flaky429", "garbled"} {
			if strings.Contains(p, kind) && !failed[kind] {
				failed[kind] = true
				switch kind {
				case "flaky500":
					return extracttest.ServerError()
				case "flaky429":
					return extracttest.RateLimited("0")
				default:
					return extracttest.Garbled()
				}
			}
		}
		switch {
		case strings.Contains(p, "clashed with the monitoring agent"):
			return extracttest.Answer(junkAnswer)
		case strings.Contains(p, "moved from 5432 to 3307"):
			return portChange.Reply()
		case strings.Contains(p, "on port 5432"):
			return extracttest.Answer(portAnswer("5432", "2025-01-10T09:00:00Z"))
		}
		return extracttest.Answer(`{"entities":[],"facts":[]}`)
	}
}

// junkAnswer is what a 135M model answered for the monitoring-agent
// episode: well formed, made up.
const junkAnswer = `{"entities":[{"name":"100s","type":"thing","aliases":[]}],"facts":[
	{"subject":"100s","predicate":"is_staffed_by_me","object":"Sam","value":null,"text":"100s is staffed by me."},
	{"subject":"prod-db","predicate":"port","object":null,"value":"5432","text":"prod-db port 5432."}]}`

func withModel(fake *extracttest.Server) func(m *Main) {
	return func(m *Main) {
		m.Config.LLMBaseURL, m.Config.LLMModel = fake.BaseURL(), "test-model"
	}
}

func postEpisode(c client, content, ref string) api.EpisodeAccepted {
	c.tb.Helper()
	var ep api.EpisodeAccepted
	c.do("POST", "/v1/episodes", map[string]any{"content": content, "role": "user", "speaker": "Sam", "reference_time": ref}).ok(c.tb, 202, &ep)
	return ep
}

func waitEpisode(c client, id string) api.Episode {
	c.tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ep api.Episode
		c.do("GET", "/v1/episodes/"+id, nil).ok(c.tb, 200, &ep)
		if ep.Status == entity.EpisodeDone || ep.Status == entity.EpisodeFailed || time.Now().After(deadline) {
			return ep
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestE2E_Extraction follows episodes from acceptance to searchable facts
// through the real server and a fake OpenAI-compatible model.
func TestE2E_Extraction(t *testing.T) {
	fake := extracttest.NewServer(t, modelFor(t))
	c := newClient(t, MustRunMain(t, withModel(fake)))

	e1 := postEpisode(c, "our production database is on port 5432", "2025-01-10T09:00:00Z")
	if e1.Status != entity.EpisodeQueued {
		t.Fatalf("accepted as %s, want queued", e1.Status)
	}
	d1 := waitEpisode(c, e1.EpisodeID)
	fix := extracttest.LoadFixture(t, "port_change")
	e2 := postEpisode(c, fix.Episode.Content, "2025-03-14T10:20:00Z")
	d2 := waitEpisode(c, e2.EpisodeID)
	if d1.Status != entity.EpisodeDone || d2.Status != entity.EpisodeDone || len(d1.FactIDs) != 1 || len(d2.FactIDs) != 2 {
		t.Fatalf("episodes: %+v\n%+v", d1, d2)
	}
	if n := fake.Calls(); n != 2 {
		t.Fatalf("%d model calls for 2 episodes", n)
	}
	// The model says user_explicit, but the episode named no source
	// kind: what comes from it is at most user_implicit, the top
	// authority being claimed by the client, never given by default.
	cur := c.facts("subject=prod+db&predicate=port")
	if len(cur) != 1 || cur[0].Value != "3307" || !cur[0].ValidFrom.Equal(time.Date(2025, 3, 14, 10, 20, 0, 0, time.UTC)) ||
		!slices.Equal(cur[0].EpisodeIDs, []string{e2.EpisodeID}) || cur[0].SourceKind != entity.UserImplicit {
		t.Fatalf("current port: %+v", cur)
	}
	old := c.facts("subject=production+database&as_of=2025-02-01T00:00:00Z")
	if len(old) != 1 || old[0].Value != "5432" || old[0].Status != entity.StatusCurrent || old[0].ValidTo == nil ||
		!old[0].ValidTo.Equal(*cur[0].ValidFrom) || old[0].SupersededBy == nil || *old[0].SupersededBy != cur[0].ID {
		t.Fatalf("old port: %+v", old)
	}

	t.Run("FailuresEndDoneAfterRetry", func(t *testing.T) {
		for _, kind := range []string{"flaky500", "flaky429", "garbled"} {
			before := fake.Calls()
			ep := waitEpisode(c, postEpisode(c, kind+": nothing to remember", "2025-04-01T00:00:00Z").EpisodeID)
			if ep.Status != entity.EpisodeDone {
				t.Errorf("%s: %+v", kind, ep)
			}
			if n := fake.Calls() - before; n != 2 {
				t.Errorf("%s: %d calls, want the failed one and one more", kind, n)
			}
		}
	})

	// An episode whose every proposed fact is made up ends done with no
	// fact, and says why: in the API, and in `graphmem episodes show`.
	t.Run("NoFactSaysWhy", func(t *testing.T) {
		ep := waitEpisode(c, postEpisode(c, "From March 1 our prod-db listens on port 3307 instead of 3306, because the old port clashed with the monitoring agent.", "2025-02-20T09:00:00Z").EpisodeID)
		x := ep.Extraction
		if ep.Status != entity.EpisodeDone || len(ep.FactIDs) != 0 || x == nil {
			t.Fatalf("episode %+v", ep)
		}
		if x.Proposed != 2 || x.Kept != 0 || len(x.Dropped) != 2 || x.Dropped[0].Reason != entity.DropNotGrounded ||
			x.Dropped[0].Subject != "100s" || x.Calls != 1 || x.PromptTokens <= 0 || x.Mode != "json_schema" ||
			x.Summary != "2 facts proposed, none kept; dropped: 2 not grounded in the episode" {
			t.Fatalf("report %+v", x)
		}
		var raw map[string]any
		c.do("GET", "/v1/episodes/"+ep.ID, nil).ok(t, 200, &raw)
		if _, ok := raw["extraction"].(map[string]any)["dropped"].([]any); !ok {
			t.Fatalf("GET /v1/episodes/{id} lacks extraction.dropped: %v", raw)
		}
		if testing.Short() {
			return
		}
		out, err := runCLI(t, buildBinary(t), "episodes", "show", ep.ID, "--url", c.base)
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		for _, want := range []string{"extraction: 2 facts proposed, none kept; dropped: 2 not grounded in the episode",
			"dropped (not_grounded): 100s · is_staffed_by_me · Sam", `the subject "100s" is not named in the episode`, "response format json_schema"} {
			if !strings.Contains(out, want) {
				t.Errorf("episodes show lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("ForgottenStaysForgotten", func(t *testing.T) {
		var res struct{ Facts int }
		c.do("POST", "/v1/forget", map[string]any{"fact_ids": []string{cur[0].ID}, "reason": "user asked"}).ok(t, 200, &res)
		if res.Facts != 1 {
			t.Fatalf("forget: %+v", res)
		}
		// The same message extracted again (a replay of the old episode).
		again := waitEpisode(c, postEpisode(c, fix.Episode.Content, "2025-03-14T10:20:00Z").EpisodeID)
		if again.Status != entity.EpisodeDone {
			t.Fatalf("replay: %+v", again)
		}
		if got := c.facts("subject=production+database&include_history=true"); slices.ContainsFunc(got, func(f api.Fact) bool { return f.Value == "3307" }) {
			t.Fatalf("forgotten fact came back: %+v", got)
		}
		if got := c.facts("subject=production+database"); len(got) != 0 {
			t.Fatalf("something is current after the forget: %+v", got)
		}
	})
}

// TestE2E_ExtractionResumesAfterRestart: episodes accepted by a server that
// stops before the model answers are finished by the next one.
func TestE2E_ExtractionResumesAfterRestart(t *testing.T) {
	stall := extracttest.NewServer(t, extracttest.Always(extracttest.Reply{Stall: true}))
	data := t.TempDir()
	first := MustRunMain(t, func(m *Main) { withModel(stall)(m); m.Config.Data = data })
	c := newClient(t, first)
	var ids []string
	for i := range 3 {
		ids = append(ids, postEpisode(c, fmt.Sprintf("our production database is on port 5432 (%d)", i), "2025-01-10T09:00:00Z").EpisodeID)
	}
	deadline := time.Now().Add(10 * time.Second)
	for stall.Calls() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	fake := extracttest.NewServer(t, modelFor(t))
	c = newClient(t, MustRunMain(t, func(m *Main) { withModel(fake)(m); m.Config.Data = data }))
	for _, id := range ids {
		if ep := waitEpisode(c, id); ep.Status != entity.EpisodeDone || len(ep.FactIDs) != 1 {
			t.Fatalf("after restart: %+v", ep)
		}
	}
	if n := fake.Calls(); n != 3 {
		t.Fatalf("%d calls for 3 episodes", n)
	}
}

// BenchmarkEpisodePipeline measures episodes/s end to end — each client
// sends an episode with POST /v1/episodes?wait=true and sends the next when
// the answer (the episode done, its facts) comes back: accept over HTTP,
// durable queue, one call to a model that answers at once, resolution,
// temporal rules, storage — for one client, then 32 concurrent clients each
// in a scope of its own, then 32 in one scope, on one server with the
// default settings, next to the same number of bare calls to that model.
//
//	go test -run XXX -bench EpisodePipeline -benchtime 1x ./cmd/graphmem
func BenchmarkEpisodePipeline(b *testing.B) {
	const perClient = 25
	// Episode j of client i says service i moved to port 10000+j: each
	// client's episodes supersede one another's facts.
	note := regexp.MustCompile(`port note (\d+) of client (\d+)`)
	fake := extracttest.NewServer(b, func(_ int, req extracttest.Request) extracttest.Reply {
		m := note.FindStringSubmatch(req.Prompt())
		if m == nil {
			return extracttest.Answer(`{"entities":[],"facts":[]}`)
		}
		j, _ := strconv.Atoi(m[1])
		a := strings.ReplaceAll(portAnswer(strconv.Itoa(10000+j), time.Date(2025, 1, 1, 0, 0, j, 0, time.UTC).Format(time.RFC3339)),
			"production database", "service "+m[2])
		return extracttest.Answer(a)
	})
	for b.Loop() {
		m := MustRunMain(b, withModel(fake))
		one, _ := episodeRate(b, m, 1, 4*perClient, func(int) string { return "solo" })
		own, ownCPU := episodeRate(b, m, 32, perClient, func(i int) string { return fmt.Sprintf("client-%d", i) })
		shared, sharedCPU := episodeRate(b, m, 32, perClient, func(int) string { return "shared" })
		start := time.Now()
		for range 32 * perClient {
			resp, err := fake.Client().Post(fake.BaseURL()+"/chat/completions", "application/json",
				strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"port note"}]}`))
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
		}
		bare := float64(32*perClient) / time.Since(start).Seconds()
		b.ReportMetric(one, "1-client-episodes/s")
		b.ReportMetric(own, "32-clients-own-scopes-episodes/s")
		b.ReportMetric(shared, "32-clients-one-scope-episodes/s")
		b.ReportMetric(bare, "bare-model-calls/s")
		// CPU per episode (server, fake model and clients: all in this
		// process) is what a busy machine does not distort: 2 free cores
		// allow 2 s / that many episodes per second.
		b.ReportMetric(ownCPU.Seconds()*1e3, "32-own-scopes-cpu-ms/episode")
		b.ReportMetric(sharedCPU.Seconds()*1e3, "32-one-scope-cpu-ms/episode")
		m.Close()
	}
}

// episodeRate runs clients concurrent clients, each sending n episodes one
// after the other in scope(i) and waiting for each to be done, and returns
// episodes done per second and the process's CPU time per episode.
func episodeRate(b *testing.B, m *Main, clients, n int, scope func(i int) string) (float64, time.Duration) {
	b.Helper()
	cpu0 := processCPU(b)
	hc := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	errs := make(chan error, clients)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			for j := range n {
				body := fmt.Sprintf(`{"content":"port note %d of client %d","role":"user"}`, j, i)
				req, _ := http.NewRequest("POST", "http://"+m.Addr()+"/v1/episodes?wait=true", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set(api.ScopeHeader, scope(i))
				resp, err := hc.Do(req)
				if err != nil {
					errs <- err
					return
				}
				var ep api.EpisodeAccepted
				err = json.NewDecoder(resp.Body).Decode(&ep)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 || ep.Status != entity.EpisodeDone || len(ep.FactIDs) != 1 {
					errs <- fmt.Errorf("episode answer %d: %+v (%v)", resp.StatusCode, ep, err)
					return
				}
			}
		})
	}
	wg.Wait()
	rate := float64(clients*n) / time.Since(start).Seconds()
	cpu := (processCPU(b) - cpu0) / time.Duration(clients*n)
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	return rate, cpu
}

// processCPU is the CPU time this process has used so far.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestE2E_ExtractionLlamaCppPython runs an episode against a server that,
// like llama-cpp-python's, refuses json_schema with a 500 validation error
// but accepts json_object with the schema: the episode ends done after one
// refused call and one good one.
func TestE2E_ExtractionLlamaCppPython(t *testing.T) {
	fake := extracttest.NewServer(t, extracttest.LlamaCppPython(modelFor(t)))
	var logs syncBuffer
	c := newClient(t, MustRunMain(t, func(m *Main) {
		withModel(fake)(m)
		m.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	}))

	ep := waitEpisode(c, postEpisode(c, "our production database is on port 5432", "2025-01-10T09:00:00Z").EpisodeID)
	if ep.Status != entity.EpisodeDone || len(ep.FactIDs) != 1 {
		t.Fatalf("episode: %+v", ep)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 || reqs[0].Format() != "json_schema" || reqs[1].Format() != "json_object" || len(reqs[1].Params.ResponseFormat.Schema) == 0 {
		t.Fatalf("%d calls; want a refused json_schema call and a json_object call with the schema", len(reqs))
	}
	// The next episode starts in the mode that worked.
	ep = waitEpisode(c, postEpisode(c, "nothing to remember here", "2025-01-11T09:00:00Z").EpisodeID)
	if ep.Status != entity.EpisodeDone || fake.Calls() != 3 {
		t.Fatalf("second episode: %+v after %d calls in all, want 3", ep, fake.Calls())
	}

	// One log line per episode with the model, the mode and the tokens the
	// server reported; the mode that works is logged once.
	var lines []map[string]any
	learned := 0
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(l), &rec) != nil {
			continue
		}
		switch rec["msg"] {
		case "extract: episode":
			lines = append(lines, rec)
		case "extract: endpoint answers in this response format":
			learned++
		}
	}
	if len(lines) != 2 || learned != 1 {
		t.Fatalf("%d episode lines, %d mode lines; want 2 and 1:\n%s", len(lines), learned, logs.String())
	}
	for _, rec := range lines {
		if rec["model"] != "test-model" || rec["mode"] != "json_object_schema" ||
			rec["prompt_tokens"].(float64) <= 0 || rec["completion_tokens"].(float64) <= 0 {
			t.Errorf("episode log line: %v", rec)
		}
	}
	if lines[0]["calls"].(float64) != 2 || lines[1]["calls"].(float64) != 1 {
		t.Errorf("calls per episode: %v, %v; want 2, 1", lines[0]["calls"], lines[1]["calls"])
	}
	// The episode record carries the same tokens.
	for _, rec := range lines {
		var got api.Episode
		c.do("GET", "/v1/episodes/"+rec["episode_id"].(string), nil).ok(t, 200, &got)
		if float64(got.PromptTokens) != rec["prompt_tokens"] || float64(got.CompletionTokens) != rec["completion_tokens"] {
			t.Errorf("episode %s tokens %d/%d, logged %v/%v", got.ID, got.PromptTokens, got.CompletionTokens,
				rec["prompt_tokens"], rec["completion_tokens"])
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestE2E_EpisodeWaitSetting: GRAPHMEM_EPISODE_WAIT bounds how long
// wait=true waits for a slow model; past it the episode is answered as it
// stands and still ends done. A setting that is not a duration is refused
// by name.
func TestE2E_EpisodeWaitSetting(t *testing.T) {
	release := make(chan struct{})
	fake := extracttest.NewServer(t, func(int, extracttest.Request) extracttest.Reply {
		<-release
		return extracttest.Answer(`{"entities": [], "facts": []}`)
	})
	m := MustRunMain(t, func(m *Main) {
		withModel(fake)(m)
		m.Config.EpisodeWait = "300ms"
	})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // runs before the server's cleanup, which waits for the model call
	c := newClient(t, m)
	var acc api.EpisodeAccepted
	start := time.Now()
	c.do("POST", "/v1/episodes?wait=true", map[string]any{"content": "the cache moved to port 6380"}).ok(t, 202, &acc)
	took := time.Since(start)
	free()
	if acc.Status == entity.EpisodeDone || took > 20*time.Second {
		t.Fatalf("wait=true with a 300ms bound answered %q after %v while the model was still busy", acc.Status, took)
	}
	if ep := waitEpisode(c, acc.EpisodeID); ep.Status != entity.EpisodeDone {
		t.Fatalf("episode ended %q, want done", ep.Status)
	}

	bad := &Main{Config: m.Config}
	bad.Config.EpisodeWait = "soon"
	if err := bad.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "episode-wait") {
		bad.Close()
		t.Fatalf("episode-wait soon: %v, want an error naming the setting", err)
	}
}
