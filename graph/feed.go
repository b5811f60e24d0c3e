package graph

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/graphmem/graphmem/entity"
)

// Behind lists, in name order, the scopes whose head (Store.Heads) is past
// the position a follower reached in them (at).
func Behind(heads map[entity.Scope]uint64, at func(entity.Scope) uint64) []entity.Scope {
	var out []entity.Scope
	for scope, head := range heads {
		if head > at(scope) {
			out = append(out, scope)
		}
	}
	slices.Sort(out)
	return out
}

// FollowSettle is how long Follow lets commits gather after a notify
// before it syncs: under many small concurrent writes (an episode is two
// or three commits) one sync then covers dozens of them, and the search
// index builds one segment instead of one per commit, which its merger
// would otherwise spend most of the CPU rewriting. Queries do not wait for
// it: they apply their own scope's pending writes (read your writes).
const FollowSettle = 100 * time.Millisecond

// Follow runs sync until ctx ends: at once, then FollowSettle after notify
// receives, and at least every interval (default 1 s). Errors go to onErr
// (when set) and are retried at the next tick. Both derived indexes follow
// the store this way.
func Follow(ctx context.Context, sync func(context.Context) error, notify <-chan struct{}, interval time.Duration, onErr func(error)) {
	if interval <= 0 {
		interval = time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := sync(ctx); err != nil && ctx.Err() == nil && onErr != nil {
			onErr(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-notify:
			select {
			case <-ctx.Done():
				return
			case <-time.After(FollowSettle):
			}
			// The sync reads the heads after this point, so it covers
			// every notify received so far.
			select {
			case <-notify:
			default:
			}
		case <-t.C:
		}
	}
}

// Lag is how far a follower of the store (the search index, the vector
// index) is behind it.
type Lag struct {
	// Changes is how many change numbers the follower has yet to apply,
	// summed over the scopes, against the heads it read last. Within one
	// scope of the embedded store, and of one Neo4j writer, numbers are
	// consecutive; where several writers share a store it is an upper
	// bound of the changes.
	Changes uint64 `json:"changes"`
	// Seconds is how long ago the follower read the heads it has since
	// applied in full: every change committed before then is applied.
	Seconds float64 `json:"seconds"`
}

// LagMeter keeps what a follower's Lag is computed from. The follower
// calls Read with the heads it reads at the start of each sync and
// Reached with the same time when it has applied them all.
type LagMeter struct {
	mu      sync.Mutex
	heads   map[entity.Scope]uint64
	first   time.Time // the first Read
	current time.Time // the heads read then are applied
}

// Read notes the heads the follower read at time at.
func (m *LagMeter) Read(heads map[entity.Scope]uint64, at time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.heads = heads
	if m.first.IsZero() {
		m.first = at
	}
}

// Reached notes that the heads read at time at are applied.
func (m *LagMeter) Reached(at time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if at.After(m.current) {
		m.current = at
	}
}

// Lag is the follower's lag at now, position giving how far it got in a
// scope. Before the first Read it is zero.
func (m *LagMeter) Lag(position func(entity.Scope) uint64, now time.Time) Lag {
	m.mu.Lock()
	defer m.mu.Unlock()
	var l Lag
	for scope, head := range m.heads {
		if at := position(scope); head > at {
			l.Changes += head - at
		}
	}
	since := m.current
	if since.IsZero() {
		since = m.first
	}
	if !since.IsZero() {
		l.Seconds = max(0, now.Sub(since).Seconds())
	}
	return l
}

// CacheStats is what a store's cache of records (graph/neo4j) reports:
// what write transactions (fact chains, name keys) and reads (the facts
// around entities, name keys) found in it or read from the store, and the
// bytes it holds, as it estimates them.
type CacheStats struct {
	WriteHits, WriteMisses uint64
	ReadHits, ReadMisses   uint64
	Bytes                  int64
}
