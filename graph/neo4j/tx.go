package neo4j

import (
	"context"
	"errors"
	"fmt"
	"strings"

	neo "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/graphmem/graphmem/cypher"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

var (
	stmtChanges      = cypher.MustRead("changes.cypher")
	stmtScopeChanges = cypher.MustRead("scope_changes.cypher")
	stmtHeads        = cypher.MustRead("heads.cypher")
	stmtSeqReserve   = cypher.MustRead("seq_reserve.cypher")
	stmtScopes       = cypher.MustRead("scopes.cypher")
	stmtPing         = cypher.MustRead("ping.cypher")
	stmtWipe         = cypher.MustRead("wipe.cypher")
	stmtLock         = cypher.MustRead("write_lock.cypher")

	stmtFactsByID    = cypher.MustRead("facts_by_id.cypher")
	stmtEntitiesByID = cypher.MustRead("entities_by_id.cypher")

	stmtFactsAndEntitiesByID = cypher.MustRead("facts_and_entities_by_id.cypher")
	stmtFactsAroundAll       = cypher.MustRead("facts_around_all.cypher")
	stmtScopeHead            = cypher.MustRead("scope_head.cypher")

	stmtCounterInit = cypher.MustRead("counter_init.cypher")
)

// maxBatch bounds the rows of one write statement, so a huge PutFacts is a
// few round trips of bounded size rather than one enormous message.
const maxBatch = 2000

// tx is a graph.Tx over one Neo4j managed transaction (Update), or over the
// auto-commit statements of one read session (View). It holds no state
// beyond them, so the caller's function may run again on a fresh
// transaction or session after a transient failure.
type tx struct {
	ctx      context.Context
	run      runner
	scope    entity.Scope
	writable bool
	store    *Store
	// head is the scope's latest change number: read under the scope's
	// lock when a write transaction starts, raised by every number drawn.
	head uint64
	// start is the head the transaction found.
	start uint64
	// driverErr is the last error a statement failed with. When the
	// caller's function returns it (wrapped), it goes back to the driver
	// unwrapped, so the driver can see whether a retry may help.
	driverErr error
	// unsent are the rows of PutFacts not yet sent, at most one per fact
	// id (factAt: its index): they go in a few statements per maxBatch
	// (see writeFacts) before the transaction's next statement or its
	// commit, whichever is first, so a caller writing chain by chain pays a
	// few round trips per batch rather than one per chain, and reads still
	// see every write.
	unsent []map[string]any
	factAt map[string]int
	// stored maps each fact id this transaction knows the store to hold —
	// read by Chains, found by facts_stored.cypher, or written — to its
	// stored properties, so flush tells new facts (created) from rewrites,
	// which send only the properties that changed and move links only when
	// the subject or object did. The scope's lock keeps it true until the
	// commit.
	stored map[string]map[string]any
	// cached is what the transaction read and wrote, for the Store's
	// write cache; nil in a read or when the cache is off.
	cached *txCache
	// view is, for a read, the scope's head it found and whether the
	// Store's cache answers it (cacheView); read once, when first needed.
	view struct {
		read, use bool
		head      uint64
	}
}

var _ graph.Tx = (*tx)(nil)

// query runs stmt with params (and $scope) and collects the records,
// after the facts waiting to be written.
func (t *tx) query(stmt string, params map[string]any) ([]*neo.Record, error) {
	if err := t.flush(); err != nil {
		return nil, err
	}
	return t.exec(stmt, params)
}

// exec is query without the facts waiting to be written.
func (t *tx) exec(stmt string, params map[string]any) ([]*neo.Record, error) {
	if params == nil {
		params = map[string]any{}
	}
	if t.scope != "" {
		params["scope"] = t.scope
	}
	res, err := t.run.Run(t.ctx, stmt, params)
	var recs []*neo.Record
	if err == nil {
		recs, err = res.Collect(t.ctx)
	}
	if err != nil {
		t.driverErr = err
		return nil, translate("neo4j", err)
	}
	return recs, nil
}

// numbered runs a write statement that gives n records change numbers: it
// draws them above the scope's head and passes the first as $seq, with the
// scope's counter as $counter (see write_lock.cypher).
func (t *tx) numbered(stmt string, n int, params map[string]any) ([]*neo.Record, error) {
	// Writes are numbered in the order they were made.
	if err := t.flush(); err != nil {
		return nil, err
	}
	first, err := t.draw(uint64(n))
	if err != nil {
		return nil, err
	}
	t.head = first + uint64(n) - 1
	params["seq"] = int64(first)
	params["counter"] = counterName(t.scope)
	return t.query(stmt, params)
}

// draw draws n change numbers above the transaction's head (Store.draw),
// first telling the Store's cache that the scope's head is moving.
func (t *tx) draw(n uint64) (uint64, error) {
	if t.cached != nil && !t.cached.numbered {
		t.cached.numbered = true
		t.store.cache.numbering(t.scope)
	}
	return t.store.draw(t.ctx, n, t.head)
}

// forDriver picks what the driver's transaction function returns for the
// caller's error err: the raw driver error it wraps, if any (see driverErr).
func (t *tx) forDriver(err error) error {
	if err != nil && t.driverErr != nil && errors.Is(err, t.driverErr) {
		return t.driverErr
	}
	return err
}

func (t *tx) mustWrite(op string) error {
	if !t.writable {
		return &entity.Error{Code: entity.EINTERNAL, Op: op, Message: "write in a read-only transaction"}
	}
	return nil
}

func invalid(op, format string, args ...any) error {
	return &entity.Error{Code: entity.EINVALID, Op: op, Message: fmt.Sprintf(format, args...)}
}

// maxIDLen bounds ids, keys and fingerprints, as on the embedded store.
const maxIDLen = entity.MaxIDBytes

// checkPart rejects an identifier the embedded store could not key by, so
// both stores accept exactly the same records.
func checkPart(op, what, s string, required bool) error {
	switch {
	case s == "" && required:
		return invalid(op, "%s is required", what)
	case len(s) > maxIDLen:
		return invalid(op, "%s is longer than %d bytes", what, maxIDLen)
	case strings.IndexByte(s, 0) >= 0:
		return invalid(op, "%s contains a NUL byte", what)
	}
	return nil
}

// checkScope rejects a record of another scope; an unset scope is taken as
// the transaction's.
func (t *tx) checkScope(op string, scope entity.Scope) error {
	if scope != "" && scope != t.scope {
		return invalid(op, "record of scope %q written in scope %q", scope, t.scope)
	}
	return nil
}

func notFound(op, kind, id string) error {
	return &entity.Error{Code: entity.ENOTFOUND, Op: op, Message: fmt.Sprintf("%s %q not found", kind, id)}
}

// noLimit stands for "no limit" (a limit ≤ 0 from the caller) in a LIMIT
// clause, which needs a number.
const noLimit = 1 << 53

func cypherLimit(limit int) int {
	if limit <= 0 {
		return noLimit
	}
	return limit
}

// page runs a list statement for one page: it asks for one row more than
// limit to learn whether another page follows. A limit ≤ 0 lists all.
func page[T any](t *tx, op, stmt string, params map[string]any, cursor string, limit int,
	decode func(map[string]any) (T, error), key func(T) string) ([]T, string, error) {
	after, err := graph.DecodeCursor(op, cursor)
	if err != nil {
		return nil, "", err
	}
	if limit <= 0 {
		limit = noLimit
	}
	params["after"] = after
	params["limit"] = limit + 1
	recs, err := t.query(stmt, params)
	if err != nil {
		return nil, "", err
	}
	out := make([]T, 0, min(len(recs), limit))
	for _, r := range recs[:min(len(recs), limit)] {
		v, err := decode(props(r.Values[0]))
		if err != nil {
			return nil, "", internal(op, err)
		}
		out = append(out, v)
	}
	next := ""
	if len(recs) > limit {
		next = graph.EncodeCursor(key(out[len(out)-1]))
	}
	return out, next, nil
}

func (t *tx) decodeEntity(p map[string]any) (entity.Entity, error) { return decodeEntity(t.scope, p) }
func (t *tx) decodeFact(p map[string]any) (entity.Fact, error)     { return decodeFact(t.scope, p) }
func (t *tx) decodeEpisode(p map[string]any) (entity.Episode, error) {
	return decodeEpisode(t.scope, p)
}

// readHead takes the scope's head (null: no write yet) that the read's
// statement read as the read's own, and asks the cache whether the read
// may use it (writeCache.view).
func (t *tx) readHead(head any) {
	t.view.head = 0
	if head != nil {
		t.view.head = uint64(asInt(head))
	}
	t.view.read, t.view.use = true, t.store.cache.view(t.scope, t.view.head)
}

// cacheView reports whether the Store's cache may answer this read: it
// reads the scope's head once (scope_head.cypher) and asks the cache
// (writeCache.view).
func (t *tx) cacheView() (bool, error) {
	if t.writable || !t.store.cache.on() {
		return false, nil
	}
	if !t.view.read {
		recs, err := t.query(stmtScopeHead, map[string]any{"counter": counterName(t.scope)})
		if err != nil {
			return false, err
		}
		var head any
		if len(recs) == 1 {
			head = recs[0].Values[0]
		}
		t.readHead(head)
	}
	return t.view.use, nil
}

// inBatches calls write on rows, maxBatch at a time, and stops at the
// first error.
func inBatches(rows []map[string]any, write func([]map[string]any) error) error {
	for len(rows) > 0 {
		n := min(len(rows), maxBatch)
		if err := write(rows[:n]); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}
