package bolt

import (
	"bytes"
	"context"
	"errors"
	"os"
	"time"

	"go.etcd.io/bbolt"

	"github.com/graphmem/graphmem/graph"
)

var _ graph.Scrubber = (*Store)(nil)

// view runs fn in a bbolt read transaction, counted in s.reads for Scrub.
// Every read of the package goes through it.
func (s *Store) view(fn func(*bbolt.Tx) error) error {
	s.reads.Add(1)
	defer s.reads.Add(-1)
	return s.db.View(fn)
}

// scrubRetry is how long Scrub waits before trying again while reads are
// open.
const scrubRetry = 2 * time.Millisecond

// scrubChunk bounds the bytes Scrub reads at a time.
const scrubChunk = 1 << 20

// Scrub overwrites with zeros every page of the file that bbolt holds free
// and that is not zero already, and syncs the file. bbolt writes a changed
// page to a new place and keeps the old one, bytes and all, on its free
// list until a later write reuses it: after a purge those pages still hold
// the purged text. Open scrubs too, for a purge a crash interrupted.
//
// A free page may still be read by a read transaction that began before the
// write that freed it, so Scrub overwrites only at a moment when no read
// transaction is open, holding the writer's lock so that none can begin on
// an older state; while reads are open it tries again, until ctx ends
// (EUNAVAILABLE). It reads every page header and each free page once.
func (s *Store) Scrub(ctx context.Context) error {
	const op = "bolt.Scrub"
	for {
		if err := translate(op, ctx.Err()); err != nil {
			return err
		}
		err := s.scrubOnce()
		if !errors.Is(err, errReadsOpen) {
			return translate(op, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(scrubRetry):
		}
	}
}

var errReadsOpen = errors.New("read transactions open")

func (s *Store) scrubOnce() error {
	btx, err := s.db.Begin(true)
	if err != nil {
		return err
	}
	// Nothing is written through bbolt: rolling back keeps the file as it
	// was, the pages overwritten excepted.
	defer btx.Rollback()
	// Beginning a write released the pages freed before the oldest open
	// read; a read beginning from now on sees the last commit, which
	// reaches no free page. So with no read open, no free page is read.
	if s.reads.Load() != 0 {
		return errReadsOpen
	}
	f, err := os.OpenFile(s.db.Path(), os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	size := s.db.Info().PageSize
	buf := make([]byte, scrubChunk)
	zero := make([]byte, size)
	wrote := false
	// scrubRun overwrites the pages of [from, to) that are not zero.
	scrubRun := func(from, to int) error {
		for from < to {
			n := min(to-from, len(buf)/size)
			b := buf[:n*size]
			if _, err := f.ReadAt(b, int64(from)*int64(size)); err != nil {
				return err
			}
			for i := range n {
				if bytes.Equal(b[i*size:(i+1)*size], zero) {
					continue
				}
				if _, err := f.WriteAt(zero, int64(from+i)*int64(size)); err != nil {
					return err
				}
				wrote = true
			}
			from += n
		}
		return nil
	}
	hwm := int(btx.Size() / int64(size))
	start := -1 // of the run of free pages being gathered
	for id := 2; id <= hwm; id++ {
		free := false
		if id < hwm {
			info, err := btx.Page(id)
			if err != nil {
				return err
			}
			free = info != nil && info.Type == "free"
		}
		switch {
		case free && start < 0:
			start = id
		case !free && start >= 0:
			if err := scrubRun(start, id); err != nil {
				return err
			}
			start = -1
		}
	}
	if !wrote {
		return nil
	}
	return f.Sync()
}
