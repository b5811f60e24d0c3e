package bolt

import (
	"time"

	"go.etcd.io/bbolt"
)

// trimEvery is how often, at most, the process lets go of the file's
// mapped pages (dropMapped).
const trimEvery = 100 * time.Millisecond

// trim lets go of the file's mapped pages if trimEvery has passed since
// the last time; btx keeps the mapping in place. bbolt reads the file
// through a shared mapping, and every page a read touches, with its
// neighbours (the kernel maps the cached pages around a fault), stays
// counted in the process's resident memory: a bulk write (an import) and
// the index reading it back would leave the whole file there, however
// large. The pages stay in the page cache: mapping them again is a minor
// fault.
//
// Only the bulk paths trim: each commit (committed) and the change feed
// the indexes follow (trimmedView). A question's reads do not: they touch
// a few hundred pages, again and again, and trimming under them made
// every context request fault its pages back in (context p95 at 100k
// facts 9.2 ms without, 11.5 ms with; docs/design.md §1).
func (s *Store) trim(btx *bbolt.Tx) {
	now := time.Now().UnixNano()
	last := s.trimmedAt.Load()
	if now-last < int64(trimEvery) || !s.trimmedAt.CompareAndSwap(last, now) {
		return
	}
	dropMapped(s.db, btx)
}

// trimmedView runs fn like view, then trims.
func (s *Store) trimmedView(fn func(*bbolt.Tx) error) error {
	return s.view(func(btx *bbolt.Tx) error {
		defer s.trim(btx)
		return fn(btx)
	})
}

// committed runs after each commit, whose own reads went through the
// mapping too.
func (s *Store) committed() {
	s.trimmedView(func(*bbolt.Tx) error { return nil })
}
