package bolt

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/bbolt"
)

// The sweeper removes the change entries that later writes replaced (a
// fact rewritten to count a hit or to end it, a record deleted and written
// again), so the change log holds about one entry per record however often
// records are rewritten. Removing an entry at the moment it is replaced
// would cost a page write at a random place of the log per rewrite on the
// write path; the sweeper removes them in sorted batches when the store has
// been idle for sweepIdle, or at once when sweepMax are waiting. A replaced
// entry never becomes current again, so removing it late is safe; Changes
// passes over the ones still there. Entries waiting when the process dies
// stay in the file and are only passed over.
const (
	sweepIdle  = 200 * time.Millisecond
	sweepEvery = 250 * time.Millisecond
	sweepMax   = 1 << 16
)

type sweeper struct {
	mu        sync.Mutex
	waiting   []uint64
	lastWrite atomic.Int64 // unix nanoseconds of the last commit
	full      chan struct{}
	quit      chan struct{}
	done      sync.WaitGroup
	stopOnce  sync.Once
}

func (s *Store) startSweeper() {
	w := &s.sweep
	w.full, w.quit = make(chan struct{}, 1), make(chan struct{})
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		tick := time.NewTicker(sweepEvery)
		defer tick.Stop()
		for {
			select {
			case <-w.quit:
				return
			case <-w.full:
				s.sweepNow()
			case <-tick.C:
				if time.Since(time.Unix(0, w.lastWrite.Load())) >= sweepIdle {
					s.sweepNow()
				}
			}
		}
	}()
}

// stopSweeper stops the sweeper and removes what is waiting.
func (s *Store) stopSweeper() {
	w := &s.sweep
	w.stopOnce.Do(func() {
		close(w.quit)
		w.done.Wait()
		s.sweepNow()
	})
}

// sweepLater notes a commit and queues the entries it replaced.
func (s *Store) sweepLater(seqs []uint64) {
	w := &s.sweep
	w.lastWrite.Store(time.Now().UnixNano())
	if len(seqs) == 0 {
		return
	}
	w.mu.Lock()
	w.waiting = append(w.waiting, seqs...)
	n := len(w.waiting)
	w.mu.Unlock()
	if n >= sweepMax {
		select {
		case w.full <- struct{}{}:
		default:
		}
	}
}

// sweepNow removes the waiting entries in one transaction, in key order.
// On failure they are dropped: they stay in the log and are passed over.
func (s *Store) sweepNow() {
	w := &s.sweep
	w.mu.Lock()
	seqs := w.waiting
	w.waiting = nil
	w.mu.Unlock()
	if len(seqs) == 0 {
		return
	}
	slices.Sort(seqs)
	_ = s.db.Update(func(btx *bbolt.Tx) error {
		c := newTx(btx, "").bucket(bSeq).Cursor()
		for _, seq := range seqs {
			if k, _ := c.Seek(be64(seq)); k != nil && seqOf(k) == seq {
				if err := c.Delete(); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
