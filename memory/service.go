package memory

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/ontology"
)

// Service is graphmem's memory service. It is safe for concurrent use; all
// state lives in the store.
type Service struct {
	Store    graph.Store
	Ontology *ontology.Ontology
	// Now is the transaction-time clock, read once per operation.
	Now func() time.Time
	// NewID names new records; ids sort by creation time.
	NewID func() string
	// Changed, when set, is called with the scope after every committed
	// write so derived data (the search index) can catch up. It must not
	// block.
	Changed func(entity.Scope)
	// Extract, when set, turns episodes into facts (see queue.go); without
	// it episodes are stored as done, searchable but with no facts.
	Extract Extractor
	// FindFacts, when set, selects the facts of a forget by query (the
	// search layer: recall.Engine.FindFacts); without it such a forget is
	// refused.
	FindFacts FactFinder
	// Purged, when set, runs after a purge has committed and before Forget
	// returns: what keeps copies of records (the search index, vectors,
	// the store's free pages) drops those the purge deleted. Its error is
	// Forget's; the purge stays committed.
	Purged func(ctx context.Context) error
	// Journal, when set, is the folder where an import is committed before
	// it is written, so that a crash cannot leave half of it (see
	// journal.go); without it an import a crash cuts short stays partial.
	Journal string

	wakeup chan struct{}
	// waiters are WaitEpisode calls by episode id (see awaitEpisode).
	waitMu  sync.Mutex
	waiters map[string][]chan struct{}
}

// New returns a service over store with the default clock and ids.
func New(store graph.Store, onto *ontology.Ontology) *Service {
	if onto == nil {
		onto = ontology.Default()
	}
	return &Service{Store: store, Ontology: onto, Now: func() time.Time { return time.Now().UTC() }, NewID: NewID,
		wakeup: make(chan struct{}, 1)}
}

// NewID returns a UUIDv7: unique, and sorted by creation time.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

func (s *Service) now() time.Time { return s.Now().UTC().Truncate(time.Microsecond) }

func (s *Service) changed(scope entity.Scope) {
	if s.Changed != nil {
		s.Changed(scope)
	}
}

// wake nudges the episode workers; it never blocks.
func (s *Service) wake() {
	if s.wakeup == nil {
		return
	}
	select {
	case s.wakeup <- struct{}{}:
	default:
	}
}

func (s *Service) update(ctx context.Context, scope string, fn func(graph.Tx) error) error {
	if err := s.Store.Update(ctx, scope, fn); err != nil {
		return err
	}
	s.changed(scope)
	return nil
}
