package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/api"
)

// openAPIDoc returns the served document, decoded.
func openAPIDoc(t *testing.T, s *api.Server) map[string]any {
	t.Helper()
	w := serve(s, "GET", "/openapi.json", nil)
	var doc map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// at walks a decoded JSON document by keys.
func at(t *testing.T, v any, path ...string) any {
	t.Helper()
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%v: not an object at %q", path, k)
		}
		v = m[k]
	}
	return v
}

func required(t *testing.T, doc map[string]any, schema string) []string {
	var out []string
	r, _ := at(t, doc, "components", "schemas", schema, "required").([]any)
	for _, x := range r {
		out = append(out, x.(string))
	}
	return out
}

// TestOpenAPI_TellsTheTruth checks what the document says against what
// the validator does.
func TestOpenAPI_TellsTheTruth(t *testing.T) {
	s, _ := recallServer(t)
	doc := openAPIDoc(t, s)

	t.Run("OptionalFieldsNotRequired", func(t *testing.T) {
		if r := required(t, doc, "ContextRequest"); !slices.Equal(r, []string{"query"}) {
			t.Errorf("ContextRequest requires %v, want only query", r)
		}
		if r := required(t, doc, "ForgetRequest"); len(r) != 0 {
			t.Errorf("ForgetRequest requires %v, want nothing (anyOf selects)", r)
		}
		if at(t, doc, "components", "schemas", "ForgetRequest", "anyOf") == nil {
			t.Error("ForgetRequest does not say at least one of fact_ids, entity, query, episode_id is needed")
		}
	})
	t.Run("EnumOnItems", func(t *testing.T) {
		types := at(t, doc, "components", "schemas", "SearchRequest", "properties", "types").(map[string]any)
		if types["enum"] != nil {
			t.Error("types: enum on the array")
		}
		if e, _ := at(t, types, "items", "enum").([]any); len(e) != 3 {
			t.Errorf("types.items.enum = %v", e)
		}
	})
	t.Run("EnumOnResponseFields", func(t *testing.T) {
		for _, schema := range []string{"SearchResponse", "ContextResponse"} {
			e, _ := at(t, doc, "components", "schemas", schema, "properties", "vectors", "enum").([]any)
			if fmt.Sprint(e) != "[used skipped off]" || !slices.Contains(required(t, doc, schema), "vectors") {
				t.Errorf("%s.vectors: enum %v, required %v", schema, e, required(t, doc, schema))
			}
		}
	})
	t.Run("SchemaNames", func(t *testing.T) {
		for name := range at(t, doc, "components", "schemas").(map[string]any) {
			if strings.ContainsAny(name, "./") {
				t.Errorf("schema name %q carries a Go package", name)
			}
		}
	})
	t.Run("EveryStatusDocumented", func(t *testing.T) {
		// A repeated idempotency key answers 200.
		if at(t, doc, "paths", "/v1/episodes", "post", "responses", "200") == nil {
			t.Error("POST /v1/episodes: 200 not documented")
		}
		if at(t, doc, "paths", "/v1/facts", "post", "responses", "415") == nil {
			t.Error("POST /v1/facts: 415 not documented")
		}
	})
	t.Run("NotBoth", func(t *testing.T) {
		not := at(t, doc, "components", "schemas", "FactInput", "allOf")
		if !strings.Contains(fmt.Sprint(not), "start_unknown") {
			t.Errorf("FactInput does not say start_unknown and valid_from exclude each other: %v", not)
		}
	})
	t.Run("ResponseByMode", func(t *testing.T) {
		// DELETE ?mode=forget answers counts, not the fact.
		s := at(t, doc, "paths", "/v1/facts/{id}", "delete", "responses", "200", "content", "application/json", "schema")
		if !strings.Contains(fmt.Sprint(s), "ForgetResult") {
			t.Errorf("DELETE /v1/facts/{id} answers %v", s)
		}
	})
	t.Run("Links", func(t *testing.T) {
		l := at(t, doc, "paths", "/v1/facts", "post", "responses", "200", "links", "fact")
		if l == nil || at(t, l, "operationId") != "getV1FactsBy_id" {
			t.Errorf("POST /v1/facts: link to the fact = %v", l)
		}
	})
}

// TestRequests_AcceptedAsDocumented sends requests the document calls
// valid and invalid.
func TestRequests_AcceptedAsDocumented(t *testing.T) {
	s, _ := recallServer(t)
	tests := []struct {
		name, method, target, body string
		status                     int
	}{
		{"ForgetWithoutDryRun", "POST", "/v1/forget", `{"fact_ids":["unknown"]}`, 404},
		{"ContextWithoutFocus", "POST", "/v1/context", `{"query":"q"}`, 200},
		{"IntegerWrittenAsFloat", "POST", "/v1/context", `{"query":"q","max_tokens":500.0}`, 200},
		{"FractionRefused", "POST", "/v1/context", `{"query":"q","max_tokens":500.5}`, 400},
		{"NullMeansDefault", "POST", "/v1/context", `{"query":"q","mode":null,"focus":null}`, 200},
		{"EmptyEnumRefused", "POST", "/v1/context", `{"query":"q","mode":""}`, 400},
		{"EmptyTimeRefused", "POST", "/v1/search", `{"query":"q","as_of":""}`, 400},
		{"EmptyTimeParamRefused", "GET", "/v1/facts?known_at=", "", 400},
		{"BooleanSpelledOut", "GET", "/v1/facts?include_history=1", "", 400},
		{"BlankName", "GET", "/v1/entities?name=%20", "", 400},
		{"ObjectAndValue", "POST", "/v1/facts", `{"facts":[{"subject":"a","predicate":"p","object":"b","value":"c"}]}`, 400},
		{"SubjectWithoutLetter", "POST", "/v1/facts", `{"facts":[{"subject":"!!","predicate":"p","value":"c"}]}`, 400},
		{"EmptyImport", "POST", "/v1/import", "", 400},
		{"AttributeTooLarge", "POST", "/v1/facts", `{"facts":[{"subject":"a","predicate":"p","value":"v","attributes":{"reason":"` + strings.Repeat("x", 9000) + `"}}]}`, 400},
		{"StartUnknownAndValidFrom", "POST", "/v1/facts", `{"facts":[{"subject":"a","predicate":"p","value":"v","valid_from":"2024-01-01T00:00:00Z","start_unknown":true}]}`, 400},
		{"StartUnknownFalseAndValidFrom", "POST", "/v1/facts", `{"facts":[{"subject":"a","predicate":"p","value":"v","valid_from":"2024-01-01T00:00:00Z","start_unknown":false}]}`, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body []byte
			if tt.body != "" {
				body = []byte(tt.body)
			}
			w := serve(s, tt.method, tt.target, body)
			if w.Code != tt.status {
				t.Fatalf("%s %s: %d, want %d: %s", tt.method, tt.target, w.Code, tt.status, w.Body)
			}
			if w.Code >= 400 {
				errorShape(t, w)
			}
		})
	}
}

func TestHTTPSemantics(t *testing.T) {
	s := MustServer(t, api.Options{})
	t.Run("BadCursor", func(t *testing.T) {
		for _, target := range []string{"/v1/facts?cursor=zzz", "/v1/episodes?cursor=zzz", "/v1/facts?cursor="} {
			w := serve(s, "GET", target, nil)
			if w.Code != http.StatusBadRequest {
				t.Fatalf("GET %s: %d, want 400: %s", target, w.Code, w.Body)
			}
			if e := errorShape(t, w); e.Fields["cursor"] == "" {
				t.Errorf("GET %s: error does not name cursor: %+v", target, e)
			}
		}
	})
	t.Run("CursorRoundTrip", func(t *testing.T) {
		body := `{"facts":[{"subject":"a","predicate":"likes","value":"x"},{"subject":"a","predicate":"likes","value":"y"},{"subject":"a","predicate":"likes","value":"z"}]}`
		if w := serve(s, "POST", "/v1/facts", []byte(body)); w.Code != 200 {
			t.Fatalf("facts: %d %s", w.Code, w.Body)
		}
		seen, target := 0, "/v1/facts?limit=2"
		for target != "" {
			w := serve(s, "GET", target, nil)
			var page api.FactList
			if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil || w.Code != 200 {
				t.Fatalf("GET %s: %d %s", target, w.Code, w.Body)
			}
			seen += len(page.Items)
			target = ""
			if page.NextCursor != nil {
				target = "/v1/facts?limit=2&cursor=" + *page.NextCursor
			}
		}
		if seen != 3 {
			t.Errorf("paged through %d facts, want 3", seen)
		}
	})
	t.Run("MethodNotAllowed", func(t *testing.T) {
		w := serve(s, "PUT", "/v1/facts", []byte(`{}`))
		if w.Code != http.StatusMethodNotAllowed {
			t.Fatalf("PUT /v1/facts: %d, want 405", w.Code)
		}
		if allow := w.Header().Get("Allow"); !strings.Contains(allow, "GET") || !strings.Contains(allow, "POST") {
			t.Errorf("Allow = %q", allow)
		}
		errorShape(t, w)
		if w := serve(s, "TRACE", "/healthz", nil); w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET" {
			t.Errorf("TRACE /healthz: %d Allow %q", w.Code, w.Header().Get("Allow"))
		}
	})
	t.Run("UnsupportedMediaType", func(t *testing.T) {
		for _, target := range []string{"/v1/facts", "/v1/import"} {
			w := serve(s, "POST", target, []byte(`a=b`), "Content-Type", "application/x-www-form-urlencoded")
			if w.Code != http.StatusUnsupportedMediaType {
				t.Fatalf("POST %s as a form: %d, want 415", target, w.Code)
			}
			if e := errorShape(t, w); e.Code != "unsupported_media_type" {
				t.Errorf("code %q", e.Code)
			}
		}
	})
	t.Run("MCPTransportErrorShape", func(t *testing.T) {
		// A handler that refuses in plain text, as the MCP transport does.
		s.MountMCP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "Not Acceptable: client must accept text/event-stream", http.StatusNotAcceptable)
		}))
		w := serve(s, "POST", api.MCPPath, []byte(`{}`))
		if w.Code != http.StatusNotAcceptable {
			t.Fatalf("status %d", w.Code)
		}
		if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("Content-Type %q", ct)
		}
		if e := errorShape(t, w); !strings.Contains(e.Message, "text/event-stream") {
			t.Errorf("message %q", e.Message)
		}
	})
}

// TestDevelopmentMode_HostCheck: without keys every route refuses a Host
// that is not loopback, so a page on another site cannot reach the server
// by rebinding its name to 127.0.0.1.
func TestDevelopmentMode_HostCheck(t *testing.T) {
	s := MustServer(t, api.Options{})
	for _, host := range []string{"evil.example:8080", "127.0.0.1.evil.example", "0.0.0.0:8080"} {
		for _, target := range []string{"/v1/facts", "/healthz", "/openapi.json"} {
			req := httptest.NewRequest("GET", target, nil)
			req.Host = host
			w := httptest.NewRecorder()
			s.Handler().ServeHTTP(w, req)
			if w.Code != http.StatusForbidden {
				t.Errorf("Host %s, GET %s: %d, want 403", host, target, w.Code)
			}
		}
	}
	for _, host := range []string{"localhost:8080", "127.0.0.1", "[::1]:9000", "LOCALHOST"} {
		req := httptest.NewRequest("GET", "/v1/facts", nil)
		req.Host = host
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			t.Errorf("Host %s: %d, want 200", host, w.Code)
		}
	}
	// With keys, names are for the operator (a proxy) to decide.
	keyed := MustServer(t, api.Options{Keys: map[string][]string{"a-long-enough-key": {"alice"}}})
	req := httptest.NewRequest("GET", "/v1/facts", nil)
	req.Host = "memory.example.com"
	req.Header.Set("Authorization", "Bearer a-long-enough-key")
	w := httptest.NewRecorder()
	keyed.Handler().ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		t.Errorf("keyed server, Host memory.example.com: %d", w.Code)
	}
}
