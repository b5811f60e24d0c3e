package api_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/graph/bolt"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/recall"
	"github.com/graphmem/graphmem/search"
)

// recallServer is a server with recall routes over a fresh store and
// index; sync brings the index up to date.
func recallServer(t *testing.T) (s *api.Server, sync func()) {
	t.Helper()
	dir := t.TempDir()
	store, err := bolt.Open(filepath.Join(dir, "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := search.Open(filepath.Join(dir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	eng := &recall.Engine{Store: store, Index: idx}
	t.Cleanup(func() {
		eng.Close()
		idx.Close()
		store.Close()
	})
	s = api.New(api.Options{Service: memory.New(store, nil)})
	s.RegisterRecall(eng)
	return s, func() {
		if _, err := idx.Sync(t.Context(), store); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRecallRoutes(t *testing.T) {
	s, sync := recallServer(t)
	body := `{"facts":[{"subject":"api","predicate":"port","value":"8080","valid_from":"2024-01-01T00:00:00Z","text":"the api listens on 8080"},
		{"subject":"api","predicate":"port","value":"9090","valid_from":"2024-03-01T00:00:00Z","text":"the api listens on 9090"}]}`
	if w := serve(s, "POST", "/v1/facts", []byte(body)); w.Code != http.StatusOK {
		t.Fatalf("facts: %d %s", w.Code, w.Body)
	}
	sync()

	w := serve(s, "POST", "/v1/search", []byte(`{"query":"api port","include_history":true}`))
	if w.Code != http.StatusOK {
		t.Fatalf("search: %d %s", w.Code, w.Body)
	}
	var sr api.SearchResponse
	if err := json.Unmarshal(w.Body.Bytes(), &sr); err != nil || len(sr.Hits) < 2 {
		t.Fatalf("search answer: %v %s", err, w.Body)
	}
	for _, h := range sr.Hits {
		if h.Type == "fact" && (h.Fact == nil || h.Fact.Status == "" || h.Signals == nil) {
			t.Errorf("fact hit: %+v", h)
		}
	}
	if sr.Vectors != "off" || sr.VectorsSkipped != "" { // no embedding model
		t.Errorf("search says vectors %q (%q), want off", sr.Vectors, sr.VectorsSkipped)
	}

	w = serve(s, "POST", "/v1/context", []byte(`{"query":"what port did the api use before","format":"markdown"}`))
	if w.Code != http.StatusOK {
		t.Fatalf("context: %d %s", w.Code, w.Body)
	}
	var cr api.ContextResponse
	if err := json.Unmarshal(w.Body.Bytes(), &cr); err != nil {
		t.Fatal(err)
	}
	if cr.Mode != "history" || !strings.Contains(cr.Context, `- [was; 2024-01-01 → 2024-03-01; superseded; agent_inferred] "api" port "8080" — text "the api listens on 8080"`) || cr.Tokens == 0 || cr.Vectors != "off" {
		t.Errorf("context answer: %+v", cr)
	}
	for _, f := range cr.Facts {
		if f.Fact.Value == "8080" && f.Fact.Status != "superseded" {
			t.Errorf("8080 has status %q", f.Fact.Status)
		}
	}

	for _, bad := range []struct{ path, body, field string }{
		{"/v1/search", `{"query":""}`, "query"},
		{"/v1/search", `{"query":"x","limit":1000}`, "limit"},
		{"/v1/search", `{"query":"x","types":["fax"]}`, "types[0]"},
		{"/v1/search", `{"query":"x","as_of":"yesterday"}`, "as_of"},
		{"/v1/context", `{"query":"x","mode":"past"}`, "mode"},
		{"/v1/context", `{"query":"x","max_tokens":5}`, "max_tokens"},
		{"/v1/context", `{"query":"x","format":"html"}`, "format"},
		{"/v1/context", `{"query":"x","surprise":1}`, ""},
	} {
		w := serve(s, "POST", bad.path, []byte(bad.body))
		if w.Code != http.StatusBadRequest {
			t.Errorf("%s %s: status %d", bad.path, bad.body, w.Code)
			continue
		}
		e := errorShape(t, w)
		if _, ok := e.Fields[bad.field]; bad.field != "" && !ok {
			t.Errorf("%s %s: fields %v, want %s", bad.path, bad.body, e.Fields, bad.field)
		}
	}
}

// TestRecallRoutes_Unresolved: a name memory knows nothing about is listed
// as unresolved, with the close names as candidates, and is not answered
// with another entity's facts; a known name is not listed.
func TestRecallRoutes_Unresolved(t *testing.T) {
	s, sync := recallServer(t)
	body := `{"facts":[{"subject":"gateway-service","subject_type":"service","predicate":"uses_database","object":"orders-db","text":"gateway-service keeps its data in orders-db"},
		{"subject":"production database","subject_type":"service","predicate":"port","value":"3307","text":"the production database listens on port 3307"}]}`
	if w := serve(s, "POST", "/v1/facts", []byte(body)); w.Code != http.StatusOK {
		t.Fatalf("facts: %d %s", w.Code, w.Body)
	}
	sync()
	for _, tc := range []struct{ query, unresolved, candidate string }{
		{"which database does zebra-gateway use?", "zebra-gateway", "gateway-service"},
		{"what port does the staging database use?", "staging database", "production database"},
		{"which database does gateway-service use?", "", ""},
	} {
		for _, path := range []string{"/v1/search", "/v1/context"} {
			w := serve(s, "POST", path, []byte(`{"query":"`+tc.query+`"}`))
			if w.Code != http.StatusOK {
				t.Fatalf("%s: %d %s", path, w.Code, w.Body)
			}
			var res struct {
				Unresolved []api.NameLink `json:"unresolved"`
				Ambiguous  []api.NameLink `json:"ambiguous"`
				Hits       []api.SearchHit
				Facts      []api.ContextFact
				Context    string
			}
			if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil {
				t.Fatal(err)
			}
			if res.Unresolved == nil || res.Ambiguous == nil {
				t.Errorf("%s %q: unresolved and ambiguous must be lists: %s", path, tc.query, w.Body)
			}
			if tc.unresolved == "" {
				if len(res.Unresolved) != 0 {
					t.Errorf("%s %q: unresolved %+v, want none", path, tc.query, res.Unresolved)
				}
				continue
			}
			if len(res.Unresolved) != 1 || res.Unresolved[0].Name != tc.unresolved || !slices.Contains(res.Unresolved[0].Candidates, tc.candidate) {
				t.Errorf("%s %q: unresolved %+v, want %s (did you mean %s)", path, tc.query, res.Unresolved, tc.unresolved, tc.candidate)
			}
			if len(res.Facts) > 0 || slices.ContainsFunc(res.Hits, func(h api.SearchHit) bool { return h.Fact != nil }) {
				t.Errorf("%s %q: answered with another entity's facts: %s", path, tc.query, w.Body)
			}
			if path == "/v1/context" && !strings.Contains(res.Context, `memory holds nothing about "`+tc.unresolved+`"`) {
				t.Errorf("context %q does not say memory holds nothing about %s", res.Context, tc.unresolved)
			}
		}
	}
}
