package api_test

import (
	"strings"
	"testing"

	"github.com/graphmem/graphmem/api"
)

// In development mode a read of a scope that holds nothing (a mistyped
// X-Graphmem-Scope) says so in a header; a write to it is how it is
// created, answered as usual, and reads of it are quiet afterwards.
func TestDevelopmentMode_EmptyScopeWarns(t *testing.T) {
	s, _ := recallServer(t)
	const typo = "team:nonexistent"
	for _, r := range []struct{ method, target, body string }{
		{"GET", "/v1/facts", ""},
		{"GET", "/v1/entities/payments", ""},
		{"POST", "/v1/search", `{"query":"payments"}`},
		{"POST", "/v1/context", `{"query":"who is on call for payments?"}`},
	} {
		var body []byte
		if r.body != "" {
			body = []byte(r.body)
		}
		w := serve(s, r.method, r.target, body, api.ScopeHeader, typo)
		if got := w.Header().Get(api.WarningHeader); !strings.Contains(got, `scope "team:nonexistent" holds nothing yet`) {
			t.Errorf("%s %s: %d, warning %q", r.method, r.target, w.Code, got)
		}
	}
	w := serve(s, "POST", "/v1/facts", []byte(`{"facts":[{"subject":"payments","predicate":"on_call","object":"Alice"}]}`), api.ScopeHeader, typo)
	if w.Code != 200 || w.Header().Get(api.WarningHeader) != "" {
		t.Fatalf("a write creates the scope, unwarned: %d %q %s", w.Code, w.Header().Get(api.WarningHeader), w.Body)
	}
	for _, target := range []string{"/v1/facts", "/v1/ontology", "/v1/session"} {
		if got := serve(s, "GET", target, nil, api.ScopeHeader, typo).Header().Get(api.WarningHeader); got != "" {
			t.Errorf("GET %s of a scope that holds records: %q", target, got)
		}
	}
	if got := serve(s, "GET", "/v1/ontology", nil, api.ScopeHeader, "team:other").Header().Get(api.WarningHeader); got != "" {
		t.Errorf("the ontology is no scope's: %q", got)
	}
	// With API keys, a key names its scopes: nothing to mistype.
	k := MustServer(t, api.Options{Keys: map[string][]string{"0123456789abcdef0123": {"team:empty"}}})
	if got := serve(k, "GET", "/v1/facts", nil, "Authorization", "Bearer 0123456789abcdef0123").Header().Get(api.WarningHeader); got != "" {
		t.Errorf("with keys: %q", got)
	}
}
