package client_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/client"
	"github.com/graphmem/graphmem/entity"
)

// TestClient_RetriesWhatIsSafe: a 503 or 429 is waited out for a read and
// for an episode (it carries an idempotency key, the same on every try),
// never for another write; a call gives up after its retries with the
// server's error.
func TestClient_RetriesWhatIsSafe(t *testing.T) {
	var mu sync.Mutex
	tries := map[string]int{}
	keys := map[string]bool{}
	busy := 2 // answers 503, then 429, before serving
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		tries[r.Method+" "+r.URL.Path]++
		if r.URL.Path == "/v1/episodes" {
			var in wire.EpisodeInput
			_ = json.NewDecoder(r.Body).Decode(&in)
			keys[in.IdempotencyKey] = true
		}
		w.Header().Set("Content-Type", "application/json")
		if n := tries[r.Method+" "+r.URL.Path]; n <= busy {
			status := http.StatusServiceUnavailable
			if n == 2 {
				status = http.StatusTooManyRequests
			}
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"error":{"code":"unavailable","message":"busy"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"status":"ready","episode_id":"ep1","results":[]}`))
	}))
	defer srv.Close()
	ctx := context.Background()
	c := client.New(srv.URL)

	count := func(call string) int {
		mu.Lock()
		defer mu.Unlock()
		return tries[call]
	}
	if h, err := c.Ready(ctx); err != nil || h.Status != "ready" || count("GET /readyz") != 3 {
		t.Errorf("read: %+v %v after %d tries", h, err, count("GET /readyz"))
	}
	if _, _, err := c.Remember(ctx, wire.EpisodeInput{Content: "x"}); err != nil || count("POST /v1/episodes") != 3 || len(keys) != 1 {
		t.Errorf("episode: %v after %d tries with keys %v", err, count("POST /v1/episodes"), keys)
	}
	_, err := c.AddFacts(ctx, wire.FactInput{Subject: "a", Predicate: "p", Value: "v"})
	mustCode(t, err, entity.EUNAVAILABLE)
	if count("POST /v1/facts") != 1 {
		t.Errorf("a write was sent %d times", count("POST /v1/facts"))
	}
	mu.Lock()
	busy = 10
	mu.Unlock()
	_, err = client.New(srv.URL, client.WithRetries(1)).Session(ctx)
	mustCode(t, err, entity.EUNAVAILABLE)
	if count("GET /v1/session") != 2 {
		t.Errorf("one retry sent %d tries", count("GET /v1/session"))
	}
}
