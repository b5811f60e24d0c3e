package api_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
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

	w = serve(s, "POST", "/v1/context", []byte(`{"query":"what port did the api use before","format":"markdown"}`))
	if w.Code != http.StatusOK {
		t.Fatalf("context: %d %s", w.Code, w.Body)
	}
	var cr api.ContextResponse
	if err := json.Unmarshal(w.Body.Bytes(), &cr); err != nil {
		t.Fatal(err)
	}
	if cr.Mode != "history" || !strings.Contains(cr.Context, `- [was; 2024-01-01 → 2024-03-01; superseded; agent_inferred] "api" port "8080" — text "the api listens on 8080"`) || cr.Tokens == 0 {
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
