package extract_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/extract"
	"github.com/graphmem/graphmem/extract/extracttest"
)

const (
	testBase = 100 * time.Millisecond
	testMax  = 10 * time.Second
)

// sleeps records the waits the Extractor asked for instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// MustNew returns an Extractor talking to srv whose waits are recorded.
func MustNew(tb testing.TB, srv *extracttest.Server, edit ...func(*extract.Config)) (*extract.Extractor, *sleeps) {
	tb.Helper()
	cfg := extract.Config{
		BaseURL:        srv.BaseURL(),
		Model:          "test-model",
		APIKey:         "sk-test",
		MaxRetries:     3,
		RetryBaseDelay: testBase,
		RetryMaxDelay:  testMax,
	}
	for _, e := range edit {
		e(&cfg)
	}
	s := &sleeps{}
	x, err := extract.New(cfg, extract.WithSleep(s.sleep))
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return x, s
}

func input(f extracttest.Fixture) extract.Input {
	return extract.Input{Episode: f.Episode, Known: f.Known}
}

// MustExtract runs Extract and fails the test on error.
func MustExtract(tb testing.TB, x *extract.Extractor, in extract.Input) (extract.Output, extract.Usage) {
	tb.Helper()
	out, u, err := x.Extract(context.Background(), in)
	if err != nil {
		tb.Fatalf("Extract: %v", err)
	}
	return out, u
}

func wantCode(t *testing.T, err error, code entity.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want %s", code)
	}
	var e *entity.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %T %v, want *entity.Error", err, err)
	}
	if e.Code != code {
		t.Fatalf("code = %s, want %s (%v)", e.Code, code, err)
	}
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func sameTime(t *testing.T, what string, got *time.Time, want string) {
	t.Helper()
	if want == "" {
		if got != nil {
			t.Errorf("%s = %s, want null", what, got.Format(time.RFC3339))
		}
		return
	}
	if got == nil {
		t.Errorf("%s = null, want %s", what, want)
		return
	}
	if !got.Equal(at(want)) {
		t.Errorf("%s = %s, want %s", what, got.Format(time.RFC3339), want)
	}
}

func findFact(t *testing.T, out extract.Output, pred, objectOrValue string) extract.Fact {
	t.Helper()
	for _, f := range out.Facts {
		if f.Predicate == pred && (f.Object == objectOrValue || f.Value == objectOrValue) {
			return f
		}
	}
	t.Fatalf("no fact %s %s in %+v", pred, objectOrValue, out.Facts)
	return extract.Fact{}
}

func TestExtract_Prompt(t *testing.T) {
	fx := extracttest.LoadFixture(t, "employment_change")
	srv := extracttest.NewServer(t, extracttest.Always(fx.Reply()))
	x, _ := MustNew(t, srv)
	_, u := MustExtract(t, x, input(fx))

	if srv.Calls() != 1 || u.Calls != 1 {
		t.Fatalf("calls = %d (usage %d), want exactly 1", srv.Calls(), u.Calls)
	}
	req := srv.Requests()[0]
	if req.Method != http.MethodPost || req.Path != "/v1/chat/completions" {
		t.Errorf("request = %s %s, want POST /v1/chat/completions", req.Method, req.Path)
	}
	if got := req.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization = %q", got)
	}
	if req.Params.Model != "test-model" {
		t.Errorf("model = %q", req.Params.Model)
	}
	rf := req.Params.ResponseFormat
	if rf == nil || rf.Type != "json_schema" || rf.JSONSchema == nil || !rf.JSONSchema.Strict || rf.JSONSchema.Name == "" {
		t.Fatalf("response_format = %+v, want a strict json_schema", rf)
	}
	var schema map[string]any
	if err := json.Unmarshal(rf.JSONSchema.Schema, &schema); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	for _, field := range []string{`"valid_from"`, `"valid_to"`, `"source_kind"`, `"alternatives"`, `"cardinality"`, `"aliases"`} {
		if !strings.Contains(string(rf.JSONSchema.Schema), field) {
			t.Errorf("schema lacks %s", field)
		}
	}
	if len(req.Params.Messages) != 2 || req.Params.Messages[0].Role != "system" || req.Params.Messages[1].Role != "user" {
		t.Fatalf("messages = %+v, want system then user", req.Params.Messages)
	}

	prompt := req.Prompt()
	for _, want := range []string{
		// the ontology: types, predicates with cardinality and description
		"organization: A company, team",
		"works_at (one): The subject is employed by the object organization.",
		"likes (many)",
		"chose (many, decision)",
		// the known entities with types and aliases
		"Alice (person; also: Ally)",
		"Acme (organization; also: Acme Corp)",
		// the episode
		"speaker: Alice",
		"role: user",
		"reference_time: 2025-03-12T09:30:00+01:00 (Wednesday)",
		fx.Episode.Content,
		// the rules
		"Chinese stays Chinese",
		"RFC 3339",
		"user_explicit",
		"user_implicit",
		"agent_inferred",
		"no need to ask me",
		"attributes.reason",
		"valid_from null",
		"Return empty lists rather than guesses",
	} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
}

func TestExtract_OneCallPerEpisode(t *testing.T) {
	for _, name := range extracttest.Fixtures(t) {
		t.Run(name, func(t *testing.T) {
			fx := extracttest.LoadFixture(t, name)
			srv := extracttest.NewServer(t, extracttest.Always(fx.Reply()))
			x, sl := MustNew(t, srv)
			out, u := MustExtract(t, x, input(fx))
			if srv.Calls() != 1 || u.Calls != 1 {
				t.Fatalf("calls = %d (usage %d), want 1", srv.Calls(), u.Calls)
			}
			if len(sl.all()) != 0 {
				t.Errorf("slept %v on the normal path", sl.all())
			}
			if out.Mode != extract.ModeJSONSchema || out.Repaired {
				t.Errorf("mode %s repaired %v, want json_schema unrepaired", out.Mode, out.Repaired)
			}
			var answer struct{ Facts []json.RawMessage }
			if err := json.Unmarshal(fx.Answer, &answer); err != nil {
				t.Fatal(err)
			}
			if len(out.Facts)+len(out.Dropped) != len(answer.Facts) {
				t.Errorf("%d facts + %d dropped, the answer has %d", len(out.Facts), len(out.Dropped), len(answer.Facts))
			}
			if u.PromptTokens <= 0 || u.CompletionTokens <= 0 {
				t.Errorf("usage = %+v, want tokens", u)
			}
		})
	}
}

func TestExtract_PortChange(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	srv := extracttest.NewServer(t, extracttest.Always(fx.Reply()))
	x, _ := MustNew(t, srv)
	out, _ := MustExtract(t, x, input(fx))

	if len(out.Facts) != 2 || len(out.Dropped) != 0 {
		t.Fatalf("facts %+v dropped %+v", out.Facts, out.Dropped)
	}
	now := findFact(t, out, "port", "3307")
	if now.Subject != "production database" || now.Object != "" || now.Cardinality != "one" || now.Importance != 8 {
		t.Errorf("new port fact = %+v", now)
	}
	sameTime(t, "3307 valid_from", now.ValidFrom, "2025-03-14T10:20:00Z")
	sameTime(t, "3307 valid_to", now.ValidTo, "")
	old := findFact(t, out, "port", "5432")
	if !old.Ended() {
		t.Errorf("old port fact is not an explicit end: %+v", old)
	}
	sameTime(t, "5432 valid_to", old.ValidTo, "2025-03-14T10:20:00Z")
	if len(out.Entities) != 1 || out.Entities[0].Type != "service" || out.Entities[0].Aliases[0] != "prod db" {
		t.Errorf("entities = %+v", out.Entities)
	}
}

func TestExtract_RelativeDates(t *testing.T) {
	fx := extracttest.LoadFixture(t, "employment_change")
	srv := extracttest.NewServer(t, extracttest.Always(fx.Reply()))
	x, _ := MustNew(t, srv)
	out, _ := MustExtract(t, x, input(fx))

	left := findFact(t, out, "works_at", "Acme")
	sameTime(t, "Acme valid_from", left.ValidFrom, "")
	sameTime(t, "Acme valid_to (last Friday)", left.ValidTo, "2025-03-06T23:00:00Z")
	if !left.Ended() {
		t.Error("leaving Acme is not an explicit end")
	}
	joined := findFact(t, out, "works_at", "Globex")
	sameTime(t, "Globex valid_from (Monday)", joined.ValidFrom, "2025-03-17T00:00:00+01:00")
	sameTime(t, "Globex valid_to", joined.ValidTo, "")
	if _, off := joined.ValidFrom.Zone(); off != 3600 {
		t.Errorf("valid_from zone offset = %d, want the reference time's +01:00", off)
	}
	// "role" is a synonym the ontology canonicalises.
	title := findFact(t, out, "job_title", "staff engineer")
	if title.SourceKind != entity.UserExplicit {
		t.Errorf("source_kind = %s", title.SourceKind)
	}
}

func TestExtract_Decision(t *testing.T) {
	fx := extracttest.LoadFixture(t, "package_manager")
	srv := extracttest.NewServer(t, extracttest.Always(fx.Reply()))
	x, _ := MustNew(t, srv)
	out, _ := MustExtract(t, x, input(fx))

	d := findFact(t, out, "chose", "pnpm")
	if d.Attributes["reason"] != "npm installs took 6 minutes in CI; yarn's lockfile kept breaking" {
		t.Errorf("reason = %#v", d.Attributes["reason"])
	}
	alts, _ := d.Attributes["alternatives"].([]string)
	if strings.Join(alts, ",") != "npm,yarn" {
		t.Errorf("alternatives = %#v", d.Attributes["alternatives"])
	}
	pm := findFact(t, out, "uses_package_manager", "pnpm")
	sameTime(t, "pnpm valid_from (yesterday)", pm.ValidFrom, "2025-05-19T00:00:00+08:00")
	if pm.Attributes != nil {
		t.Errorf("empty attributes should be nil, got %#v", pm.Attributes)
	}
	old := findFact(t, out, "uses_package_manager", "npm")
	if !old.Ended() {
		t.Error("npm is not ended")
	}
}

func TestExtract_ChineseKept(t *testing.T) {
	fx := extracttest.LoadFixture(t, "chinese")
	srv := extracttest.NewServer(t, extracttest.Always(fx.Reply()))
	x, _ := MustNew(t, srv)
	out, _ := MustExtract(t, x, input(fx))

	if !strings.Contains(srv.Requests()[0].Prompt(), "我在腾讯工作，下个月从北京搬到上海。") {
		t.Error("the Chinese content did not reach the prompt verbatim")
	}
	if !strings.Contains(srv.Requests()[0].Prompt(), "speaker: 李雷") {
		t.Error("the Chinese speaker did not reach the prompt")
	}
	work := findFact(t, out, "works_at", "腾讯")
	if work.Subject != "李雷" || work.Text != "李雷在腾讯工作。" {
		t.Errorf("works_at = %+v", work)
	}
	move := findFact(t, out, "lives_in", "上海")
	if move.Text != "李雷从2025年4月起住在上海。" {
		t.Errorf("text = %q", move.Text)
	}
	sameTime(t, "上海 valid_from (下个月)", move.ValidFrom, "2025-04-01T00:00:00+08:00")
	names := map[string]string{}
	for _, e := range out.Entities {
		names[e.Name] = e.Type
	}
	if names["腾讯"] != "organization" || names["上海"] != "place" || names["北京"] != "place" || names["李雷"] != "person" {
		t.Errorf("entities = %+v", out.Entities)
	}
}

func TestExtract_Permission(t *testing.T) {
	t.Run("ModelReturnsNothing", func(t *testing.T) {
		fx := extracttest.LoadFixture(t, "permission")
		srv := extracttest.NewServer(t, extracttest.Always(fx.Reply()))
		x, _ := MustNew(t, srv)
		out, u := MustExtract(t, x, input(fx))
		if len(out.Facts) != 0 || len(out.Entities) != 0 || len(out.Dropped) != 0 || u.Calls != 1 {
			t.Errorf("out = %+v, usage %+v; want empty after one call", out, u)
		}
		if out.Facts == nil || out.Entities == nil {
			t.Error("empty lists should be non-nil")
		}
	})
	t.Run("ModelLeaksPermission", func(t *testing.T) {
		fx := extracttest.LoadFixture(t, "permission_leak")
		srv := extracttest.NewServer(t, extracttest.Always(fx.Reply()))
		x, _ := MustNew(t, srv)
		out, u := MustExtract(t, x, input(fx))
		if u.Calls != 1 || out.Repaired {
			t.Errorf("calls %d repaired %v: a permission drop must not cost a repair", u.Calls, out.Repaired)
		}
		if len(out.Facts) != 1 || out.Facts[0].Object != "deploy-bot" {
			t.Fatalf("facts = %+v, want only staging uses deploy-bot", out.Facts)
		}
		if len(out.Dropped) != 2 {
			t.Fatalf("dropped = %+v, want 2", out.Dropped)
		}
		for _, d := range out.Dropped {
			if d.Reason != entity.DropPermission {
				t.Errorf("drop %+v", d)
			}
		}
		if out.Dropped[1].Predicate != "allowed_to" {
			t.Errorf("drop predicate = %q", out.Dropped[1].Predicate)
		}
	})
}

func TestExtract_RetryOn500(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	ok := fx.Reply()
	ok.PromptTokens, ok.CompletionTokens = 700, 90
	srv := extracttest.NewServer(t, extracttest.Sequence(extracttest.ServerError(), ok))
	x, sl := MustNew(t, srv)
	out, u := MustExtract(t, x, input(fx))

	if srv.Calls() != 2 || u.Calls != 2 {
		t.Fatalf("calls = %d (usage %d), want 2", srv.Calls(), u.Calls)
	}
	if u.PromptTokens != 700 || u.CompletionTokens != 90 {
		t.Errorf("usage = %+v, want the answer's 700/90", u)
	}
	if len(out.Facts) != 2 {
		t.Errorf("facts = %+v", out.Facts)
	}
	d := sl.all()
	if len(d) != 1 || d[0] < testBase/2 || d[0] > testBase {
		t.Errorf("waits = %v, want one in [%v, %v]", d, testBase/2, testBase)
	}
	a, b := srv.Requests()[0], srv.Requests()[1]
	if string(a.Body) != string(b.Body) {
		t.Error("the retry is not the same request")
	}
}

func TestExtract_RetryOn429(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	t.Run("Seconds", func(t *testing.T) {
		srv := extracttest.NewServer(t, extracttest.Sequence(extracttest.RateLimited("7"), fx.Reply()))
		x, sl := MustNew(t, srv)
		_, u := MustExtract(t, x, input(fx))
		if u.Calls != 2 || srv.Calls() != 2 {
			t.Fatalf("calls = %d, want 2", u.Calls)
		}
		if d := sl.all(); len(d) != 1 || d[0] != 7*time.Second {
			t.Errorf("waits = %v, want [7s] from Retry-After", d)
		}
	})
	t.Run("HTTPDate", func(t *testing.T) {
		when := time.Now().Add(5 * time.Second).UTC().Format(http.TimeFormat)
		srv := extracttest.NewServer(t, extracttest.Sequence(extracttest.RateLimited(when), fx.Reply()))
		x, sl := MustNew(t, srv)
		MustExtract(t, x, input(fx))
		if d := sl.all(); len(d) != 1 || d[0] <= 2*time.Second || d[0] > 5*time.Second {
			t.Errorf("waits = %v, want about 5s from an HTTP-date Retry-After", d)
		}
	})
	t.Run("TooLong", func(t *testing.T) {
		srv := extracttest.NewServer(t, extracttest.Always(extracttest.RateLimited("3600")))
		x, sl := MustNew(t, srv)
		_, u, err := x.Extract(context.Background(), input(fx))
		wantCode(t, err, entity.EUNAVAILABLE)
		if u.Calls != 1 || len(sl.all()) != 0 {
			t.Errorf("calls %d waits %v: an hour-long Retry-After should end the retries at once", u.Calls, sl.all())
		}
	})
	t.Run("NoHeader", func(t *testing.T) {
		srv := extracttest.NewServer(t, extracttest.Sequence(extracttest.RateLimited(""), fx.Reply()))
		x, sl := MustNew(t, srv)
		MustExtract(t, x, input(fx))
		if d := sl.all(); len(d) != 1 || d[0] < testBase/2 || d[0] > testBase {
			t.Errorf("waits = %v, want the backoff", d)
		}
	})
}

func TestExtract_RetriesExhausted(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	srv := extracttest.NewServer(t, extracttest.Always(extracttest.ServerError()))
	x, sl := MustNew(t, srv, func(c *extract.Config) { c.MaxRetries = 3 })
	_, u, err := x.Extract(context.Background(), input(fx))
	wantCode(t, err, entity.EUNAVAILABLE)
	if srv.Calls() != 4 || u.Calls != 4 {
		t.Fatalf("calls = %d (usage %d), want 1 + 3 retries", srv.Calls(), u.Calls)
	}
	d := sl.all()
	if len(d) != 3 {
		t.Fatalf("waits = %v, want 3", d)
	}
	for i, w := range d {
		full := testBase << i
		if w < full/2 || w > full {
			t.Errorf("wait %d = %v, want in [%v, %v] (exponential with jitter)", i, w, full/2, full)
		}
	}
	if !strings.Contains(err.Error(), "500") {
		t.Errorf("error %q does not say what failed", err)
	}
}

func TestExtract_BackoffCapped(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	srv := extracttest.NewServer(t, extracttest.Always(extracttest.Error(http.StatusBadGateway, "bad gateway")))
	x, sl := MustNew(t, srv, func(c *extract.Config) {
		c.MaxRetries = 8
		c.RetryBaseDelay = time.Second
		c.RetryMaxDelay = 4 * time.Second
	})
	_, _, err := x.Extract(context.Background(), input(fx))
	wantCode(t, err, entity.EUNAVAILABLE)
	for i, w := range sl.all() {
		if w > 4*time.Second {
			t.Errorf("wait %d = %v exceeds the 4s cap", i, w)
		}
	}
	if len(sl.all()) != 8 {
		t.Errorf("waits = %d, want 8", len(sl.all()))
	}
}

func TestExtract_NetworkErrorRetried(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	srv := extracttest.NewServer(t, extracttest.Sequence(extracttest.Reply{Hangup: true}, fx.Reply()))
	x, _ := MustNew(t, srv)
	out, u := MustExtract(t, x, input(fx))
	if u.Calls != 2 || srv.Calls() != 2 || len(out.Facts) != 2 {
		t.Errorf("calls %d/%d facts %d, want 2/2/2", u.Calls, srv.Calls(), len(out.Facts))
	}
}

func TestExtract_TimeoutPerCall(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	srv := extracttest.NewServer(t, extracttest.Sequence(extracttest.Reply{Stall: true}, fx.Reply()))
	x, _ := MustNew(t, srv, func(c *extract.Config) { c.Timeout = 200 * time.Millisecond })
	out, u := MustExtract(t, x, input(fx))
	if u.Calls != 2 || len(out.Facts) != 2 {
		t.Errorf("calls %d facts %d: a stalled call should time out and be retried", u.Calls, len(out.Facts))
	}
}

func TestExtract_GarbledThenRepaired(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	garbled := extracttest.Garbled()
	srv := extracttest.NewServer(t, extracttest.Sequence(garbled, fx.Reply()))
	x, _ := MustNew(t, srv)
	out, u := MustExtract(t, x, input(fx))

	if srv.Calls() != 2 || u.Calls != 2 {
		t.Fatalf("calls = %d, want 2 (answer + one repair)", srv.Calls())
	}
	if !out.Repaired || out.Mode != extract.ModeJSONObject || len(out.Facts) != 2 {
		t.Errorf("out = %+v", out)
	}
	repair := srv.Requests()[1]
	if repair.Format() != "json_object" {
		t.Errorf("repair format = %q, want json_object", repair.Format())
	}
	msgs := repair.Params.Messages
	if len(msgs) != 4 || msgs[2].Role != "assistant" || msgs[3].Role != "user" {
		t.Fatalf("repair messages = %+v, want system, user, assistant, user", msgs)
	}
	if msgs[2].Content != garbled.Content {
		t.Errorf("the bad answer was not sent back: %q", msgs[2].Content)
	}
	if !strings.Contains(msgs[3].Content, "not a JSON object") {
		t.Errorf("the repair request does not say what was wrong: %q", msgs[3].Content)
	}
	if msgs[1].Content != srv.Requests()[0].Params.Messages[1].Content {
		t.Error("the repair call lost the episode prompt")
	}
	// A later episode still starts with the schema: one bad answer is not
	// proof that the server ignores schemas.
	if x.Mode() != extract.ModeJSONSchema {
		t.Errorf("mode after a repair = %s", x.Mode())
	}
}

func TestExtract_GarbledTwice(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	srv := extracttest.NewServer(t, extracttest.Always(extracttest.Garbled()))
	x, _ := MustNew(t, srv)
	_, u, err := x.Extract(context.Background(), input(fx))
	wantCode(t, err, entity.EUNPROCESSABLE)
	if srv.Calls() != 2 || u.Calls != 2 {
		t.Errorf("calls = %d, want 2: exactly one repair", srv.Calls())
	}
}

func TestExtract_SchemaRejected(t *testing.T) {
	fx := extracttest.LoadFixture(t, "package_manager")
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		if req.Format() == "json_schema" {
			return extracttest.RejectSchema()
		}
		return fx.Reply()
	})
	x, _ := MustNew(t, srv)
	out, u := MustExtract(t, x, input(fx))

	reqs := srv.Requests()
	if len(reqs) != 2 || u.Calls != 2 {
		t.Fatalf("calls = %d, want 2", len(reqs))
	}
	if reqs[0].Format() != "json_schema" || reqs[1].Format() != "json_object" {
		t.Errorf("formats = %s, %s; want json_schema then json_object", reqs[0].Format(), reqs[1].Format())
	}
	if !strings.Contains(string(reqs[1].Params.ResponseFormat.Schema), `"facts"`) {
		t.Errorf("json_object fallback without the schema: %s", reqs[1].Body)
	}
	if len(reqs[1].Params.Messages) != 2 {
		t.Error("the fallback is not the same prompt")
	}
	if out.Mode != extract.ModeJSONObjectSchema || out.Repaired || len(out.Facts) != 3 {
		t.Errorf("out = %+v", out)
	}
	// The Extractor remembers: the next episode goes straight to JSON mode.
	srv.Reset()
	_, u = MustExtract(t, x, input(fx))
	if u.Calls != 1 || srv.Requests()[0].Format() != "json_object" {
		t.Errorf("second episode: calls %d format %s; want 1 json_object", u.Calls, srv.Requests()[0].Format())
	}
	// So does a new Extractor of the same endpoint and model.
	srv.Reset()
	y, _ := MustNew(t, srv)
	if _, u = MustExtract(t, y, input(fx)); u.Calls != 1 || y.Mode() != extract.ModeJSONObjectSchema {
		t.Errorf("new extractor: calls %d mode %s; want 1 json_object_schema", u.Calls, y.Mode())
	}
	// Another model of the same endpoint starts from the top.
	z, _ := MustNew(t, srv, func(c *extract.Config) { c.Model = "other-model" })
	if z.Mode() != extract.ModeJSONSchema {
		t.Errorf("other model starts in %s", z.Mode())
	}
}

// TestExtract_LlamaCppPython500 imitates llama-cpp-python's server, which
// refuses json_schema with a 500 validation error and takes json_object
// with a schema: one refused call, one good one, no backoff.
func TestExtract_LlamaCppPython500(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	srv := extracttest.NewServer(t, extracttest.LlamaCppPython(extracttest.Always(fx.Reply())))
	x, sl := MustNew(t, srv)
	out, u := MustExtract(t, x, input(fx))
	if u.Calls != 2 || len(sl.all()) != 0 || out.Mode != extract.ModeJSONObjectSchema || len(out.Facts) != 2 {
		t.Errorf("calls %d waits %v mode %s facts %d; want 2 calls, no wait, json_object_schema, 2 facts",
			u.Calls, sl.all(), out.Mode, len(out.Facts))
	}
}

func TestExtract_DeterministicNotRetried(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	validation := `{"error":{"message":"1 validation error: {'type': 'missing', 'loc': ('body', 'messages')}","type":"internal_server_error"}}`
	for _, tc := range []struct {
		name  string
		reply extracttest.Reply
		calls int
	}{
		{"500Validation", extracttest.Reply{Status: 500, Body: validation}, 1},
		{"501", extracttest.Error(501, "not implemented"), 1},
		{"422", extracttest.Error(422, "unprocessable"), 1},
		{"500", extracttest.ServerError(), 4},
		{"502", extracttest.Error(502, "bad gateway"), 4},
		{"503", extracttest.Error(503, "overloaded"), 4},
		{"504", extracttest.Error(504, "gateway timeout"), 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := extracttest.NewServer(t, extracttest.Always(tc.reply))
			x, _ := MustNew(t, srv)
			_, u, err := x.Extract(context.Background(), input(fx))
			if err == nil || u.Calls != tc.calls {
				t.Errorf("calls %d err %v; want %d calls and an error", u.Calls, err, tc.calls)
			}
		})
	}
}

func TestExtract_ModePinned(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	srv := extracttest.NewServer(t, extracttest.LlamaCppPython(extracttest.Always(fx.Reply())))
	x, sl := MustNew(t, srv, func(c *extract.Config) { c.Mode = extract.ModeJSONSchema })
	_, u, err := x.Extract(context.Background(), input(fx))
	wantCode(t, err, entity.EUNPROCESSABLE)
	if u.Calls != 1 || len(sl.all()) != 0 {
		t.Errorf("pinned json_schema: calls %d waits %v; want 1 call, no fallback, no retry", u.Calls, sl.all())
	}
	y, _ := MustNew(t, srv, func(c *extract.Config) { c.Mode = extract.ModeText })
	if _, u := MustExtract(t, y, input(fx)); u.Calls != 1 || srv.Requests()[1].Format() != "" {
		t.Errorf("pinned text: calls %d format %q", u.Calls, srv.Requests()[1].Format())
	}
}

func TestExtract_JSONModeRejectedToo(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		if req.Format() != "" {
			return extracttest.Reply{Status: 400, Body: `{"error":{"message":"response_format is not supported","type":"invalid_request_error"}}`}
		}
		// Plain mode: the model wraps its JSON in a markdown fence.
		return extracttest.Answer("```json\n" + string(fx.Answer) + "\n```")
	})
	x, _ := MustNew(t, srv)
	out, u := MustExtract(t, x, input(fx))
	if u.Calls != 4 || out.Mode != extract.ModeText || len(out.Facts) != 2 {
		t.Errorf("calls %d mode %s facts %d; want 4, text, 2", u.Calls, out.Mode, len(out.Facts))
	}
}

func TestExtract_JSONModeConfigured(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	srv := extracttest.NewServer(t, extracttest.Always(fx.Reply()))
	x, _ := MustNew(t, srv, func(c *extract.Config) { c.Mode = extract.ModeJSONObject })
	MustExtract(t, x, input(fx))
	if f := srv.Requests()[0].Format(); f != "json_object" {
		t.Errorf("format = %q", f)
	}
}

func TestExtract_RefusedRequests(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	for _, tc := range []struct {
		name  string
		reply extracttest.Reply
		code  entity.Code
	}{
		{"ContextTooLong", extracttest.Reply{Status: 400, Body: `{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`}, entity.EUNPROCESSABLE},
		{"BadKey", extracttest.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`}, entity.EUNAVAILABLE},
		{"UnknownModel", extracttest.Error(404, "The model `nope` does not exist"), entity.EUNAVAILABLE},
		{"PlainTextError", extracttest.Reply{Status: 400, Body: "bad request"}, entity.EUNPROCESSABLE},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := extracttest.NewServer(t, extracttest.Always(tc.reply))
			x, sl := MustNew(t, srv)
			_, u, err := x.Extract(context.Background(), input(fx))
			wantCode(t, err, tc.code)
			if u.Calls != 1 || len(sl.all()) != 0 {
				t.Errorf("calls %d waits %v: a refusal is not retried", u.Calls, sl.all())
			}
		})
	}
}

func TestExtract_RefusalByModel(t *testing.T) {
	srv := extracttest.NewServer(t, extracttest.Always(extracttest.Reply{Body: `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`}))
	x, _ := MustNew(t, srv)
	_, _, err := x.Extract(context.Background(), extract.Input{Episode: entity.Episode{Content: "hello", Role: "user"}})
	wantCode(t, err, entity.EUNPROCESSABLE)
}

func TestExtract_BaseURLWithoutVersion(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	srv := extracttest.NewServer(t, extracttest.Always(fx.Reply()))
	x, _ := MustNew(t, srv, func(c *extract.Config) { c.BaseURL = srv.URL; c.APIKey = "" })
	MustExtract(t, x, input(fx))
	req := srv.Requests()[0]
	if req.Path != "/chat/completions" {
		t.Errorf("path = %s", req.Path)
	}
	if a := req.Header.Get("Authorization"); a != "" {
		t.Errorf("Authorization = %q with no API key configured", a)
	}
}

func TestExtract_EmptyContentNoCall(t *testing.T) {
	srv := extracttest.NewServer(t, extracttest.Always(extracttest.ServerError()))
	x, _ := MustNew(t, srv)
	out, u := MustExtract(t, x, extract.Input{Episode: entity.Episode{Content: " \n ", Role: "user"}})
	if u.Calls != 0 || srv.Calls() != 0 || len(out.Facts) != 0 {
		t.Errorf("calls %d facts %d", u.Calls, len(out.Facts))
	}
}

func TestExtract_ContextCanceled(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	srv := extracttest.NewServer(t, extracttest.Always(extracttest.ServerError()))
	ctx, cancel := context.WithCancel(context.Background())
	x, err := extract.New(extract.Config{BaseURL: srv.BaseURL(), Model: "m"},
		extract.WithSleep(func(c context.Context, d time.Duration) error { cancel(); return c.Err() }))
	if err != nil {
		t.Fatal(err)
	}
	_, u, err := x.Extract(ctx, input(fx))
	wantCode(t, err, entity.EUNAVAILABLE)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want it to wrap context.Canceled", err)
	}
	if u.Calls != 1 {
		t.Errorf("calls = %d", u.Calls)
	}
}

func TestExtract_KnownEntitiesCapped(t *testing.T) {
	srv := extracttest.NewServer(t, extracttest.Always(extracttest.Answer(`{"entities":[],"facts":[]}`)))
	x, _ := MustNew(t, srv, func(c *extract.Config) { c.MaxKnown = 10 })
	var known []entity.Entity
	for i := range 12 {
		known = append(known, entity.Entity{Name: fmt.Sprintf("entity-%02d", i), Type: "thing"})
	}
	MustExtract(t, x, extract.Input{Episode: entity.Episode{Content: "hi", Role: "user"}, Known: known})
	p := srv.Requests()[0].Prompt()
	if !strings.Contains(p, "entity-09") || strings.Contains(p, "entity-10") {
		t.Error("the prompt should hold exactly the first 10 known entities")
	}
}

func TestExtract_ReferenceTimeFallback(t *testing.T) {
	srv := extracttest.NewServer(t, extracttest.Always(extracttest.Answer(`{"entities":[],"facts":[]}`)))
	x, _ := MustNew(t, srv)
	now := at("2025-01-02T03:04:05+09:00")
	MustExtract(t, x, extract.Input{Episode: entity.Episode{Content: "hi"}, Now: now})
	if p := srv.Requests()[0].Prompt(); !strings.Contains(p, "reference_time: 2025-01-02T03:04:05+09:00 (Thursday)") {
		t.Errorf("prompt does not use Now as reference_time:\n%s", p)
	}
}

func TestNew_Invalid(t *testing.T) {
	for _, tc := range []struct {
		cfg   extract.Config
		field string
	}{
		{extract.Config{Model: "m"}, "base_url"},
		{extract.Config{BaseURL: "localhost:8080", Model: "m"}, "base_url"},
		{extract.Config{BaseURL: "http://127.0.0.1:1/v1"}, "model"},
		{extract.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", Mode: "tools"}, "mode"},
	} {
		_, err := extract.New(tc.cfg)
		wantCode(t, err, entity.EINVALID)
		var e *entity.Error
		errors.As(err, &e)
		if _, ok := e.Fields[tc.field]; !ok {
			t.Errorf("%+v: fields = %v, want %s", tc.cfg, e.Fields, tc.field)
		}
	}
}

// TestExtract_GrammarSchema: a llama.cpp-style server gets the schema it
// compiles into a grammar with the properties in their written order (a
// grammar makes the model write them in that order) and a fact shaped so
// that exactly one of object and value is set.
func TestExtract_GrammarSchema(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	srv := extracttest.NewServer(t, extracttest.LlamaCppPython(extracttest.Always(fx.Reply())))
	x, _ := MustNew(t, srv)
	MustExtract(t, x, input(fx))
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[1].Format() != "json_object" {
		t.Fatalf("%d requests; want the refused json_schema one, then json_object", len(reqs))
	}
	raw := string(reqs[1].Params.ResponseFormat.Schema)
	for _, pair := range [][2]string{{`"entities"`, `"facts"`}, {`"subject"`, `"predicate"`}, {`"object"`, `"value"`}, {`"text"`, `"attributes"`}} {
		if i, j := strings.Index(raw, pair[0]), strings.Index(raw, pair[1]); i < 0 || j < 0 || i > j {
			t.Errorf("schema has %s at %d and %s at %d; want the written order", pair[0], i, pair[1], j)
		}
	}
	var schema struct {
		Properties struct {
			Facts struct {
				Items struct {
					AnyOf []struct {
						Properties map[string]map[string]any `json:"properties"`
					} `json:"anyOf"`
				} `json:"items"`
			} `json:"facts"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(raw), &schema); err != nil {
		t.Fatal(err)
	}
	shapes := schema.Properties.Facts.Items.AnyOf
	if len(shapes) != 2 || shapes[0].Properties["value"]["type"] != "null" || shapes[0].Properties["object"]["type"] == "null" ||
		shapes[1].Properties["object"]["type"] != "null" || shapes[1].Properties["value"]["type"] == "null" {
		t.Errorf("fact shapes = %+v; want one with an object and a null value, one the other way", shapes)
	}
}

// TestExtract_RepairKeepsGrammar: on a llama.cpp-style server the repair
// call goes out in the format that answered, JSON mode with the schema
// attached, so the grammar still holds the model to the answer's shape.
func TestExtract_RepairKeepsGrammar(t *testing.T) {
	fx := extracttest.LoadFixture(t, "port_change")
	srv := extracttest.NewServer(t, extracttest.LlamaCppPython(func(_ int, req extracttest.Request) extracttest.Reply {
		if len(req.Params.Messages) > 2 {
			return fx.Reply()
		}
		return extracttest.Garbled()
	}))
	x, _ := MustNew(t, srv)
	out, u := MustExtract(t, x, input(fx))
	reqs := srv.Requests()
	if len(reqs) != 3 || u.Calls != 3 {
		t.Fatalf("calls = %d, want 3 (refused json_schema, answer, repair)", len(reqs))
	}
	repair := reqs[2]
	if repair.Format() != "json_object" || !strings.Contains(string(repair.Params.ResponseFormat.Schema), `"facts"`) {
		t.Errorf("repair format %q with schema %.60q; want json_object with the schema attached", repair.Format(), repair.Params.ResponseFormat.Schema)
	}
	if !out.Repaired || out.Mode != extract.ModeJSONObjectSchema || len(out.Facts) != 2 {
		t.Errorf("repaired %v mode %s facts %d; want repaired json_object_schema 2", out.Repaired, out.Mode, len(out.Facts))
	}
}
