package api

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// metrics are the server's Prometheus collectors.
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	inflight prometheus.Gauge
	facts    *prometheus.CounterVec
}

// latencyBuckets span the sub-millisecond reads of the embedded store to
// multi-second imports and waits.
var latencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

func newMetrics(reg prometheus.Registerer) *metrics {
	return &metrics{
		requests: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "graphmem_http_requests_total",
			Help: "HTTP requests answered, by method, route and status.",
		}, []string{"method", "route", "status"})),
		latency: register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "graphmem_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by method and route.",
			Buckets: latencyBuckets,
		}, []string{"method", "route"})),
		inflight: register(reg, prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "graphmem_http_requests_in_flight",
			Help: "HTTP requests being answered.",
		})),
		facts: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "graphmem_facts_ingested_total",
			Help: "Structured facts ingested over HTTP, by outcome (created, corroborated, superseded_previous, historical, blocked_by_tombstone...).",
		}, []string{"action"})),
	}
}

// registerLags registers, for each follower, its lag in changes and in
// seconds, read at every scrape.
func registerLags(reg prometheus.Registerer, followers map[string]func() graph.Lag) {
	for name, lag := range followers {
		register(reg, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "graphmem_" + name + "_lag_changes",
			Help: "Change numbers of the store the " + name + " has yet to apply, against the heads it read last.",
		}, func() float64 { return float64(lag().Changes) }))
		register(reg, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "graphmem_" + name + "_lag_seconds",
			Help: "Seconds since the " + name + " read the heads it has since applied in full: what was committed before is in it.",
		}, func() float64 { return lag().Seconds }))
	}
}

// RegisterWriteCache registers what a store's write cache (graph/neo4j)
// reports, read at every scrape: the chains and name keys write
// transactions found in it and read from the store, the facts around
// entities and name keys reads found in it and read from the store, and
// its size.
func RegisterWriteCache(reg prometheus.Registerer, stats func() graph.CacheStats) {
	counter := func(name, help string, v func(graph.CacheStats) uint64) {
		register(reg, prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "graphmem_neo4j_write_cache_" + name, Help: help},
			func() float64 { return float64(v(stats())) }))
	}
	counter("hits_total", "Fact chains and name keys that write transactions found in the Neo4j write cache.",
		func(s graph.CacheStats) uint64 { return s.WriteHits })
	counter("misses_total", "Fact chains and name keys that write transactions read from Neo4j, not held by the write cache.",
		func(s graph.CacheStats) uint64 { return s.WriteMisses })
	counter("read_hits_total", "Entities' facts around and name keys that reads (recall) found in the Neo4j write cache.",
		func(s graph.CacheStats) uint64 { return s.ReadHits })
	counter("read_misses_total", "Entities' facts around and name keys that reads (recall) read from Neo4j, not held by the write cache.",
		func(s graph.CacheStats) uint64 { return s.ReadMisses })
	register(reg, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "graphmem_neo4j_write_cache_bytes",
		Help: "Bytes the Neo4j write cache holds, as it estimates them (GRAPHMEM_NEO4J_WRITE_CACHE_MB bounds it).",
	}, func() float64 { return float64(stats().Bytes) }))
}

// register registers c, or returns the equal collector already registered
// (two servers may share a registry, e.g. in tests).
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if old, ok := are.ExistingCollector.(C); ok {
				return old
			}
		}
		panic(err)
	}
	return c
}

// InstrumentStore returns s with the latency of every store operation
// recorded in graphmem_store_duration_seconds{op, outcome} on reg.
//
// The wrapper hides optional interfaces s may implement; code looking for
// one should first call Unwrap on a store that has it.
func InstrumentStore(reg prometheus.Registerer, s graph.Store) graph.Store {
	h := register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "graphmem_store_duration_seconds",
		Help:    "Time spent in store operations (transactions include the work done inside them), by operation and outcome.",
		Buckets: latencyBuckets,
	}, []string{"op", "outcome"}))
	return &instrumentedStore{Store: s, h: h}
}

type instrumentedStore struct {
	graph.Store
	h *prometheus.HistogramVec
}

var _ graph.Store = (*instrumentedStore)(nil)

// Unwrap returns the store being measured.
func (s *instrumentedStore) Unwrap() graph.Store { return s.Store }

func (s *instrumentedStore) observe(op string, start time.Time, err error) {
	outcome := "ok"
	if err != nil {
		outcome = string(entity.ErrorCode(err))
	}
	s.h.WithLabelValues(op, outcome).Observe(time.Since(start).Seconds())
}

func (s *instrumentedStore) View(ctx context.Context, scope entity.Scope, fn func(graph.Tx) error) error {
	start := time.Now()
	err := s.Store.View(ctx, scope, fn)
	s.observe("view", start, err)
	return err
}

func (s *instrumentedStore) Update(ctx context.Context, scope entity.Scope, fn func(graph.Tx) error) error {
	start := time.Now()
	err := s.Store.Update(ctx, scope, fn)
	s.observe("update", start, err)
	return err
}

func (s *instrumentedStore) Changes(ctx context.Context, after uint64, limit int) ([]graph.Change, error) {
	start := time.Now()
	cs, err := s.Store.Changes(ctx, after, limit)
	s.observe("changes", start, err)
	return cs, err
}

func (s *instrumentedStore) ScopeChanges(ctx context.Context, scope entity.Scope, after uint64, limit int) ([]graph.Change, error) {
	start := time.Now()
	cs, err := s.Store.ScopeChanges(ctx, scope, after, limit)
	s.observe("scope_changes", start, err)
	return cs, err
}

func (s *instrumentedStore) Heads(ctx context.Context) (map[entity.Scope]uint64, error) {
	start := time.Now()
	hs, err := s.Store.Heads(ctx)
	s.observe("heads", start, err)
	return hs, err
}

func (s *instrumentedStore) DueEpisodes(ctx context.Context, now time.Time, limit int) ([]graph.EpisodeRef, error) {
	start := time.Now()
	eps, err := s.Store.DueEpisodes(ctx, now, limit)
	s.observe("due_episodes", start, err)
	return eps, err
}

func (s *instrumentedStore) Ping(ctx context.Context) error {
	start := time.Now()
	err := s.Store.Ping(ctx)
	s.observe("ping", start, err)
	return err
}
