package api_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/api"
)

// TestAuditActor: audit records name a key by its configured name, or by
// an HMAC with the server's secret — never by a plain hash of the key,
// which anyone holding a candidate key could recompute.
func TestAuditActor(t *testing.T) {
	const unnamed, named = "key-unnamed-0123456789", "key-named-0123456789"
	s := MustServer(t, api.Options{
		Keys:     map[string][]string{unnamed: {"alice"}, named: {"alice"}},
		KeyNames: map[string]string{named: "ops"}, ActorSecret: []byte("a server secret of enough length!"),
	})
	actor := func(key string) string {
		t.Helper()
		w := serve(s, "POST", "/v1/facts", []byte(`{"facts":[{"subject":"a","predicate":"likes","value":"`+key+`"}]}`), "Authorization", "Bearer "+key)
		var res api.FactsResponse
		if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil || w.Code != 200 {
			t.Fatalf("facts: %d %s", w.Code, w.Body)
		}
		body, _ := json.Marshal(map[string]any{"fact_ids": []string{res.Results[0].FactID}})
		if w := serve(s, "POST", "/v1/forget", body, "Authorization", "Bearer "+key); w.Code != 200 {
			t.Fatalf("forget: %d %s", w.Code, w.Body)
		}
		var audit api.AuditList
		w = serve(s, "GET", "/v1/audit?limit=1", nil, "Authorization", "Bearer "+key)
		if err := json.Unmarshal(w.Body.Bytes(), &audit); err != nil || len(audit.Items) != 1 {
			t.Fatalf("audit: %d %s", w.Code, w.Body)
		}
		return audit.Items[0].Actor
	}
	if a := actor(named); a != "key:ops" {
		t.Errorf("named key: actor %q, want key:ops", a)
	}
	a := actor(unnamed)
	sum := sha256.Sum256([]byte(unnamed))
	if !strings.HasPrefix(a, "key:") || len(a) != len("key:")+12 || strings.Contains(hex.EncodeToString(sum[:]), a[4:]) {
		t.Errorf("unnamed key: actor %q (a plain digest of the key is %x)", a, sum[:6])
	}
}

// TestAuth_RateLimit: repeated wrong keys from one address are answered
// 429 (with Retry-After); a valid key from that address (a proxy, a NAT
// shared with whoever sent them) is served all the same, and does not
// clear the count; other addresses are not affected, and requests without
// a key (which guess nothing) do not count.
func TestAuth_RateLimit(t *testing.T) {
	const key = "key-good-0123456789"
	s := MustServer(t, api.Options{Keys: map[string][]string{key: {"alice"}}, AuthFailures: 3, AuthFailureEvery: time.Hour})
	from := func(addr, auth string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "http://127.0.0.1:8080/v1/facts", nil)
		req.RemoteAddr = addr
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		return w
	}
	for range 10 {
		if w := from("192.0.2.1:999", ""); w.Code != http.StatusUnauthorized {
			t.Fatalf("no key: %d, want 401", w.Code)
		}
	}
	for i := range 3 {
		if w := from("192.0.2.1:1000", "wrong-key-0123456789"); w.Code != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d, want 401", i+1, w.Code)
		}
	}
	w := from("192.0.2.1:1001", "wrong-key-0123456789")
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "3600" {
		t.Fatalf("fourth failure: %d Retry-After %q, want 429 with Retry-After 3600 (one failure regained an hour)", w.Code, w.Header().Get("Retry-After"))
	}
	errorShape(t, w)
	for i := range 3 {
		if w := from("192.0.2.1:1002", key); w.Code != http.StatusOK {
			t.Fatalf("good key %d from the address over the limit: %d, want 200", i+1, w.Code)
		}
	}
	if w := from("192.0.2.1:1003", "wrong-key-0123456789"); w.Code != http.StatusTooManyRequests {
		t.Errorf("wrong key after the good ones: %d, want 429 still", w.Code)
	}
	if w := from("192.0.2.1:1004", ""); w.Code != http.StatusUnauthorized {
		t.Errorf("no key from the address over the limit: %d, want 401", w.Code)
	}
	if w := from("198.51.100.7:1000", key); w.Code != http.StatusOK {
		t.Errorf("good key from another address: %d", w.Code)
	}
}

// TestBodyTimeout: a body that stops arriving is answered 408 once the
// body timeout passes, rather than holding the connection.
func TestBodyTimeout(t *testing.T) {
	s := MustServer(t, api.Options{BodyTimeout: 200 * time.Millisecond})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _ = conn.Write([]byte("POST /v1/facts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"facts\":"))
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("status %d, want 408", resp.StatusCode)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("answered after %v", waited)
	}
	// A request without a body is not cut at the body timeout.
	req, _ := http.NewRequest("GET", srv.URL+"/v1/facts", nil)
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != 200 {
		t.Errorf("GET: %v %v", r, err)
	}
}
