package bolt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	bolterr "go.etcd.io/bbolt/errors"

	"go.etcd.io/bbolt"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

var _ graph.Store = (*Store)(nil)

// schemaVersion names the bucket layout; Open brings a file of an earlier
// layout to it (see migrate.go) and refuses one of a later layout instead
// of misreading it.
const schemaVersion = "2"

// Store is the embedded graph.Store. It is safe for concurrent use: reads
// run in parallel, writes are serialised by bbolt.
type Store struct {
	db    *bbolt.DB
	group group

	// heads holds each scope's latest change number (see graph.Store
	// Heads): read from the change log at Open, raised after each commit.
	headsMu sync.Mutex
	heads   map[entity.Scope]uint64

	sweep sweeper

	// reads counts the read transactions open or about to begin (see
	// view): Scrub overwrites free pages only when it is 0.
	reads atomic.Int64
	// trimmedAt is when trim last let go of the mapped pages (Unix ns).
	trimmedAt atomic.Int64
}

// Option configures Open.
type Option func(*bbolt.Options)

// WithTimeout bounds how long Open waits for the file lock held by another
// process (default 2s); 0 waits forever.
func WithTimeout(d time.Duration) Option {
	return func(o *bbolt.Options) { o.Timeout = d }
}

// initialMmap is how much of the file is mapped up front (address space,
// not memory): bbolt maps the file anew as it grows, and that waits for
// every open read transaction, so without room a search running while the
// file grows holds up the next commit, and every read behind it.
const initialMmap = 1 << 30

// Open opens or creates the store file at path, creating its folder.
// Returns EUNAVAILABLE if another process holds the file, EUNPROCESSABLE if
// it was written by an incompatible version.
func Open(path string, opts ...Option) (*Store, error) {
	const op = "bolt.Open"
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, op, err)
	}
	o := *bbolt.DefaultOptions
	o.Timeout = 2 * time.Second
	o.InitialMmapSize = initialMmap
	for _, fn := range opts {
		fn(&o)
	}
	o.NoSync = false // durability is part of the contract
	db, err := bbolt.Open(path, 0o600, &o)
	if err != nil {
		return nil, translate(op, err)
	}
	err = db.Update(func(btx *bbolt.Tx) error {
		info, err := btx.CreateBucketIfNotExists(bucketNames[bInfo])
		if err != nil {
			return err
		}
		switch v := string(info.Get([]byte("schema"))); v {
		case "", schemaVersion:
		case "1":
			if err := migrateV1(btx); err != nil {
				return fmt.Errorf("%s: bringing layout 1 to %s: %w", path, schemaVersion, err)
			}
		default:
			return entity.Errorf(entity.EUNPROCESSABLE, "%s: schema version %q, this build reads %q", path, v, schemaVersion)
		}
		for _, name := range bucketNames {
			if _, err := btx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return info.Put([]byte("schema"), []byte(schemaVersion))
	})
	if err != nil {
		db.Close()
		return nil, translate(op, err)
	}
	s := &Store{db: db, heads: map[entity.Scope]uint64{}}
	err = s.view(func(btx *bbolt.Tx) error {
		return btx.Bucket(bucketNames[bSeq]).ForEach(func(k, v []byte) error {
			scope, _, ok := splitScope(v[min(2, len(v)):])
			if len(k) != 8 || len(v) < 2 || !ok {
				return entity.Errorf(entity.EINTERNAL, "corrupt change entry %x", k)
			}
			s.heads[scope] = seqOf(k)
			return nil
		})
	})
	if err != nil {
		db.Close()
		return nil, translate(op, err)
	}
	// A purge committed just before a crash may have left its text in
	// pages freed since: overwrite them before anything reads the store.
	if err := s.Scrub(context.Background()); err != nil {
		db.Close()
		return nil, err
	}
	s.startSweeper()
	return s, nil
}

// Path returns the store file's path.
func (s *Store) Path() string { return s.db.Path() }

// Close waits for transactions in flight and closes the file. Closing twice
// is harmless.
func (s *Store) Close() error {
	s.stopSweeper()
	return translate("bolt.Close", s.db.Close())
}

// translate turns a bbolt or context error into an *entity.Error; errors
// that already are one pass unchanged.
func translate(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *entity.Error
	if errors.As(err, &e) {
		return err
	}
	switch {
	case errors.Is(err, bolterr.ErrDatabaseNotOpen), errors.Is(err, bolterr.ErrTimeout),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return entity.Wrap(entity.EUNAVAILABLE, op, err)
	case errors.Is(err, bolterr.ErrKeyTooLarge), errors.Is(err, bolterr.ErrValueTooLarge):
		return entity.Wrap(entity.ETOOLARGE, op, err)
	}
	return entity.Wrap(entity.EINTERNAL, op, err)
}

func begin(ctx context.Context, op string, scope entity.Scope) error {
	if !entity.ValidScope(scope) {
		return &entity.Error{Code: entity.EINVALID, Op: op, Message: fmt.Sprintf("invalid scope %q", scope)}
	}
	return translate(op, ctx.Err())
}

// View runs fn in a read-only transaction over scope.
func (s *Store) View(ctx context.Context, scope entity.Scope, fn func(graph.Tx) error) error {
	const op = "bolt.View"
	if err := begin(ctx, op, scope); err != nil {
		return err
	}
	var fnErr error
	err := s.view(func(btx *bbolt.Tx) error {
		t := newTx(btx, scope)
		defer t.end()
		fnErr = fn(t)
		return fnErr
	})
	if fnErr != nil {
		return fnErr // the caller's own error, as it returned it
	}
	return translate(op, err)
}

// Update runs fn in a read-write transaction over scope and commits when fn
// returns nil. An error or a panic in fn rolls back (the panic goes on).
// Concurrent Updates share commits (see group.go).
func (s *Store) Update(ctx context.Context, scope entity.Scope, fn func(graph.Tx) error) error {
	if err := begin(ctx, "bolt.Update", scope); err != nil {
		return err
	}
	return s.update(ctx, scope, fn)
}

// updateAlone is Update in a transaction of its own.
func (s *Store) updateAlone(ctx context.Context, scope entity.Scope, fn func(graph.Tx) error) error {
	const op = "bolt.Update"
	if err := begin(ctx, op, scope); err != nil {
		return err
	}
	var fnErr error
	var last uint64
	var stale []uint64
	err := s.db.Update(func(btx *bbolt.Tx) error {
		t := newTx(btx, scope)
		defer t.end()
		fnErr = fn(t)
		if fnErr == nil {
			// A context cancelled while fn ran still rolls back: the
			// caller has stopped waiting and must not assume a commit.
			fnErr = translate(op, ctx.Err())
		}
		last, stale = t.last, t.stale
		return fnErr
	})
	if fnErr != nil {
		return fnErr
	}
	if err == nil {
		s.raiseHead(scope, last)
		s.sweepLater(stale)
		s.committed()
	}
	return translate(op, err)
}

// raiseHead records a commit that gave scope's changes numbers up to last
// (0: none).
func (s *Store) raiseHead(scope entity.Scope, last uint64) {
	if last == 0 {
		return
	}
	s.headsMu.Lock()
	s.heads[scope] = max(s.heads[scope], last)
	s.headsMu.Unlock()
}

// Changes lists up to limit changes after sequence number after, across
// scopes, oldest first; limit <= 0 lists all of them. Writes are
// serialised, so numbers are in commit order across scopes too.
func (s *Store) Changes(ctx context.Context, after uint64, limit int) ([]graph.Change, error) {
	return s.changes(ctx, "bolt.Changes", nil, after, limit)
}

// ScopeChanges lists up to limit changes of scope after sequence number
// after, oldest first; limit <= 0 lists all of them. The log is kept in
// sequence order across scopes: the other scopes' changes after after are
// read and passed over, as are entries a later write replaced.
func (s *Store) ScopeChanges(ctx context.Context, scope entity.Scope, after uint64, limit int) ([]graph.Change, error) {
	return s.changes(ctx, "bolt.ScopeChanges", &scope, after, limit)
}

func (s *Store) changes(ctx context.Context, op string, scope *entity.Scope, after uint64, limit int) ([]graph.Change, error) {
	if err := translate(op, ctx.Err()); err != nil {
		return nil, err
	}
	var want []byte
	if scope != nil {
		want = append([]byte(*scope), sep)
	}
	var out []graph.Change
	err := s.trimmedView(func(btx *bbolt.Tx) error {
		out = nil
		t := newTx(btx, "")
		c := t.bucket(bSeq).Cursor()
		for k, v := c.Seek(be64(after + 1)); k != nil; k, v = c.Next() {
			if limit > 0 && len(out) >= limit {
				break
			}
			if len(k) != 8 || len(v) < 2 {
				return entity.Errorf(entity.EINTERNAL, "corrupt change entry %x", k)
			}
			if want != nil && !bytes.HasPrefix(v[2:], want) {
				continue
			}
			scope, id, ok := splitScope(v[2:])
			if !ok {
				return entity.Errorf(entity.EINTERNAL, "corrupt change entry %x", k)
			}
			if t.latestSeq(v[0], v[2:]) != seqOf(k) {
				continue // a later write of the record replaced this one
			}
			out = append(out, graph.Change{
				Seq: seqOf(k), Scope: scope, Kind: kindName(v[0]), ID: id, Deleted: v[1] == 1,
			})
		}
		return nil
	})
	return out, translate(op, err)
}

// Heads returns each scope's latest change number; see graph.Store.
func (s *Store) Heads(ctx context.Context) (map[entity.Scope]uint64, error) {
	if err := translate("bolt.Heads", ctx.Err()); err != nil {
		return nil, err
	}
	s.headsMu.Lock()
	defer s.headsMu.Unlock()
	return maps.Clone(s.heads), nil
}

// DueEpisodes lists queued or processing episodes due at now across scopes,
// oldest reference time first; limit <= 0 lists all of them.
//
// The due index holds only queued and processing episodes, so the scan
// passes over those backing off until later and nothing else.
func (s *Store) DueEpisodes(ctx context.Context, now time.Time, limit int) ([]graph.EpisodeRef, error) {
	const op = "bolt.DueEpisodes"
	if err := translate(op, ctx.Err()); err != nil {
		return nil, err
	}
	nowKey := sortTime(nil, now)
	var out []graph.EpisodeRef
	err := s.view(func(btx *bbolt.Tx) error {
		out = nil
		c := btx.Bucket(bucketNames[bDue]).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if limit > 0 && len(out) >= limit {
				break
			}
			if len(v) == 12 && bytes.Compare(v, nowKey) > 0 {
				continue // backing off
			}
			if len(k) < 12 {
				return entity.Errorf(entity.EINTERNAL, "corrupt due entry %x", k)
			}
			scope, id, ok := splitScope(k[12:])
			if !ok {
				return entity.Errorf(entity.EINTERNAL, "corrupt due entry %x", k)
			}
			out = append(out, graph.EpisodeRef{Scope: scope, ID: id})
		}
		return nil
	})
	return out, translate(op, err)
}

// Scopes lists every scope holding a record or a meta setting.
func (s *Store) Scopes(ctx context.Context) ([]entity.Scope, error) {
	const op = "bolt.Scopes"
	if err := translate(op, ctx.Err()); err != nil {
		return nil, err
	}
	var out []entity.Scope
	err := s.view(func(btx *bbolt.Tx) error {
		seen := map[string]bool{}
		out = nil
		for _, b := range dataBuckets {
			c := btx.Bucket(bucketNames[b]).Cursor()
			// Visit one key per scope: after a scope's first key, jump past
			// every key that starts with scope 0x00.
			for k, _ := c.First(); k != nil; {
				i := bytes.IndexByte(k, sep)
				if i < 0 {
					return entity.Errorf(entity.EINTERNAL, "corrupt key %x", k)
				}
				scope := string(k[:i])
				if !seen[scope] {
					seen[scope] = true
					out = append(out, scope)
				}
				k, _ = c.Seek(append([]byte(scope), sep+1))
			}
		}
		return nil
	})
	slices.Sort(out)
	return out, translate(op, err)
}

// Ping reports whether the store is open.
func (s *Store) Ping(ctx context.Context) error {
	const op = "bolt.Ping"
	if err := translate(op, ctx.Err()); err != nil {
		return err
	}
	return translate(op, s.view(func(*bbolt.Tx) error { return nil }))
}
