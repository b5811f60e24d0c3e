package neo4j

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	neo "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/graphmem/graphmem/cypher"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

var (
	stmtEntityGet         = cypher.MustRead("entity_get.cypher")
	stmtEntitiesByKey     = cypher.MustRead("entities_by_key.cypher")
	stmtEntitiesByKeyHead = cypher.MustRead("entities_by_key_head.cypher")
	stmtEntitiesByPrefix  = cypher.MustRead("entities_by_prefix.cypher")
	stmtEntitiesList      = cypher.MustRead("entities_list.cypher")
	stmtEntitiesPut       = cypher.MustRead("entities_put.cypher")
	stmtEntityDelete      = cypher.MustRead("entity_delete.cypher")

	stmtFactGet          = cypher.MustRead("fact_get.cypher")
	stmtFactChains       = cypher.MustRead("fact_chains.cypher")
	stmtFactsOf          = cypher.MustRead("facts_of.cypher")
	stmtFactsByChain     = cypher.MustRead("facts_by_chain.cypher")
	stmtFactsBySubject   = cypher.MustRead("facts_by_subject.cypher")
	stmtFactsByObject    = cypher.MustRead("facts_by_object.cypher")
	stmtFactsByValue     = cypher.MustRead("facts_by_value.cypher")
	stmtFactsByPredicate = cypher.MustRead("facts_by_predicate.cypher")
	stmtFactsAll         = cypher.MustRead("facts_all.cypher")
	stmtFactsStored      = cypher.MustRead("facts_stored.cypher")
	stmtFactsWrite       = cypher.MustRead("facts_write.cypher")
	stmtFactsRelink      = cypher.MustRead("facts_relink.cypher")
	stmtFactsTouch       = cypher.MustRead("facts_touch.cypher")
	stmtDeletedClear     = cypher.MustRead("deleted_facts_clear.cypher")
	stmtFactDelete       = cypher.MustRead("fact_delete.cypher")

	stmtEpisodeGet       = cypher.MustRead("episode_get.cypher")
	stmtEpisodeByKey     = cypher.MustRead("episode_by_key.cypher")
	stmtEpisodesList     = cypher.MustRead("episodes_list.cypher")
	stmtEpisodesByStatus = cypher.MustRead("episodes_by_status.cypher")
	stmtEpisodePut       = cypher.MustRead("episode_put.cypher")
	stmtEpisodeDelete    = cypher.MustRead("episode_delete.cypher")
	stmtEpisodesDue      = cypher.MustRead("episodes_due.cypher")

	stmtTombstonesGet  = cypher.MustRead("tombstones_get.cypher")
	stmtTombstonesList = cypher.MustRead("tombstones_list.cypher")
	stmtTombstonePut   = cypher.MustRead("tombstone_put.cypher")

	stmtMetaGet = cypher.MustRead("meta_get.cypher")
	stmtMetaPut = cypher.MustRead("meta_put.cypher")

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

// factLinks is where a stored fact's graph links point: its subject and
// its object ("" for a literal).
type factLinks struct{ subject, object string }

func linksOf(p map[string]any) factLinks {
	return factLinks{subject: asString(p["subject_id"]), object: asString(p["object_id"])}
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

// Entity returns ENOTFOUND if the scope has no entity id.
func (t *tx) Entity(id string) (entity.Entity, error) {
	const op = "neo4j.Entity"
	recs, err := t.query(stmtEntityGet, map[string]any{"id": id})
	if err != nil {
		return entity.Entity{}, err
	}
	if len(recs) == 0 {
		return entity.Entity{}, notFound(op, "entity", id)
	}
	e, err := t.decodeEntity(props(recs[0].Values[0]))
	return e, internal(op, err)
}

// EntitiesByKey maps each key to the entities known by it.
func (t *tx) EntitiesByKey(keys []string) (map[string][]entity.Entity, error) {
	out := make(map[string][]entity.Entity)
	asked, norms := askedKeys(keys)
	if !t.writable && t.store.cache.on() && !t.view.read {
		if out, ok, err := t.namesWithHead(asked, norms); err != nil || ok {
			return out, err
		}
	}
	// Keys held by the Store's cache are answered from it, and those read
	// are noted for it, unless the transaction has written entities.
	cacheNames := t.cached != nil && !t.cached.wroteEntities
	held := func(n string) ([]entity.Entity, bool) { return t.store.cache.name(t.scope, n) }
	if !t.writable {
		use, err := t.cacheView()
		if err != nil {
			return nil, err
		}
		cacheNames = use
		held = func(n string) ([]entity.Entity, bool) { return t.store.cache.viewName(t.scope, t.view.head, n) }
	}
	if cacheNames {
		norms = namesHeld(asked, norms, held, out)
	}
	if len(norms) == 0 {
		return out, nil
	}
	found, err := t.readNames(asked, norms, cacheNames, out)
	if err != nil {
		return nil, err
	}
	switch {
	case t.cached != nil:
		for n, es := range found {
			t.cached.names[n] = es
		}
	case found != nil:
		t.store.cache.putNames(t.scope, t.view.head, found)
	}
	return out, nil
}

// askedKeys normalises keys again, so a caller's raw name finds its
// entities: it returns the caller's spellings of each index key, by which
// results are keyed, and the index keys in order, once each.
func askedKeys(keys []string) (asked map[string][]string, norms []string) {
	asked = make(map[string][]string, len(keys))
	norms = make([]string, 0, len(keys))
	for _, k := range keys {
		n := entity.Normalize(k)
		if n == "" {
			continue
		}
		if n = indexKey(n); slices.Contains(asked[n], k) {
			continue
		}
		if asked[n] == nil {
			norms = append(norms, n)
		}
		asked[n] = append(asked[n], k)
	}
	return asked, norms
}

// namesHeld answers into out the index keys of norms that held (a cache)
// holds, and returns the others.
func namesHeld(asked map[string][]string, norms []string, held func(string) ([]entity.Entity, bool), out map[string][]entity.Entity) []string {
	missing := norms[:0:0]
	for _, n := range norms {
		es, ok := held(n)
		if !ok {
			missing = append(missing, n)
			continue
		}
		if len(es) == 0 {
			continue // as read: a key of no entity is not in out
		}
		for _, k := range asked[n] {
			out[k] = append(out[k], es...)
		}
	}
	return missing
}

// readNames reads the entities of the index keys norms into out. With
// note, it also returns them by index key (a key of no entity with none),
// cloned, for the cache.
func (t *tx) readNames(asked map[string][]string, norms []string, note bool, out map[string][]entity.Entity) (map[string][]entity.Entity, error) {
	const op = "neo4j.EntitiesByKey"
	recs, err := t.query(stmtEntitiesByKey, map[string]any{"keys": norms})
	if err != nil {
		return nil, err
	}
	var found map[string][]entity.Entity
	if note {
		found = make(map[string][]entity.Entity, len(norms))
		for _, n := range norms {
			found[n] = nil
		}
	}
	for _, r := range recs {
		e, err := t.decodeEntity(props(r.Values[1]))
		if err != nil {
			return nil, internal(op, err)
		}
		n := asString(r.Values[0])
		for _, k := range asked[n] {
			out[k] = append(out[k], e)
		}
		if found != nil {
			found[n] = append(found[n], e.Clone())
		}
	}
	return found, nil
}

// namesWithHead answers EntitiesByKey as a read's first statement: the
// keys the Store's cache holds at the head it knows are taken from it, and
// the others read from the store with the scope's head
// (entities_by_key_head.cypher), which the read takes as its own
// (readHead). When that head is not the one the cache answered at, it
// returns false: the caller asks again, the view now read.
func (t *tx) namesWithHead(asked map[string][]string, norms []string) (map[string][]entity.Entity, bool, error) {
	const op = "neo4j.EntitiesByKey"
	c := t.store.cache
	at := c.known(t.scope)
	out := make(map[string][]entity.Entity)
	var missing []string
	for _, n := range norms {
		es, ok := c.viewName(t.scope, at, n)
		switch {
		case !ok:
			missing = append(missing, n)
		case len(es) > 0: // (a key of no entity is not in out)
			for _, k := range asked[n] {
				out[k] = append(out[k], es...)
			}
		}
	}
	recs, err := t.query(stmtEntitiesByKeyHead, map[string]any{"keys": nonNil(missing), "counter": counterName(t.scope)})
	if err != nil || len(recs) != 1 {
		return nil, false, err
	}
	t.readHead(recs[0].Values[0])
	if !t.view.use || t.view.head != at {
		return nil, false, nil
	}
	found := make(map[string][]entity.Entity, len(missing))
	for _, n := range missing {
		found[n] = nil
	}
	for _, pair := range asList(recs[0].Values[1]) {
		kv := asList(pair)
		e, err := t.decodeEntity(props(kv[1]))
		if err != nil {
			return nil, false, internal(op, err)
		}
		n := asString(kv[0])
		for _, k := range asked[n] {
			out[k] = append(out[k], e)
		}
		found[n] = append(found[n], e.Clone())
	}
	c.putNames(t.scope, at, found)
	return out, true, nil
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

// EntitiesByPrefix returns up to limit entities with a key starting with
// prefix.
func (t *tx) EntitiesByPrefix(prefix string, limit int) ([]entity.Entity, error) {
	const op = "neo4j.EntitiesByPrefix"
	// Keys are cut at maxKeyPart bytes, so a longer prefix is looked up by
	// its first maxKeyPart bytes and the matches checked against the names.
	long := len(prefix) > maxKeyPart
	p := prefix
	if long {
		p = indexKey(prefix)[:strings.IndexByte(indexKey(prefix), 0)]
	}
	recs, err := t.query(stmtEntitiesByPrefix, map[string]any{"prefix": p, "limit": cypherLimit(limit)})
	if err != nil {
		return nil, err
	}
	out := make([]entity.Entity, 0, len(recs))
	for _, r := range recs {
		e, err := t.decodeEntity(props(r.Values[0]))
		if err != nil {
			return nil, internal(op, err)
		}
		if long && !slices.ContainsFunc(e.Keys(), func(k string) bool { return strings.HasPrefix(k, prefix) }) {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// Entities lists the scope's entities by id.
func (t *tx) Entities(cursor string, limit int) ([]entity.Entity, string, error) {
	return page(t, "neo4j.Entities", stmtEntitiesList, map[string]any{}, cursor, limit,
		t.decodeEntity, func(e entity.Entity) string { return e.ID })
}

// PutEntities creates or replaces entities by id, in batched statements.
// Every entity is checked before anything is written.
func (t *tx) PutEntities(es []entity.Entity) error {
	const op = "neo4j.PutEntities"
	if err := t.mustWrite(op); err != nil {
		return err
	}
	rows := make([]map[string]any, len(es))
	for i := range es {
		e := &es[i]
		if err := checkPart(op, fmt.Sprintf("entities[%d].id", i), e.ID, true); err != nil {
			return err
		}
		if strings.TrimSpace(e.Name) == "" {
			return invalid(op, "entities[%d].name is required", i)
		}
		if err := t.checkScope(op, e.Scope); err != nil {
			return err
		}
		p, err := entityProps(e)
		if err != nil {
			return invalid(op, "entities[%d].attributes: %v", i, err)
		}
		rows[i] = map[string]any{"props": p, "keys": entityKeys(e)}
	}
	if w := t.cached; w != nil {
		w.wroteEntities = true
		for i := range es {
			w.entities = append(w.entities, es[i].ID)
			w.entityKeys = append(w.entityKeys, rows[i]["keys"].([]string)...)
		}
	}
	return inBatches(rows, func(b []map[string]any) error {
		recs, err := t.numbered(stmtEntitiesPut, len(b), map[string]any{"rows": b})
		if w := t.cached; w != nil && err == nil && len(recs) == 1 {
			for _, id := range asList(recs[0].Values[1]) {
				w.fresh = append(w.fresh, asString(id))
			}
		}
		return err
	})
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

// DeleteEntity deletes the entity id; ENOTFOUND if the scope has none.
func (t *tx) DeleteEntity(id string) error {
	const op = "neo4j.DeleteEntity"
	if err := t.mustWrite(op); err != nil {
		return err
	}
	if w := t.cached; w != nil {
		w.wroteEntities = true
		w.dropAround = true
		w.entities = append(w.entities, id)
	}
	recs, err := t.numbered(stmtEntityDelete, 1, map[string]any{"id": id})
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return notFound(op, "entity", id)
	}
	return nil
}

// Fact returns ENOTFOUND if the scope has no fact id.
func (t *tx) Fact(id string) (entity.Fact, error) {
	const op = "neo4j.Fact"
	recs, err := t.query(stmtFactGet, map[string]any{"id": id})
	if err != nil {
		return entity.Fact{}, err
	}
	if len(recs) == 0 {
		return entity.Fact{}, notFound(op, "fact", id)
	}
	f, err := t.decodeFact(props(recs[0].Values[0]))
	return f, internal(op, err)
}

// Chains returns every fact of each chain, by id: from the Store's write
// cache those it holds and the transaction has not written to, the rest
// from Neo4j in one statement.
func (t *tx) Chains(keys []graph.ChainKey) (map[graph.ChainKey][]entity.Fact, error) {
	const op = "neo4j.Chains"
	out := make(map[graph.ChainKey][]entity.Fact, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	params := make([]map[string]any, 0, len(keys))
	seen := make(map[graph.ChainKey]bool, len(keys))
	view, err := t.cacheView()
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		var fs []entity.Fact
		ok := false
		switch w := t.cached; {
		case w != nil && !w.wroteChain[k]:
			fs, ok = t.store.cache.chain(t.scope, k, w)
		case view:
			fs, ok = t.store.cache.viewChain(t.scope, t.view.head, k)
		}
		if ok {
			if len(fs) > 0 {
				out[k] = fs
			}
			continue
		}
		params = append(params, map[string]any{"subject": k.SubjectID, "predicate": k.Predicate})
	}
	if len(params) == 0 {
		return out, nil
	}
	// The facts waiting to be written go first only when one of them is
	// in a chain asked for; otherwise a stored fact among them has moved
	// to another chain, so its stored version is left out.
	run := t.exec
	for _, r := range t.unsent {
		p := r["props"].(map[string]any)
		if seen[graph.ChainKey{SubjectID: p["subject_id"].(string), Predicate: p["predicate"].(string)}] {
			run = t.query
			break
		}
	}
	recs, err := run(stmtFactChains, map[string]any{"keys": params})
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		f, err := t.decodeFact(props(r.Values[2]))
		if err != nil {
			return nil, internal(op, err)
		}
		if _, moved := t.factAt[f.ID]; moved {
			continue
		}
		t.knowStored(f.ID, props(r.Values[2]))
		k := graph.ChainKey{SubjectID: asString(r.Values[0]), Predicate: asString(r.Values[1])}
		out[k] = append(out[k], f)
	}
	// The chains read before the transaction wrote to them are the
	// scope's at its head: the cache takes them at the commit, or, read
	// by a read, now.
	if t.cached == nil && !view {
		return out, nil
	}
	read := make(map[graph.ChainKey][]entity.Fact, len(params))
	for _, p := range params {
		k := graph.ChainKey{SubjectID: p["subject"].(string), Predicate: p["predicate"].(string)}
		if t.cached != nil && t.cached.wroteChain[k] {
			continue
		}
		read[k] = cloneFacts(out[k])
	}
	if t.cached != nil {
		maps.Copy(t.cached.chains, read)
	} else {
		t.store.cache.putChains(t.scope, t.view.head, read)
	}
	return out, nil
}

// FactsOf returns up to limit facts whose subject or object is entityID.
func (t *tx) FactsOf(entityID string, limit int) ([]entity.Fact, error) {
	const op = "neo4j.FactsOf"
	if entityID == "" {
		return nil, nil
	}
	recs, err := t.query(stmtFactsOf, map[string]any{"id": entityID, "limit": cypherLimit(limit)})
	if err != nil {
		return nil, err
	}
	return t.facts(op, recs, 0)
}

func (t *tx) facts(op string, recs []*neo.Record, col int) ([]entity.Fact, error) {
	out := make([]entity.Fact, 0, len(recs))
	for _, r := range recs {
		f, err := t.decodeFact(props(r.Values[col]))
		if err != nil {
			return nil, internal(op, err)
		}
		out = append(out, f)
	}
	return out, nil
}

// Facts lists facts matching f by id. The statement is chosen by the most
// selective field set, so each page is an ordered seek of one index.
func (t *tx) Facts(f graph.FactFilter) ([]entity.Fact, string, error) {
	byValue := f.Value != ""
	value := indexKey(entity.Normalize(f.Value))
	var stmt string
	switch {
	case f.SubjectID != "" && f.Predicate != "":
		stmt = stmtFactsByChain
	case f.SubjectID != "":
		stmt = stmtFactsBySubject
	case f.ObjectID != "":
		stmt = stmtFactsByObject
	case byValue:
		stmt = stmtFactsByValue
	case f.Predicate != "":
		stmt = stmtFactsByPredicate
	default:
		stmt = stmtFactsAll
	}
	params := map[string]any{
		"subject": f.SubjectID, "predicate": f.Predicate, "object": f.ObjectID,
		"byValue": byValue, "value": value,
	}
	return page(t, "neo4j.Facts", stmt, params, f.Cursor, f.Limit,
		t.decodeFact, func(f entity.Fact) string { return f.ID })
}

// PutFacts creates or replaces facts by id with their index entries and
// graph links. Every fact is checked at once; the writes wait for the
// transaction's next statement or its commit (see tx.unsent), then go in a
// few statements per maxBatch facts (see writeFacts).
func (t *tx) PutFacts(fs []entity.Fact) error {
	const op = "neo4j.PutFacts"
	if err := t.mustWrite(op); err != nil {
		return err
	}
	rows := make([]map[string]any, len(fs))
	for i := range fs {
		f := &fs[i]
		if err := t.checkFact(op, i, f); err != nil {
			return err
		}
		p, err := factProps(f)
		if err != nil {
			return invalid(op, "facts[%d].attributes: %v", i, err)
		}
		rows[i] = map[string]any{"props": p}
		if t.cached == nil {
			continue
		}
		// Not sent: what the cache will hold, made now, as the caller
		// may change the fact's lists once this returns.
		if stored, ok := storedFact(*f, t.scope); ok {
			rows[i]["fact"] = stored
		}
	}
	if w := t.cached; w != nil {
		for i := range fs {
			w.wroteChain[graph.ChainKey{SubjectID: fs[i].SubjectID, Predicate: fs[i].Predicate}] = true
			w.wroteFact[fs[i].ID] = true
		}
	}
	if t.factAt == nil {
		t.factAt = make(map[string]int, len(rows))
	}
	for i, r := range rows {
		if at, ok := t.factAt[fs[i].ID]; ok {
			t.unsent[at] = r // written again: only the last version is stored
			continue
		}
		t.factAt[fs[i].ID] = len(t.unsent)
		t.unsent = append(t.unsent, r)
	}
	return nil
}

// flush writes the facts PutFacts left waiting, maxBatch at a time.
func (t *tx) flush() error {
	rows := t.unsent
	t.unsent = nil
	clear(t.factAt)
	return inBatches(rows, t.writeFacts)
}

func (t *tx) knowStored(id string, p map[string]any) {
	if t.stored == nil {
		t.stored = make(map[string]map[string]any)
	}
	t.stored[id] = p
}

// changes is what a fact's stored properties old need to become new: the
// properties new holds that old lacks or holds another value of, and a null
// (which removes it) for each property old holds and new does not. Values
// are kept only when certainly equal (sameValue), so nothing written is
// ever left out.
func changes(old, new map[string]any) map[string]any {
	out := make(map[string]any)
	for k, v := range new {
		if !sameValue(old[k], v) {
			out[k] = v
		}
	}
	for k := range old {
		if _, ok := new[k]; !ok {
			out[k] = nil
		}
	}
	return out
}

// sameValue reports whether a stored property (as the driver returns it)
// equals a value factProps made.
func sameValue(stored, v any) bool {
	switch v := v.(type) {
	case string, int64, float64, bool:
		return stored == v
	case time.Time:
		st, ok := stored.(time.Time)
		return ok && st.Equal(v)
	case []string:
		l, ok := stored.([]any)
		return ok && slices.EqualFunc(l, v, func(a any, b string) bool { return a == b })
	}
	return false
}

// writeFacts writes rows (at most one per id) in up to four statements,
// most of them skipped in the common cases: what the store holds of the ids
// the transaction has not seen (facts_stored.cypher), the Deleted markers
// of facts put again, new facts created and stored ones replaced (one
// statement), and the links of those whose subject or object changed.
// Each row gets its change number in the order the rows were put.
func (t *tx) writeFacts(rows []map[string]any) error {
	const op = "neo4j.PutFacts"
	var unseen []string
	for _, r := range rows {
		if id := asString(r["props"].(map[string]any)["id"]); !t.known(id) {
			unseen = append(unseen, id)
		}
	}
	if len(unseen) > 0 {
		recs, err := t.exec(stmtFactsStored, map[string]any{"ids": unseen})
		if err != nil {
			return err
		}
		var marked []string
		for _, r := range recs {
			id := asString(r.Values[0])
			if p := props(r.Values[1]); p != nil {
				t.knowStored(id, p)
			}
			if r.Values[2] == true {
				marked = append(marked, id)
			}
		}
		if len(marked) > 0 {
			if _, err := t.exec(stmtDeletedClear, map[string]any{"ids": marked}); err != nil {
				return err
			}
		}
	}
	first, err := t.draw(uint64(len(rows)))
	if err != nil {
		return err
	}
	t.head = first + uint64(len(rows)) - 1
	// (Empty lists, not nil slices, which would be sent as null.)
	created, replaced := []map[string]any{}, []map[string]any{}
	var moved []map[string]any
	for i, r := range rows {
		p := r["props"].(map[string]any)
		id := asString(p["id"])
		p["scope"], p["seq"] = t.scope, int64(first)+int64(i)
		old, stored := t.storedProps(id)
		if !stored {
			created = append(created, map[string]any{"props": p})
		} else {
			replaced = append(replaced, map[string]any{"id": id, "props": changes(old, p)})
			if was, now := linksOf(old), linksOf(p); was != now {
				moved = append(moved, map[string]any{"id": id, "subject": now.subject, "object": p["object_id"],
					"subjectMoved": was.subject != now.subject, "objectMoved": was.object != now.object})
			}
		}
		t.knowStored(id, p)
	}
	recs, err := t.exec(stmtFactsWrite, map[string]any{"created": created, "replaced": replaced,
		"head": int64(t.head), "counter": counterName(t.scope)})
	if err != nil {
		return err
	}
	// A row not written would be a write acknowledged and lost.
	if len(recs) != 1 || asInt(recs[0].Values[0]) != int64(len(created)) || asInt(recs[0].Values[1]) != int64(len(replaced)) {
		return &entity.Error{Code: entity.EINTERNAL, Op: op,
			Message: fmt.Sprintf("%d facts sent, not all written", len(created)+len(replaced))}
	}
	if len(moved) > 0 {
		if _, err := t.exec(stmtFactsRelink, map[string]any{"rows": moved}); err != nil {
			return err
		}
	}
	if w := t.cached; w != nil {
		// The facts as the store now holds them, as a read would decode them.
		for i, r := range rows {
			if f, ok := r["fact"].(entity.Fact); ok {
				f.Seq = first + uint64(i)
				w.facts = append(w.facts, f)
				continue
			}
			f, err := t.decodeFact(r["props"].(map[string]any))
			if err != nil {
				return internal(op, err)
			}
			w.facts = append(w.facts, f)
		}
	}
	return nil
}

// storedProps returns what the store holds of a fact the transaction
// knows about: read, written, or served by the write cache (whose version
// is made again from the fact: the properties factProps makes of it).
func (t *tx) storedProps(id string) (map[string]any, bool) {
	if p, ok := t.stored[id]; ok {
		return p, true
	}
	if t.cached == nil {
		return nil, false
	}
	f, ok := t.cached.served[id]
	if !ok {
		return nil, false
	}
	p, err := factProps(&f)
	if err != nil {
		return nil, false // read it from the store instead
	}
	p["scope"], p["seq"] = t.scope, int64(f.Seq)
	return p, true
}

func (t *tx) known(id string) bool {
	_, ok := t.stored[id]
	if !ok && t.cached != nil {
		_, ok = t.cached.served[id]
	}
	return ok
}

// checkFact applies the domain rules (entity.Fact.Validate) with field
// names that point into the batch.
func (t *tx) checkFact(op string, i int, f *entity.Fact) error {
	for _, c := range []struct {
		what, v  string
		required bool
	}{{"id", f.ID, true}, {"subject_id", f.SubjectID, true}, {"predicate", f.Predicate, true}, {"object_id", f.ObjectID, false}} {
		if err := checkPart(op, fmt.Sprintf("facts[%d].%s", i, c.what), c.v, c.required); err != nil {
			return err
		}
	}
	if err := f.Validate(); err != nil {
		var e *entity.Error
		if errors.As(err, &e) {
			fields := make(map[string]string, len(e.Fields))
			for k, v := range e.Fields {
				fields[fmt.Sprintf("facts[%d].%s", i, k)] = v
			}
			return &entity.Error{Code: e.Code, Op: op, Message: e.Message, Fields: fields}
		}
		return err
	}
	return t.checkScope(op, f.Scope)
}

// TouchFacts counts a hit on each fact of hits, in place (see
// facts_touch.cypher).
func (t *tx) TouchFacts(hits map[string]time.Time) error {
	const op = "neo4j.TouchFacts"
	if err := t.mustWrite(op); err != nil {
		return err
	}
	if len(hits) == 0 {
		return nil
	}
	rows := make([]map[string]any, 0, len(hits))
	for id, at := range hits {
		rows = append(rows, map[string]any{"id": id, "at": nullTime(at)})
		// What this transaction knew of the fact is out of date.
		delete(t.stored, id)
		if w := t.cached; w != nil {
			delete(w.served, id)
			w.gone = append(w.gone, id)
			if w.touched == nil {
				w.touched = make(map[string]time.Time, len(hits))
			}
			w.touched[id] = at
		}
	}
	return inBatches(rows, func(b []map[string]any) error {
		_, err := t.query(stmtFactsTouch, map[string]any{"rows": b})
		return err
	})
}

// DeleteFact deletes the fact id; ENOTFOUND if the scope has none.
func (t *tx) DeleteFact(id string) error {
	const op = "neo4j.DeleteFact"
	if err := t.mustWrite(op); err != nil {
		return err
	}
	recs, err := t.numbered(stmtFactDelete, 1, map[string]any{"id": id})
	if err != nil {
		return err
	}
	delete(t.stored, id)
	if w := t.cached; w != nil {
		w.gone = append(w.gone, id)
		w.wroteFact[id] = true
		w.dropAround = true
		delete(w.served, id)
	}
	if len(recs) == 0 {
		return notFound(op, "fact", id)
	}
	return nil
}

// Episode returns ENOTFOUND if the scope has no episode id.
func (t *tx) Episode(id string) (entity.Episode, error) {
	return t.oneEpisode("neo4j.Episode", stmtEpisodeGet, map[string]any{"id": id}, id)
}

// EpisodeByKey finds an episode by idempotency key; ENOTFOUND if none.
func (t *tx) EpisodeByKey(key string) (entity.Episode, error) {
	if key == "" {
		return entity.Episode{}, notFound("neo4j.EpisodeByKey", "episode with idempotency key", key)
	}
	return t.oneEpisode("neo4j.EpisodeByKey", stmtEpisodeByKey, map[string]any{"key": key},
		"with idempotency key "+key)
}

func (t *tx) oneEpisode(op, stmt string, params map[string]any, what string) (entity.Episode, error) {
	recs, err := t.query(stmt, params)
	if err != nil {
		return entity.Episode{}, err
	}
	if len(recs) == 0 {
		return entity.Episode{}, notFound(op, "episode", what)
	}
	e, err := t.decodeEpisode(props(recs[0].Values[0]))
	return e, internal(op, err)
}

// Episodes lists episodes by id, all of them or those with one status.
func (t *tx) Episodes(status string, cursor string, limit int) ([]entity.Episode, string, error) {
	stmt, params := stmtEpisodesList, map[string]any{}
	if status != "" {
		stmt, params = stmtEpisodesByStatus, map[string]any{"status": status}
	}
	return page(t, "neo4j.Episodes", stmt, params, cursor, limit,
		t.decodeEpisode, func(e entity.Episode) string { return e.ID })
}

// PutEpisode creates or replaces an episode by id. ECONFLICT if another
// episode of the scope has its idempotency key.
func (t *tx) PutEpisode(e entity.Episode) error {
	const op = "neo4j.PutEpisode"
	if err := t.mustWrite(op); err != nil {
		return err
	}
	if err := checkPart(op, "id", e.ID, true); err != nil {
		return err
	}
	if err := checkPart(op, "status", e.Status, true); err != nil {
		return err
	}
	if err := checkPart(op, "idempotency_key", e.IdempotencyKey, false); err != nil {
		return err
	}
	if err := t.checkScope(op, e.Scope); err != nil {
		return err
	}
	p, err := episodeProps(&e)
	if err != nil {
		return invalid(op, "metadata: %v", err)
	}
	recs, err := t.numbered(stmtEpisodePut, 1, map[string]any{"props": p})
	if err != nil {
		return err
	}
	if len(recs) == 1 {
		if other := asString(recs[0].Values[0]); other != "" {
			return &entity.Error{Code: entity.ECONFLICT, Op: op,
				Message: fmt.Sprintf("idempotency key already used by episode %q", other)}
		}
	}
	return nil
}

// DeleteEpisode deletes the episode id; ENOTFOUND if the scope has none.
func (t *tx) DeleteEpisode(id string) error {
	const op = "neo4j.DeleteEpisode"
	if err := t.mustWrite(op); err != nil {
		return err
	}
	recs, err := t.numbered(stmtEpisodeDelete, 1, map[string]any{"id": id})
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return notFound(op, "episode", id)
	}
	return nil
}

// Tombstones returns the tombstones among fingerprints.
func (t *tx) Tombstones(fingerprints []string) (map[string]entity.Tombstone, error) {
	out := make(map[string]entity.Tombstone)
	if len(fingerprints) == 0 {
		return out, nil
	}
	recs, err := t.query(stmtTombstonesGet, map[string]any{"fingerprints": fingerprints})
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		ts := decodeTombstone(t.scope, props(r.Values[0]))
		out[ts.Fingerprint] = ts
	}
	return out, nil
}

// ListTombstones lists tombstones by fingerprint.
func (t *tx) ListTombstones(cursor string, limit int) ([]entity.Tombstone, string, error) {
	return page(t, "neo4j.ListTombstones", stmtTombstonesList, map[string]any{}, cursor, limit,
		func(p map[string]any) (entity.Tombstone, error) { return decodeTombstone(t.scope, p), nil },
		func(ts entity.Tombstone) string { return ts.Fingerprint })
}

// PutTombstone creates or replaces a tombstone by fingerprint.
func (t *tx) PutTombstone(ts entity.Tombstone) error {
	const op = "neo4j.PutTombstone"
	if err := t.mustWrite(op); err != nil {
		return err
	}
	if err := checkPart(op, "fingerprint", ts.Fingerprint, true); err != nil {
		return err
	}
	if err := t.checkScope(op, ts.Scope); err != nil {
		return err
	}
	_, err := t.numbered(stmtTombstonePut, 1, map[string]any{"props": tombstoneProps(&ts)})
	return err
}

// Meta reads a scope-level setting.
func (t *tx) Meta(key string) (string, bool, error) {
	recs, err := t.query(stmtMetaGet, map[string]any{"key": key})
	if err != nil || len(recs) == 0 {
		return "", false, err
	}
	return asString(recs[0].Values[0]), true, nil
}

// PutMeta sets a scope-level setting.
func (t *tx) PutMeta(key, value string) error {
	const op = "neo4j.PutMeta"
	if err := t.mustWrite(op); err != nil {
		return err
	}
	if err := checkPart(op, "key", key, true); err != nil {
		return err
	}
	_, err := t.query(stmtMetaPut, map[string]any{"key": key, "value": value})
	return err
}
