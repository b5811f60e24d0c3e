package neo4j

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	neo "github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"

	"github.com/graphmem/graphmem/cypher"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// Config says how to reach Neo4j.
type Config struct {
	// URI is the Bolt address: bolt://host:7687 for one server,
	// neo4j://host:7687 (or neo4j+s://) for a cluster or Aura.
	URI string
	// User and Password; an empty User connects without authentication.
	User     string
	Password string
	// Database is the database name; empty means the server's default.
	Database string
	// RetryTime bounds how long a transaction is retried on transient
	// failures before Update or View gives up with EUNAVAILABLE (default
	// 5 s, so callers can answer 503 quickly during an outage).
	RetryTime time.Duration
	// WriteCacheMB bounds the write transactions' cache of fact chains and
	// name keys (see writeCache): 0 means DefaultWriteCacheMB, a negative
	// value turns it off.
	WriteCacheMB int
	// Writers bounds this Store's write transactions running at once; the
	// others wait in the Store, in no particular order, instead of
	// contending inside Neo4j: 0 means DefaultWriters, a negative value
	// sets no bound.
	Writers int
}

// DefaultWriters is Config.Writers when unset: one more than the cores
// the process uses, so a write is ready whenever one commits. On the
// bench's two cores, eight writers at once cost Neo4j's workers 10–28 %
// more CPU a fact than one writer did, three no more than 3 %
// (docs/benchmarks.md).
func DefaultWriters() int { return runtime.GOMAXPROCS(0) + 1 }

// DefaultWriteCacheMB is Config.WriteCacheMB when unset.
const DefaultWriteCacheMB = 256

// DefaultRetryTime is Config.RetryTime when unset.
const DefaultRetryTime = 5 * time.Second

// Store is a graph.Store on Neo4j. It is safe for concurrent use.
type Store struct {
	driver    neo.DriverWithContext
	database  string
	bookmarks neo.BookmarkManager

	// retryTime bounds the retries of a read (Config.RetryTime), which the
	// driver does not retry for us (see readRetrying).
	retryTime time.Duration

	// cache holds chains and name keys for write transactions.
	cache *writeCache
	// writers holds a token per write transaction running (Config.Writers);
	// nil: no bound.
	writers chan struct{}

	mu     sync.RWMutex // held shared by every operation, exclusively by Close
	closed bool

	// schemaOK is false after the connection to Neo4j was lost: the server
	// may have come back with another (even an empty) database, so the
	// schema is applied again, idempotently, before the next operation.
	schemaOK atomic.Bool
	schemaMu sync.Mutex
	// schemaFail is the last failure to apply the schema because Neo4j did
	// not answer, and when: for a moment after it, callers get it at once
	// instead of each waiting out the retries again (see ensureSchema).
	schemaFail   error
	schemaFailAt time.Time

	// Change numbers reserved for this Store: next … end-1 (see draw).
	seqMu     sync.Mutex
	seqNext   uint64
	seqEnd    uint64
	seqBlocks atomic.Int64 // blocks reserved so far
}

// seqBlock is how many change numbers a Store reserves at a time.
const seqBlock = 4096

// reserve reserves size change numbers above after for this Store in a
// transaction of its own and returns base: the numbers are base+1 … base+size.
// It runs inside a caller's operation, so it neither waits for Close nor
// checks the schema again.
func (s *Store) reserve(ctx context.Context, size, after uint64) (uint64, error) {
	sess := s.session(ctx, neo.AccessModeWrite)
	defer sess.Close(ctx)
	base, err := sess.ExecuteWrite(ctx, func(mtx neo.ManagedTransaction) (any, error) {
		res, err := mtx.Run(ctx, stmtSeqReserve, map[string]any{"n": int64(size), "above": int64(after)})
		if err != nil {
			return nil, err
		}
		rec, err := res.Single(ctx)
		if err != nil {
			return nil, err
		}
		return asInt(rec.Values[0]), nil
	})
	if err != nil {
		return 0, translate("neo4j.reserve", s.observe(err))
	}
	return uint64(base.(int64)), nil
}

// counterName names the change counter of a scope.
func counterName(scope entity.Scope) string { return "changes:" + scope }

// draw returns the first of n change numbers, all above after (the
// scope's head), for a write transaction holding its scope's lock. The
// numbers come from a block reserved for this Store in a short transaction
// of its own (seq_reserve.cypher), so writers of different scopes never
// wait for each other: within a scope, each writer takes numbers above the
// head the last one left under the scope's lock, which keeps them in commit
// order even when several Stores (replicas) write to one scope.
func (s *Store) draw(ctx context.Context, n, after uint64) (uint64, error) {
	s.seqMu.Lock()
	defer s.seqMu.Unlock()
	if s.seqNext <= after {
		s.seqNext = after + 1
	}
	if s.seqNext+n > s.seqEnd {
		size := max(n, seqBlock)
		base, err := s.reserve(ctx, size, after)
		if err != nil {
			return 0, err
		}
		s.seqNext, s.seqEnd = base+1, base+1+size
		s.seqBlocks.Add(1)
	}
	first := s.seqNext
	s.seqNext += n
	return first, nil
}

var _ graph.Store = (*Store)(nil)

// Open connects to Neo4j, checks that it answers and applies the schema
// (constraints, indexes and the change counter), which is idempotent.
// Returns EINVALID for a malformed configuration and EUNAVAILABLE if Neo4j
// cannot be reached.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	const op = "neo4j.Open"
	if cfg.URI == "" {
		return nil, &entity.Error{Code: entity.EINVALID, Op: op, Message: "neo4j: URI is required"}
	}
	auth := neo.NoAuth()
	if cfg.User != "" {
		auth = neo.BasicAuth(cfg.User, cfg.Password, "")
	}
	retry := cfg.RetryTime
	if retry <= 0 {
		retry = DefaultRetryTime
	}
	drv, err := neo.NewDriverWithContext(cfg.URI, auth, func(c *config.Config) {
		c.MaxTransactionRetryTime = retry
		c.ConnectionAcquisitionTimeout = retry
		c.SocketConnectTimeout = retry
	})
	if err != nil {
		return nil, &entity.Error{Code: entity.EINVALID, Op: op, Message: err.Error(), Err: err}
	}
	s := &Store{
		driver:    drv,
		database:  cfg.Database,
		bookmarks: neo.NewBookmarkManager(neo.BookmarkManagerConfig{}),
		retryTime: retry,
	}
	switch {
	case cfg.Writers == 0:
		s.writers = make(chan struct{}, DefaultWriters())
	case cfg.Writers > 0:
		s.writers = make(chan struct{}, cfg.Writers)
	}
	switch {
	case cfg.WriteCacheMB == 0:
		s.cache = newWriteCache(DefaultWriteCacheMB)
	case cfg.WriteCacheMB > 0:
		s.cache = newWriteCache(cfg.WriteCacheMB)
	}
	if err := drv.VerifyConnectivity(ctx); err != nil {
		_ = drv.Close(ctx)
		return nil, translate(op, err)
	}
	if err := s.ensureSchema(ctx); err != nil {
		_ = drv.Close(ctx)
		return nil, err
	}
	return s, nil
}

// ensureSchema applies the schema unless it is known to be in place. Two
// stores starting together may race to create the same index, so a failed
// attempt is retried.
func (s *Store) ensureSchema(ctx context.Context) error {
	if s.schemaOK.Load() {
		return nil
	}
	s.schemaMu.Lock()
	defer s.schemaMu.Unlock()
	if s.schemaOK.Load() {
		return nil
	}
	// During an outage every operation would otherwise queue here and wait
	// out a full round of retries in turn, long after the first one failed.
	if s.schemaFail != nil && time.Since(s.schemaFailAt) < schemaFailHold {
		return s.schemaFail
	}
	var err error
	for range 3 {
		if err = s.applySchema(ctx); err == nil {
			s.schemaOK.Store(true)
			s.schemaFail = nil
			return nil
		}
		if entity.ErrorCode(err) == entity.EUNAVAILABLE || ctx.Err() != nil {
			break
		}
	}
	if entity.ErrorCode(err) == entity.EUNAVAILABLE {
		s.schemaFail, s.schemaFailAt = err, time.Now()
	}
	return err
}

// schemaFailHold is how long a failure to reach Neo4j while applying the
// schema is answered at once to the operations that follow.
const schemaFailHold = time.Second

// observe notes a failure: a lost connection makes the next operation
// check the schema first.
func (s *Store) observe(err error) error {
	if err != nil && lostConnection(err) {
		s.schemaOK.Store(false)
	}
	return err
}

// applySchema runs schema.cypher, one statement per transaction (Neo4j does
// not mix schema and data changes in one transaction), then creates the
// change counter if it is missing.
func (s *Store) applySchema(ctx context.Context) error {
	stmts, err := cypher.Statements("schema.cypher")
	if err != nil {
		return entity.Wrap(entity.EINTERNAL, "neo4j.schema", err)
	}
	return s.runEach(ctx, "neo4j.schema", append(stmts, stmtCounterInit))
}

// runEach runs each statement in its own write transaction.
func (s *Store) runEach(ctx context.Context, op string, stmts []string) error {
	sess := s.session(ctx, neo.AccessModeWrite)
	defer sess.Close(ctx)
	for _, stmt := range stmts {
		_, err := sess.ExecuteWrite(ctx, func(tx neo.ManagedTransaction) (any, error) {
			res, err := tx.Run(ctx, stmt, nil)
			if err != nil {
				return nil, err
			}
			return res.Consume(ctx)
		})
		if err != nil {
			return translate(op, err)
		}
	}
	return nil
}

func (s *Store) session(ctx context.Context, mode neo.AccessMode) neo.SessionWithContext {
	return s.driver.NewSession(ctx, neo.SessionConfig{
		AccessMode:      mode,
		DatabaseName:    s.database,
		BookmarkManager: s.bookmarks,
		// Every result is read whole (Collect), so it comes in one
		// message stream rather than a round trip per 1,000 records.
		FetchSize: neo.FetchAll,
	})
}

// enter marks an operation in flight; Close waits for it.
func (s *Store) enter(op string) error {
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return &entity.Error{Code: entity.EUNAVAILABLE, Op: op, Message: "store closed"}
	}
	return nil
}

func (s *Store) leave() { s.mu.RUnlock() }

// View runs fn in a read transaction over scope.
func (s *Store) View(ctx context.Context, scope entity.Scope, fn func(graph.Tx) error) error {
	return s.run(ctx, "neo4j.View", scope, false, fn)
}

// Update runs fn in a write transaction over scope; see graph.Store.
func (s *Store) Update(ctx context.Context, scope entity.Scope, fn func(graph.Tx) error) error {
	return s.run(ctx, "neo4j.Update", scope, true, fn)
}

// txPanic carries a panic of the caller's function out of the driver's
// transaction function, which rolls back on the error, to be re-raised.
type txPanic struct{ value any }

func (p *txPanic) Error() string { return fmt.Sprintf("panic in transaction: %v", p.value) }

func (s *Store) run(ctx context.Context, op string, scope entity.Scope, write bool, fn func(graph.Tx) error) error {
	if !entity.ValidScope(scope) {
		return &entity.Error{Code: entity.EINVALID, Op: op, Message: fmt.Sprintf("invalid scope %q", scope)}
	}
	if err := ctx.Err(); err != nil {
		return translate(op, err)
	}
	if err := s.enter(op); err != nil {
		return err
	}
	defer s.leave()
	if err := s.ensureSchema(ctx); err != nil {
		return err
	}

	var (
		panicked *txPanic
		fnErr    error // what fn returned on the last attempt
		last     *tx   // the last attempt
	)
	cached := write && s.cache.on()
	work := func(r runner) (result any, err error) {
		t := &tx{ctx: ctx, run: r, scope: scope, writable: write, store: s}
		last = t
		defer func() {
			if r := recover(); r != nil {
				panicked = &txPanic{value: r}
				err = panicked
			}
		}()
		fnErr = t.do(op, fn)
		return nil, t.forDriver(fnErr)
	}
	var err error
	if write {
		if cached {
			// This Store's writers of the scope take turns here rather
			// than at the scope's lock, so each finds the cache as the
			// last one left it (see writeCache).
			w := s.cache.writer(scope)
			w.Lock()
			defer w.Unlock()
		}
		// After the scope's turn: a writer waiting for another of its
		// scope holds no token.
		if err := s.enterWriters(ctx); err != nil {
			return translate(op, err)
		}
		sess := s.session(ctx, neo.AccessModeWrite)
		defer sess.Close(ctx)
		func() {
			defer s.leaveWriters()
			_, err = sess.ExecuteWrite(ctx, func(mtx neo.ManagedTransaction) (any, error) { return work(mtx) })
		}()
		if cached {
			s.ended(scope, last, err)
		}
	} else {
		err = s.readRetrying(ctx, func(r runner) error { _, err := work(r); return err })
	}
	s.observe(err)
	if panicked != nil {
		panic(panicked.value)
	}
	var limit *neo.TransactionExecutionLimit
	if err != nil && fnErr != nil && !errors.As(err, &limit) {
		return fnErr // the caller's own error, as it returned it
	}
	return translate(op, err)
}

// do runs fn over one attempt's transaction t. A write first takes the
// scope's lock, which reads the head the Store's cache is checked against
// (writeCache.begin); the facts fn left waiting are written before it
// returns.
func (t *tx) do(op string, fn func(graph.Tx) error) error {
	if t.writable {
		recs, err := t.query(stmtLock, map[string]any{"counter": counterName(t.scope)})
		if err != nil {
			return err
		}
		if len(recs) == 1 {
			t.head = uint64(asInt(recs[0].Values[0]))
		}
		t.start = t.head
		if t.store.cache.on() {
			t.cached = newTxCache()
			t.cached.added = t.store.cache.begin(t.scope, t.head)
		}
	}
	if err := fn(t); err != nil {
		return err
	}
	if err := t.flush(); err != nil {
		return err
	}
	if t.writable {
		// A context cancelled while fn ran rolls back: the caller has
		// stopped waiting and must not assume a commit.
		return translate(op, t.ctx.Err())
	}
	return nil
}

// ended gives the Store's cache the outcome err of a write transaction of
// scope whose last attempt was last (nil if none ran): its writes if it
// committed; otherwise the next transaction's head tells.
func (s *Store) ended(scope entity.Scope, last *tx, err error) {
	if err == nil && last != nil && last.cached != nil {
		s.cache.commit(scope, last.start, last.head, last.cached)
	} else {
		s.cache.abort(scope)
	}
}

// enterWriters waits for a write transaction's token (Config.Writers).
func (s *Store) enterWriters(ctx context.Context) error {
	if s.writers == nil {
		return nil
	}
	select {
	case s.writers <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// leaveWriters gives the token back.
func (s *Store) leaveWriters() {
	if s.writers != nil {
		<-s.writers
	}
}

// Changes lists changes after the sequence number after; see graph.Store.
// A limit ≤ 0 lists all of them. It takes no lock (see changes.cypher).
func (s *Store) Changes(ctx context.Context, after uint64, limit int) ([]graph.Change, error) {
	var out []graph.Change
	err := s.transact(ctx, "neo4j.Changes", false, func(t *tx) error {
		recs, err := t.query(stmtChanges, map[string]any{"after": int64(after), "limit": cypherLimit(limit)})
		out = changesOf(recs, "")
		return err
	})
	return out, err
}

// ScopeChanges lists the changes of scope after the sequence number after;
// see graph.Store. A limit ≤ 0 lists all of them. It runs as a write
// transaction that holds the scope counter's lock while it reads (see
// scope_changes.cypher), so the feed never shows part of a commit; writers
// of other scopes are not held up.
func (s *Store) ScopeChanges(ctx context.Context, scope entity.Scope, after uint64, limit int) ([]graph.Change, error) {
	const op = "neo4j.ScopeChanges"
	if !entity.ValidScope(scope) {
		return nil, &entity.Error{Code: entity.EINVALID, Op: op, Message: fmt.Sprintf("invalid scope %q", scope)}
	}
	var out []graph.Change
	err := s.transact(ctx, op, true, func(t *tx) error {
		recs, err := t.query(stmtScopeChanges, map[string]any{"scope": scope, "counter": counterName(scope),
			"after": int64(after), "limit": cypherLimit(limit)})
		out = changesOf(recs, scope)
		return err
	})
	return out, err
}

// changesOf reads the rows of changes.cypher (seq, scope, kind, id,
// deleted), or of scope_changes.cypher (seq, kind, id, deleted) when scope
// is set.
func changesOf(recs []*neo.Record, scope entity.Scope) []graph.Change {
	out := make([]graph.Change, 0, len(recs))
	for _, r := range recs {
		v := r.Values
		c := graph.Change{Seq: uint64(asInt(v[0])), Scope: scope}
		if scope == "" {
			c.Scope, v = asString(v[1]), v[1:]
		}
		c.Kind, c.ID, c.Deleted = asString(v[1]), asString(v[2]), v[3] == true
		out = append(out, c)
	}
	return out
}

// Heads returns each scope's latest change number; see graph.Store. It
// reads the scopes' counters without locking them.
func (s *Store) Heads(ctx context.Context) (map[entity.Scope]uint64, error) {
	out := map[entity.Scope]uint64{}
	err := s.transact(ctx, "neo4j.Heads", false, func(t *tx) error {
		recs, err := t.query(stmtHeads, nil)
		clear(out)
		for _, r := range recs {
			out[asString(r.Values[0])] = uint64(asInt(r.Values[1]))
		}
		return err
	})
	return out, err
}

// DueEpisodes lists episodes waiting for processing; see graph.Store. A
// limit ≤ 0 lists all of them.
func (s *Store) DueEpisodes(ctx context.Context, now time.Time, limit int) ([]graph.EpisodeRef, error) {
	const op = "neo4j.DueEpisodes"
	var out []graph.EpisodeRef
	err := s.transact(ctx, op, false, func(t *tx) error {
		out = out[:0]
		recs, err := t.query(stmtEpisodesDue, map[string]any{"now": now.UTC(), "limit": cypherLimit(limit)})
		if err != nil {
			return err
		}
		for _, r := range recs {
			out = append(out, graph.EpisodeRef{Scope: asString(r.Values[0]), ID: asString(r.Values[1])})
		}
		return nil
	})
	return out, err
}

// Scopes lists the scopes that hold a record.
func (s *Store) Scopes(ctx context.Context) ([]entity.Scope, error) {
	var out []entity.Scope
	err := s.transact(ctx, "neo4j.Scopes", false, func(t *tx) error {
		out = out[:0]
		recs, err := t.query(stmtScopes, nil)
		if err != nil {
			return err
		}
		for _, r := range recs {
			out = append(out, asString(r.Values[0]))
		}
		return nil
	})
	return out, err
}

// transact runs a store-level statement (not bound to a scope) in a managed
// transaction, a write one if write.
func (s *Store) transact(ctx context.Context, op string, write bool, fn func(*tx) error) error {
	if err := ctx.Err(); err != nil {
		return translate(op, err)
	}
	if err := s.enter(op); err != nil {
		return err
	}
	defer s.leave()
	if err := s.ensureSchema(ctx); err != nil {
		return err
	}
	work := func(r runner) error {
		t := &tx{ctx: ctx, run: r}
		return t.forDriver(fn(t))
	}
	if !write {
		return translate(op, s.observe(s.readRetrying(ctx, work)))
	}
	sess := s.session(ctx, neo.AccessModeWrite)
	defer sess.Close(ctx)
	_, err := sess.ExecuteWrite(ctx, func(mtx neo.ManagedTransaction) (any, error) { return nil, work(mtx) })
	return translate(op, s.observe(err))
}

// runner runs a statement: in a managed transaction, or in a session as a
// transaction of its own (autoCommitRun).
type runner interface {
	Run(ctx context.Context, cypher string, params map[string]any) (neo.ResultWithContext, error)
}

// autoCommitRun runs each statement of a read as an auto-commit
// transaction: one round trip each, where a managed transaction costs two
// more — a BEGIN the driver waits for before the first statement, and a
// COMMIT. A read loses nothing by it: Neo4j's transactions are read
// committed, so statements of one transaction never shared a snapshot
// either; each sees every commit before it, as an auto-commit one does, and
// the session's bookmarks still make a read follow the writes before it.
type autoCommitRun struct{ sess neo.SessionWithContext }

func (a autoCommitRun) Run(ctx context.Context, cypher string, params map[string]any) (neo.ResultWithContext, error) {
	return a.sess.Run(ctx, cypher, params)
}

// Waits between the attempts of a read.
const (
	readRetryFirst = 50 * time.Millisecond
	readRetryMax   = time.Second
)

// readRetrying runs read with its statements as auto-commit transactions
// of a read session, and runs it again in a new session after a failure
// the driver calls retryable (a lost connection, a transient error), as
// the driver does a managed transaction, until it succeeds or retryTime
// has passed. read returns the driver's error as it got it (tx.forDriver).
func (s *Store) readRetrying(ctx context.Context, read func(runner) error) error {
	deadline := time.Now().Add(s.retryTime)
	wait := readRetryFirst
	for {
		sess := s.session(ctx, neo.AccessModeRead)
		err := read(autoCommitRun{sess})
		sess.Close(ctx)
		if err == nil || !neo.IsRetryable(err) || ctx.Err() != nil {
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return err
		}
		timer := time.NewTimer(min(wait, left))
		select {
		case <-ctx.Done():
			timer.Stop()
			return err
		case <-timer.C:
		}
		wait = min(2*wait, readRetryMax)
	}
}

// Ping runs a trivial query without retries, so an outage is reported at
// once as EUNAVAILABLE. After an outage it also puts the schema back.
func (s *Store) Ping(ctx context.Context) error {
	const op = "neo4j.Ping"
	if err := s.enter(op); err != nil {
		return err
	}
	defer s.leave()
	if err := s.autoCommit(ctx, neo.AccessModeRead, stmtPing); err != nil {
		return translate(op, s.observe(err))
	}
	return s.ensureSchema(ctx)
}

// autoCommit runs one statement in an auto-commit transaction: no retries,
// and room for CALL … IN TRANSACTIONS.
func (s *Store) autoCommit(ctx context.Context, mode neo.AccessMode, stmt string) error {
	sess := s.session(ctx, mode)
	defer sess.Close(ctx)
	res, err := sess.Run(ctx, stmt, nil)
	if err == nil {
		_, err = res.Consume(ctx)
	}
	return err
}

// Close waits for the operations in flight and closes the driver.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return translate("neo4j.Close", s.driver.Close(context.Background()))
}

// CacheStats returns what the write cache answered and what was read from
// Neo4j instead, for write transactions and for reads, and the bytes it
// holds (estimated); zeros when it is off.
func (s *Store) CacheStats() graph.CacheStats { return s.cache.stats() }

// Wipe deletes every node — every record of every scope, and the change
// counter, which starts again from zero; the schema stays. For tests: Community edition has a
// single user database, so a test gets a fresh store by wiping it.
func (s *Store) Wipe(ctx context.Context) error {
	const op = "neo4j.Wipe"
	if err := s.enter(op); err != nil {
		return err
	}
	defer s.leave()
	s.cache.clear()
	if err := s.autoCommit(ctx, neo.AccessModeWrite, stmtWipe); err != nil {
		return translate(op, err)
	}
	return s.runEach(ctx, op, []string{stmtCounterInit})
}
