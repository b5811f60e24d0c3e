package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/graph"
)

// TestFollowersLag: /readyz tells how far each follower is behind the
// store, and /metrics has it as two gauges per follower, read when asked.
func TestFollowersLag(t *testing.T) {
	lag := graph.Lag{Changes: 1200, Seconds: 2.5}
	s := MustServer(t, api.Options{Followers: map[string]func() graph.Lag{"search_index": func() graph.Lag { return lag }}})

	w := serve(s, "GET", "/readyz", nil)
	var h api.Health
	if err := json.Unmarshal(w.Body.Bytes(), &h); err != nil || w.Code != 200 {
		t.Fatalf("readyz: %d %s", w.Code, w.Body)
	}
	if h.Status != "ready" || h.Lag["search_index"] != api.Lag(lag) {
		t.Errorf("readyz = %+v, want ready with lag %+v", h, lag)
	}

	lag = graph.Lag{Changes: 7, Seconds: 0.25}
	body := serve(s, "GET", "/metrics", nil).Body.String()
	for _, want := range []string{"graphmem_search_index_lag_changes 7\n", "graphmem_search_index_lag_seconds 0.25\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// TestWriteCacheMetrics: /metrics has the write cache's hits, misses and
// size, read when asked.
func TestWriteCacheMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	s := MustServer(t, api.Options{Registry: reg})
	hits := uint64(3)
	api.RegisterWriteCache(reg, func() graph.CacheStats {
		return graph.CacheStats{WriteHits: hits, WriteMisses: 5, ReadHits: 7, ReadMisses: 2, Bytes: 1 << 20}
	})
	hits = 40
	body := serve(s, "GET", "/metrics", nil).Body.String()
	for _, want := range []string{"graphmem_neo4j_write_cache_hits_total 40\n", "graphmem_neo4j_write_cache_misses_total 5\n",
		"graphmem_neo4j_write_cache_read_hits_total 7\n", "graphmem_neo4j_write_cache_read_misses_total 2\n",
		"graphmem_neo4j_write_cache_bytes 1.048576e+06\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
