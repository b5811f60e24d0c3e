package recall

import (
	"context"
	"log/slog"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// Hit counting runs off the request path: recall hands the ids it returned
// to a bounded channel and returns; one goroutine batches them and writes
// hits and last_accessed_at in one store transaction per scope, in place. When the
// channel is full the ids are dropped (counted by Dropped): a hit count is
// a ranking hint, and losing a few never justifies slowing an answer.
const (
	touchBuffer   = 1024
	touchBatch    = 512
	touchInterval = 200 * time.Millisecond
)

type touch struct {
	scope entity.Scope
	ids   []string
	at    time.Time
}

func (e *Engine) start() {
	e.once.Do(func() {
		e.touches = make(chan touch, touchBuffer)
		e.done = make(chan struct{})
		go e.writeTouches()
	})
}

// touch queues a hit for each fact id; it never blocks.
func (e *Engine) touch(scope entity.Scope, ids []string) {
	if len(ids) == 0 || e.NoHits || e.closed.Load() {
		return
	}
	e.start()
	defer func() { recover() }() // the channel closed under us: drop
	select {
	case e.touches <- touch{scope: scope, ids: ids, at: e.now()}:
	default:
		e.dropped.Add(uint64(len(ids)))
	}
}

// Dropped is how many fact hits were not counted because the queue was
// full.
func (e *Engine) Dropped() uint64 { return e.dropped.Load() }

// Close stops the hit writer after it has written what is queued.
func (e *Engine) Close() error {
	if e.closed.Swap(true) {
		return nil
	}
	e.start()
	close(e.touches)
	<-e.done
	return nil
}

func (e *Engine) writeTouches() {
	defer close(e.done)
	pending := map[entity.Scope]map[string]time.Time{}
	n := 0
	flush := func() {
		for scope, ids := range pending {
			if err := e.writeHits(scope, ids); err != nil {
				e.logger().Warn("recall: hit counts not written", "scope", scope, "err", err)
			}
		}
		pending, n = map[entity.Scope]map[string]time.Time{}, 0
	}
	t := time.NewTicker(touchInterval)
	defer t.Stop()
	for {
		select {
		case tc, ok := <-e.touches:
			if !ok {
				flush()
				return
			}
			m := pending[tc.scope]
			if m == nil {
				m = map[string]time.Time{}
				pending[tc.scope] = m
			}
			for _, id := range tc.ids {
				if _, dup := m[id]; !dup {
					n++
				}
				m[id] = tc.at
			}
			if n >= touchBatch {
				flush()
			}
		case <-t.C:
			if n > 0 {
				flush()
			}
		}
	}
}

// writeHits adds one hit per fact, however often it was returned within
// the batch, so a burst of identical queries does not inflate the count.
// The store writes hits in place (graph.Tx.TouchFacts): they are no change
// the search index or the vectors would read again.
func (e *Engine) writeHits(scope entity.Scope, ids map[string]time.Time) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return e.Store.Update(ctx, scope, func(tx graph.Tx) error { return tx.TouchFacts(ids) })
}

func (e *Engine) logger() *slog.Logger {
	if e.Logger != nil {
		return e.Logger
	}
	return slog.Default()
}
