package graph_test

import (
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

func TestLagMeter(t *testing.T) {
	var m graph.LagMeter
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pos := map[entity.Scope]uint64{"a": 10}
	at := func(s entity.Scope) uint64 { return pos[s] }
	if l := m.Lag(at, t0); l != (graph.Lag{}) {
		t.Errorf("before any read: %+v, want zero", l)
	}
	m.Read(map[entity.Scope]uint64{"a": 15, "b": 4}, t0)
	if l := m.Lag(at, t0.Add(3*time.Second)); l != (graph.Lag{Changes: 9, Seconds: 3}) {
		t.Errorf("behind since the first read: %+v", l)
	}
	pos["a"], pos["b"] = 15, 4
	m.Reached(t0)
	m.Read(map[entity.Scope]uint64{"a": 20, "b": 4}, t0.Add(time.Second))
	if l := m.Lag(at, t0.Add(2*time.Second)); l != (graph.Lag{Changes: 5, Seconds: 2}) {
		t.Errorf("a sync in progress: %+v", l)
	}
	pos["a"] = 20
	m.Reached(t0.Add(time.Second))
	if l := m.Lag(at, t0.Add(2*time.Second)); l != (graph.Lag{Seconds: 1}) {
		t.Errorf("caught up: %+v", l)
	}
}
