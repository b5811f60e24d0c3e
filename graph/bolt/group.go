package bolt

import (
	"context"
	"fmt"
	"sync"

	"go.etcd.io/bbolt"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// Group commit. A commit costs two fsyncs whatever it holds, so Updates
// that arrive while another commits wait and then run together in one
// bbolt transaction: concurrent writers share the fsyncs. A writer that
// finds no commit under way runs at once, so a lone writer waits for
// nothing. One of the waiting writers (the leader) runs the group's
// transaction for all of them and hands the lead to the next waiting
// writer afterwards.
//
// Each function of a group runs on the group's transaction, one after the
// other, and sees what the earlier ones wrote (they commit together). When
// one fails (an error, a panic, its context ended), the transaction is rolled
// back and run again without it, and its own caller runs it alone, as an
// ordinary Update: the other functions may therefore run more than once,
// which graph.Store already allows.
type group struct {
	mu      sync.Mutex
	queue   []*call
	leading bool // a leader is running a group or about to
}

// call is one Update waiting in a group.
type call struct {
	ctx   context.Context
	scope entity.Scope
	fn    func(graph.Tx) error
	wake  chan bool // true: lead the next group; false: done
	err   error     // the group's commit error, when done
	alone bool      // failed in the group: run it alone
	last  uint64    // the highest change number fn's writes took
	stale []uint64  // the change entries fn's writes replaced
}

// maxGroup bounds the functions of one group transaction.
const maxGroup = 128

// update runs fn through the group commit.
func (s *Store) update(ctx context.Context, scope entity.Scope, fn func(graph.Tx) error) error {
	c := &call{ctx: ctx, scope: scope, fn: fn, wake: make(chan bool, 1)}
	g := &s.group
	g.mu.Lock()
	g.queue = append(g.queue, c)
	lead := !g.leading
	g.leading = true
	g.mu.Unlock()
	if !lead && !<-c.wake {
		return s.finish(c)
	}
	// Lead: take the waiting calls (c among them), commit them, then pass
	// the lead on to a call that arrived meanwhile.
	g.mu.Lock()
	n := min(len(g.queue), maxGroup)
	batch := g.queue[:n:n]
	g.queue = g.queue[n:]
	g.mu.Unlock()
	if len(batch) == 1 {
		defer s.handOver() // even if fn panics
		return s.updateAlone(ctx, scope, fn)
	}
	s.commitGroup(batch, c)
	s.handOver()
	return s.finish(c)
}

// finish returns a call's outcome, running it alone if it failed in its
// group.
func (s *Store) finish(c *call) error {
	if c.alone {
		return s.updateAlone(c.ctx, c.scope, c.fn)
	}
	return c.err
}

// handOver gives the lead to the first waiting call, or ends it.
func (s *Store) handOver() {
	g := &s.group
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.queue) == 0 {
		g.leading = false
		return
	}
	g.queue[0].wake <- true
}

// commitGroup commits the calls of batch in one transaction, leaving out
// (alone) those that fail, and wakes every call but self.
func (s *Store) commitGroup(batch []*call, self *call) {
	for len(batch) > 0 {
		failed := -1
		err := s.db.Update(func(btx *bbolt.Tx) error {
			for i, c := range batch {
				if err := runInGroup(btx, c); err != nil {
					failed = i
					return err
				}
			}
			return nil
		})
		if failed < 0 {
			if err == nil {
				s.committed()
			}
			for _, c := range batch {
				if err == nil {
					s.raiseHead(c.scope, c.last)
					s.sweepLater(c.stale)
				}
				c.err = translate("bolt.Update", err)
				if c != self {
					c.wake <- false
				}
			}
			return
		}
		c := batch[failed]
		c.alone = true
		if c != self {
			c.wake <- false
		}
		batch = append(batch[:failed:failed], batch[failed+1:]...)
	}
}

// runInGroup runs one call's function on the group's transaction; a panic
// counts as a failure (its caller, running alone, meets it again).
func runInGroup(btx *bbolt.Tx, c *call) (err error) {
	if err := begin(c.ctx, "bolt.Update", c.scope); err != nil {
		return err
	}
	t := newTx(btx, c.scope)
	defer t.end()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	if err := c.fn(t); err != nil {
		return err
	}
	c.last, c.stale = t.last, t.stale
	return c.ctx.Err()
}
