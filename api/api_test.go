package api_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph/bolt"
	"github.com/graphmem/graphmem/memory"
)

// MustServer returns an API server over a fresh embedded store.
func MustServer(tb testing.TB, o api.Options) *api.Server {
	tb.Helper()
	store, err := bolt.Open(filepath.Join(tb.TempDir(), "graph.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	o.Service = memory.New(store, nil)
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return api.New(o)
}

// serve answers one request in-process.
func serve(s *api.Server, method, target string, body []byte, header ...string) *httptest.ResponseRecorder {
	// A loopback host, as a local client sends: development mode refuses
	// any other.
	req := httptest.NewRequest(method, "http://127.0.0.1:8080"+target, bytes.NewReader(body))
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	return w
}

// errorShape checks that an error answer is exactly the one error shape.
func errorShape(tb testing.TB, w *httptest.ResponseRecorder) api.ErrorDetail {
	tb.Helper()
	var body api.ErrorBody
	dec := json.NewDecoder(w.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		tb.Fatalf("status %d: body is not the error shape: %v", w.Code, err)
	}
	if body.Error.Code == "" || body.Error.Message == "" {
		tb.Fatalf("status %d: error without code or message: %+v", w.Code, body)
	}
	return body.Error
}

// TestOpenAPI_MatchesRouter keeps the document true: every route the
// router serves is documented and every documented route is served.
func TestOpenAPI_MatchesRouter(t *testing.T) {
	s := MustServer(t, api.Options{})
	served := map[string]bool{}
	for _, r := range s.Handler().(*gin.Engine).Routes() {
		served[r.Method+" "+r.Path] = true
	}
	documented := map[string]bool{}
	for _, ep := range s.Endpoints() {
		k := ep.Method + " " + ep.Path
		if documented[k] {
			t.Errorf("%s documented twice", k)
		}
		documented[k] = true
		if !served[k] {
			t.Errorf("%s is documented but not served", k)
		}
	}
	var missing []string
	for k := range served {
		if !documented[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	for _, k := range missing {
		t.Errorf("%s is served but not documented (add an api.Endpoint with Server.Document)", k)
	}

	// The served document lists the same paths and operations.
	w := serve(s, "GET", "/openapi.json", nil)
	if w.Code != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d", w.Code)
	}
	var doc struct {
		OpenAPI    string                               `json:"openapi"`
		Paths      map[string]map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q", doc.OpenAPI)
	}
	n := 0
	for p, ops := range doc.Paths {
		for m, op := range ops {
			n++
			gin := strings.NewReplacer("{", ":", "}", "").Replace(p)
			if !served[strings.ToUpper(m)+" "+gin] {
				t.Errorf("document has %s %s, not served", m, p)
			}
			if _, ok := op["responses"]; !ok {
				t.Errorf("%s %s has no responses", m, p)
			}
		}
	}
	if n != len(served) {
		t.Errorf("document has %d operations, router %d routes", n, len(served))
	}
	// Every $ref resolves.
	for _, ref := range refs(w.Body.String()) {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		if _, ok := doc.Components.Schemas[name]; !ok {
			t.Errorf("dangling $ref %s", ref)
		}
	}
	// The request schema of POST /v1/facts follows the validate tags.
	if !strings.Contains(w.Body.String(), `"user_explicit"`) || !strings.Contains(w.Body.String(), `"maxItems": 1000`) {
		t.Errorf("facts request schema lacks the source_kind enumeration or the batch limit")
	}
}

func refs(doc string) []string {
	var out []string
	for _, part := range strings.Split(doc, `"$ref": "`)[1:] {
		out = append(out, part[:strings.IndexByte(part, '"')])
	}
	return out
}

func TestRequestID(t *testing.T) {
	s := MustServer(t, api.Options{})
	if w := serve(s, "GET", "/healthz", nil, api.RequestIDHeader, "abc-123"); w.Header().Get(api.RequestIDHeader) != "abc-123" {
		t.Errorf("request id not echoed: %q", w.Header().Get(api.RequestIDHeader))
	}
	w := serve(s, "GET", "/healthz", nil, api.RequestIDHeader, "bad id\twith spaces")
	if id := w.Header().Get(api.RequestIDHeader); id == "" || strings.ContainsAny(id, " \t") {
		t.Errorf("malformed request id not replaced: %q", id)
	}
	if w := serve(s, "GET", "/healthz", nil); w.Header().Get(api.RequestIDHeader) == "" {
		t.Error("no request id generated")
	}
}

func TestRecovery(t *testing.T) {
	var logs bytes.Buffer
	s := MustServer(t, api.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	s.Group().GET("/panic", func(c *gin.Context) { panic("boom") })
	w := serve(s, "GET", "/v1/panic", nil, api.RequestIDHeader, "req-1")
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status %d", w.Code)
	}
	if e := errorShape(t, w); e.Message != "internal error" || e.Code != "internal" {
		t.Errorf("panic shown to the client: %+v", e)
	}
	if !strings.Contains(logs.String(), "boom") || !strings.Contains(logs.String(), `"request_id":"req-1"`) {
		t.Errorf("panic not logged with its request id:\n%s", logs.String())
	}
}

func TestAuth(t *testing.T) {
	s := MustServer(t, api.Options{Keys: map[string][]string{"k1": {"alice", "team"}, "k2": {"bob"}}})
	tests := []struct {
		name   string
		header []string
		status int
	}{
		{"NoKey", nil, 401},
		{"WrongKey", []string{"Authorization", "Bearer nope"}, 401},
		{"NotBearer", []string{"Authorization", "Basic azE6"}, 401},
		{"OK", []string{"Authorization", "Bearer k1"}, 200},
		{"LowercaseScheme", []string{"Authorization", "bearer k1"}, 200},
		{"OtherScope", []string{"Authorization", "Bearer k1", api.ScopeHeader, "team"}, 200},
		{"ForeignScope", []string{"Authorization", "Bearer k1", api.ScopeHeader, "bob"}, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := serve(s, "GET", "/v1/facts", nil, tt.header...)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			if w.Code != 200 {
				errorShape(t, w)
			}
			if w.Code == 401 && w.Header().Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
	// Probes and the document need no key.
	for _, p := range []string{"/healthz", "/readyz", "/openapi.json"} {
		if w := serve(s, "GET", p, nil); w.Code != 200 {
			t.Errorf("GET %s: %d", p, w.Code)
		}
	}
	// The metrics need a key, any of them.
	if w := serve(s, "GET", "/metrics", nil); w.Code != 401 {
		t.Errorf("GET /metrics without a key: %d, want 401", w.Code)
	} else {
		errorShape(t, w)
	}
	if w := serve(s, "GET", "/metrics", nil, "Authorization", "Bearer nope"); w.Code != 401 {
		t.Errorf("GET /metrics with a wrong key: %d, want 401", w.Code)
	}
	for _, key := range []string{"k1", "k2"} {
		if w := serve(s, "GET", "/metrics", nil, "Authorization", "Bearer "+key); w.Code != 200 || !strings.Contains(w.Body.String(), "graphmem_http_requests_total") {
			t.Errorf("GET /metrics with key %s: %d", key, w.Code)
		}
	}
}

// FuzzPostFacts feeds arbitrary bodies to POST /v1/facts: the answer is
// never a 5xx, an error is always the one error shape, and a success has
// one result per fact.
func FuzzPostFacts(f *testing.F) {
	seeds := []string{
		`{"facts":[{"subject":"db","predicate":"port","value":"5432","valid_from":"2023-03-01T10:00:00Z"}]}`,
		`{"facts":[{"subject":"Alice","predicate":"works_at","object":"Acme","object_type":"organization","source_kind":"user_explicit","confidence":0.9,"importance":7,"attributes":{"reason":"offer"}}]}`,
		`{"facts":[{"subject":"a","predicate":"likes","object":"b","value":"c"}]}`,
		`{"facts":[{"subject":"a","predicate":"p","value":"v","valid_from":"2024-01-01T00:00:00Z","valid_to":"2023-01-01T00:00:00Z"}]}`,
		`{"facts":[{"subject":"a","predicate":"p","value":"v","valid_to":"2024-01-01T00:00:00Z"}]}`,
		`{"facts":[{"subject":"a","predicate":"p","value":"v","cardinality":"one"}]}`,
		`{"facts":[{"subject":"a","predicate":"p","value":"v","cardinality":"three","source_kind":"rumour"}]}`,
		`{"facts":[{"subject":"a","predicate":"p","value":"v","valid_from":"yesterday"}]}`,
		`{"facts":[{"subject":"a","predicate":"p","value":"v","extra":1}]}`,
		`{"facts":[{"subject":1,"predicate":["p"],"value":{}}]}`,
		`{"facts":[null, 5, "x", []]}`,
		`{"facts":[]}`,
		`{"facts":{}}`,
		`{"facts":[{"subject":"a","predicate":"p","value":"v"}]} {"again":true}`,
		`{"facts":[{"subject":"\u0000","predicate":"!!","value":"\ud800"}]}`,
		`{"facts":[{"subject":"a","predicate":"p","value":"v","importance":1e400,"confidence":-1}]}`,
		`{"facts":[{"subject":"a","predicate":"p","episode_id":"nope","value":"v"}]}`,
		`{"Facts":[{"Subject":"a","Predicate":"p","Value":"v"}]}`,
		`{"facts":[{`,
		`[]`,
		``,
		`null`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	s := MustServer(f, api.Options{MaxBodyBytes: 1 << 16})
	f.Fuzz(func(t *testing.T, body []byte) {
		w := serve(s, "POST", "/v1/facts", body)
		switch {
		case w.Code >= 500:
			t.Fatalf("status %d for %q: %s", w.Code, body, w.Body)
		case w.Code == http.StatusOK:
			var in struct {
				Facts []json.RawMessage `json:"facts"`
			}
			_ = json.Unmarshal(body, &in)
			var out api.FactsResponse
			if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || len(out.Results) != len(in.Facts) {
				t.Fatalf("%d results for %d facts (%v): %s", len(out.Results), len(in.Facts), err, w.Body)
			}
		default:
			errorShape(t, w)
		}
	})
}

// FuzzFactsQuery feeds arbitrary query strings to GET /v1/facts.
func FuzzFactsQuery(f *testing.F) {
	for _, q := range []string{
		"subject=db&predicate=port",
		"subject=db&as_of=2023-06-01T00:00:00Z&known_at=2024-01-01T00:00:00%2B02:00",
		"include_history=true&limit=1000",
		"include_history=maybe",
		"limit=0", "limit=1001", "limit=-1", "limit=abc", "limit=99999999999999999999",
		"as_of=2023-13-45", "known_at=now",
		"cursor=%00%ff", "subject=%ff%fe", "object=" + strings.Repeat("x", 3000),
		"bogus=1", "subject=a&subject=b", "%zz", ";;&&==",
	} {
		f.Add(q)
	}
	s := MustServer(f, api.Options{})
	// A little data, so filters have something to find.
	serve(s, "POST", "/v1/facts", []byte(`{"facts":[{"subject":"db","predicate":"port","value":"5432","valid_from":"2023-03-01T10:00:00Z"},{"subject":"db","predicate":"port","value":"3307","valid_from":"2024-02-15T08:00:00Z"}]}`))
	f.Fuzz(func(t *testing.T, q string) {
		req := httptest.NewRequest("GET", "http://127.0.0.1:8080/v1/facts", nil)
		req.URL.RawQuery = q
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		switch {
		case w.Code >= 500:
			t.Fatalf("status %d for %q: %s", w.Code, q, w.Body)
		case w.Code == http.StatusOK:
			var out api.FactList
			if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
				t.Fatalf("%q: %v", q, err)
			}
		default:
			errorShape(t, w)
		}
	})
}

func TestImport_TooLarge(t *testing.T) {
	s := MustServer(t, api.Options{MaxImportBytes: 4 << 10})
	var body bytes.Buffer
	for i := 0; body.Len() < 16<<10; i++ {
		fmt.Fprintf(&body, `{"entity":{"id":"e%d","scope":"x","name":"entity %d","created_at":"2024-01-01T00:00:00Z","updated_at":"2024-01-01T00:00:00Z"}}`+"\n", i, i)
	}
	w := serve(s, "POST", "/v1/import", body.Bytes(), "Content-Type", api.NDJSON)
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	errorShape(t, w)
	// Under the limit, the same records import.
	small := bytes.Join(bytes.SplitAfter(body.Bytes(), []byte("\n"))[:10], nil)
	if w := serve(s, "POST", "/v1/import", small, "Content-Type", api.NDJSON); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"entities":10`) {
		t.Fatalf("small import: %d %s", w.Code, w.Body)
	}
}

// TestErrorShape_RoundTrips: an error answer reads back, through the
// contract a client decodes with, as the error the server had.
func TestErrorShape_RoundTrips(t *testing.T) {
	s := MustServer(t, api.Options{})
	w := serve(s, "POST", "/v1/facts", []byte(`{"facts":[{"subject":"x","predicate":"port"}]}`))
	var e *entity.Error
	if !errors.As(wire.Err(w.Code, w.Body.Bytes()), &e) || e.Code != entity.EINVALID || e.Fields["facts[0].object"] == "" {
		t.Errorf("round trip: %d %s → %+v", w.Code, w.Body, e)
	}
}

// TestImport_AllOrNothing: a refused import keeps nothing, however many
// valid records came before the bad one.
func TestImport_AllOrNothing(t *testing.T) {
	s := MustServer(t, api.Options{})
	var body bytes.Buffer
	for i := range 1200 {
		fmt.Fprintf(&body, `{"entity":{"id":"e%d","scope":"x","name":"entity %d","created_at":"2024-01-01T00:00:00Z","updated_at":"2024-01-01T00:00:00Z"}}`+"\n", i, i)
	}
	good := body.Len()
	body.WriteString(`{"entity":{"id":"e-last","scope":"x","name":""}}` + "\n")
	w := serve(s, "POST", "/v1/import", body.Bytes(), "Content-Type", api.NDJSON)
	if w.Code != http.StatusBadRequest || errorShape(t, w).Fields["line[1201].entity.name"] != "required" {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if w := serve(s, "GET", "/v1/export", nil); w.Code != http.StatusOK || w.Body.Len() != 0 {
		t.Fatalf("a refused import left %d bytes of records", w.Body.Len())
	}
	if w := serve(s, "POST", "/v1/import", body.Bytes()[:good], "Content-Type", api.NDJSON); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"entities":1200`) {
		t.Fatalf("the valid part: %d %s", w.Code, w.Body)
	}
}

// TestFacts_Aliases: the other names a fact gives its subject and object
// become their entities' aliases, and an alias for a value is refused by
// name.
func TestFacts_Aliases(t *testing.T) {
	s := MustServer(t, api.Options{})
	body := []byte(`{"facts": [{"subject": "Sam Okafor", "subject_aliases": ["Sam"], "predicate": "reports_to",
		"object": "Dana Whitfield", "object_aliases": ["Dana"], "valid_from": "2023-05-01"}]}`)
	if w := serve(s, "POST", "/v1/facts", body); w.Code != 200 {
		t.Fatalf("POST /v1/facts: %d %s", w.Code, w.Body)
	}
	for name, want := range map[string]string{"Sam": "Sam Okafor", "Dana": "Dana Whitfield"} {
		w := serve(s, "GET", "/v1/entities?name="+name, nil)
		var out struct {
			Items []struct {
				Entity struct {
					Name    string   `json:"name"`
					Aliases []string `json:"aliases"`
				} `json:"entity"`
			} `json:"items"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || len(out.Items) == 0 || out.Items[0].Entity.Name != want {
			t.Errorf("entity named %q: %d %s, want %s", name, w.Code, w.Body, want)
		}
	}
	w := serve(s, "POST", "/v1/facts", []byte(`{"facts": [{"subject": "x", "predicate": "port", "value": "1", "object_aliases": ["y"]}]}`))
	if e := errorShape(t, w); w.Code != 400 || e.Fields["facts[0].object_aliases"] == "" {
		t.Errorf("an alias for a value: %d %+v, want 400 naming facts[0].object_aliases", w.Code, e)
	}
	// An empty list is no alias: the document's rule.
	if w := serve(s, "POST", "/v1/facts", []byte(`{"facts": [{"subject": "x", "predicate": "port", "value": "1", "object_aliases": []}]}`)); w.Code != 200 {
		t.Errorf("an empty object_aliases with a value: %d %s, want 200", w.Code, w.Body)
	}
}
