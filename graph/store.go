package graph

import (
	"context"
	"time"

	"github.com/graphmem/graphmem/entity"
)

// Store persists entities, facts, episodes and tombstones, each in exactly
// one scope. Implementations must be safe for concurrent use.
//
// Every write gives the record a new change sequence number, unique in the
// store and increasing within its scope in commit order; a write that
// starts after another has committed gets a higher number, in any scope.
// ScopeChanges lists a scope's changes so derived data (the search index,
// replicas) can catch up. A committed Update is durable: it survives a
// crash of the process.
type Store interface {
	// View runs fn in a read-only transaction over one scope.
	View(ctx context.Context, scope entity.Scope, fn func(Tx) error) error

	// Update runs fn in a read-write transaction over one scope and commits
	// when fn returns nil; an error or panic rolls it back. fn may run more
	// than once (an adapter may retry a transient failure), so it must have
	// no effect outside tx until Update returns.
	// Returns EUNAVAILABLE if the store cannot be reached.
	Update(ctx context.Context, scope entity.Scope, fn func(Tx) error) error

	// Changes returns up to limit changes with a sequence number above
	// after, in sequence order, across all scopes. A record changed several
	// times may be listed once, at its latest sequence. Writers of different
	// scopes may commit in another order than their numbers (Neo4j), so a
	// reader tailing the whole store this way can miss a change: tail each
	// scope with ScopeChanges instead.
	Changes(ctx context.Context, after uint64, limit int) ([]Change, error)

	// ScopeChanges is Changes within one scope (limit <= 0: all of them).
	// It lists no part of a commit without the whole and, within a scope,
	// numbers are given in commit order, so a reader that tails a scope
	// from the last number it read never misses a change.
	ScopeChanges(ctx context.Context, scope entity.Scope, after uint64, limit int) ([]Change, error)

	// Heads returns the head of every scope that has had a change: a
	// number at least as high as that of the scope's latest committed
	// change, and no higher than the number of any change it has yet to
	// commit. A reader that has read a scope's changes up to its head has
	// read all it committed before Heads was called.
	Heads(ctx context.Context) (map[entity.Scope]uint64, error)

	// DueEpisodes returns up to limit episodes, across all scopes, that are
	// queued or processing and due (NextAttemptAt unset or not after now),
	// oldest reference time first.
	DueEpisodes(ctx context.Context, now time.Time, limit int) ([]EpisodeRef, error)

	// Scopes lists every scope that holds a record.
	Scopes(ctx context.Context) ([]entity.Scope, error)

	// Ping reports whether the store answers; EUNAVAILABLE if not.
	Ping(ctx context.Context) error

	// Close releases the store. Transactions in flight finish first.
	Close() error
}

// Tx is a transaction bound to one scope: nothing outside that scope can be
// read or written through it. A record of another scope is ENOTFOUND.
// Lists are ordered by id (ids sort by creation time) and paged with an
// opaque cursor: pass the returned cursor to get the next page; "" means no
// more.
type Tx interface {
	// Entity returns ENOTFOUND if the scope has no entity id.
	Entity(id string) (entity.Entity, error)
	// EntitiesByKey maps each normalised name (entity.Normalize) to the
	// entities whose name or alias has that key.
	EntitiesByKey(keys []string) (map[string][]entity.Entity, error)
	// EntitiesByPrefix returns up to limit entities with a name or alias key
	// starting with prefix.
	EntitiesByPrefix(prefix string, limit int) ([]entity.Entity, error)
	Entities(cursor string, limit int) ([]entity.Entity, string, error)
	// PutEntities creates or replaces entities by id.
	PutEntities(es []entity.Entity) error
	DeleteEntity(id string) error

	// Fact returns ENOTFOUND if the scope has no fact id.
	Fact(id string) (entity.Fact, error)
	// Chains returns every fact — history and retracted ones included — of
	// each (subject, predicate).
	Chains(keys []ChainKey) (map[ChainKey][]entity.Fact, error)
	// FactsOf returns up to limit facts whose subject or object is the
	// entity, every status included.
	FactsOf(entityID string, limit int) ([]entity.Fact, error)
	// FactsAround returns, for each entity id, the facts that the walk
	// reads around it (see Around): newest first, filtered in the store.
	// An entity with no such fact has no key.
	FactsAround(entityIDs []string, a Around) (map[string][]entity.Fact, error)
	// Facts lists facts matching the filter, every status included.
	Facts(f FactFilter) ([]entity.Fact, string, error)
	// PutFacts creates or replaces facts by id, with their indexes.
	PutFacts(fs []entity.Fact) error
	// TouchFacts counts one hit on each fact among the keys of hits and
	// raises its last access (LastAccessedAt) to the time given, never
	// lowering it; ids not stored are skipped. A hit is a ranking hint no
	// follower mirrors, so it is written in place: the fact keeps its
	// change number and no change is listed.
	TouchFacts(hits map[string]time.Time) error
	DeleteFact(id string) error

	// Episode returns ENOTFOUND if the scope has no episode id.
	Episode(id string) (entity.Episode, error)
	// EpisodeByKey finds an episode by idempotency key; ENOTFOUND if none.
	EpisodeByKey(key string) (entity.Episode, error)
	// Episodes lists episodes, all of them or those with one status.
	Episodes(status string, cursor string, limit int) ([]entity.Episode, string, error)
	PutEpisode(e entity.Episode) error
	DeleteEpisode(id string) error

	// Tombstones returns the tombstones among the given fingerprints.
	Tombstones(fingerprints []string) (map[string]entity.Tombstone, error)
	ListTombstones(cursor string, limit int) ([]entity.Tombstone, string, error)
	PutTombstone(t entity.Tombstone) error

	// Meta reads a small scope-level setting (e.g. a predicate's remembered
	// cardinality hint); ok is false if unset.
	Meta(key string) (value string, ok bool, err error)
	PutMeta(key, value string) error
}

// ChainKey names a chain: the facts of one subject and predicate.
type ChainKey struct {
	SubjectID string
	Predicate string
}

// FactFilter selects facts; empty fields match everything.
type FactFilter struct {
	SubjectID string
	Predicate string
	ObjectID  string
	Value     string // the literal object, compared after entity.Normalize
	Cursor    string
	Limit     int
}

// Record kinds in a Change.
const (
	KindFact      = "fact"
	KindEntity    = "entity"
	KindEpisode   = "episode"
	KindTombstone = "tombstone"
)

// Change says that a record was written or deleted.
type Change struct {
	Seq     uint64
	Scope   entity.Scope
	Kind    string
	ID      string
	Deleted bool
}

// EpisodeRef names an episode across scopes.
type EpisodeRef struct {
	Scope entity.Scope
	ID    string
}
