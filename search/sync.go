package search

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// syncPage is how many changes one batch applies.
const syncPage = 1000

// readChunk is how many records a sync reads from the store in one
// statement: each read is a step after which it yields to queries (see
// yielder), and one of a whole page (1,000 records, a statement of a
// hundred milliseconds on a busy Neo4j) held a search up for as long.
const readChunk = 200

// maxYield bounds one wait of the sync for the queries in flight.
const maxYield = 250 * time.Millisecond

// gate counts the queries in flight (Querying); the zero value has none.
type gate struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0; nil while it is 0
}

func (g *gate) enter() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n == 0 {
		g.idle = make(chan struct{})
	}
	g.n++
}

func (g *gate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.n == 0 {
		close(g.idle)
		g.idle = nil
	}
}

// wait returns once no query is in flight, or after limit, or when ctx
// ends, and says how long it waited.
func (g *gate) wait(ctx context.Context, limit time.Duration) time.Duration {
	g.mu.Lock()
	idle := g.idle
	g.mu.Unlock()
	if idle == nil || limit <= 0 {
		return 0
	}
	start := time.Now()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	case <-ctx.Done():
	}
	return time.Since(start)
}

// Querying notes a query in flight until done is called: a running sync
// yields to it (see yielder). Recall calls it once the query's own
// catch-up (CatchUp, which counts itself) is done, so a query never waits
// for a sync that waits for it.
func (x *Index) Querying() (done func()) {
	x.queries.enter()
	var once sync.Once
	return func() { once.Do(x.queries.leave) }
}

// yielder paces a sync to the queries in flight, so that a long catch-up
// (another scope's import, a new replica) does not starve recall on a
// small machine, where the store, the index and the searches share the
// cores: before each step — reading a page of changes, a chunk of records,
// applying a batch — it waits while a query runs, at most as long as its
// previous step took (and maxYield), so the sync keeps at least half of
// its pace however many queries come, and all of it when none do.
type yielder struct {
	queries *gate
	last    time.Time // when the previous step began
	waited  time.Duration
}

// step is called before each step of the sync.
func (y *yielder) step(ctx context.Context) {
	if y == nil {
		return
	}
	if !y.last.IsZero() {
		y.waited += y.queries.wait(ctx, min(time.Since(y.last), maxYield))
	}
	y.last = time.Now()
}

// scopeState is what the index knows of one scope's changes in flight.
type scopeState struct {
	// mu is held while the scope's changes are read and applied.
	mu sync.Mutex
	// pending is set by Notify: a local write of the scope the index may
	// not have applied yet.
	pending atomic.Bool
	// busy is set while mu is held.
	busy atomic.Bool
}

func (st *scopeState) lock() {
	st.mu.Lock()
	st.busy.Store(true)
}

func (st *scopeState) unlock() {
	st.busy.Store(false)
	st.mu.Unlock()
}

func (x *Index) state(scope entity.Scope) *scopeState {
	x.scopesMu.Lock()
	defer x.scopesMu.Unlock()
	st := x.scopes[scope]
	if st == nil {
		st = &scopeState{}
		x.scopes[scope] = st
	}
	return st
}

// page is changes of one scope and the position they take it to.
type page struct {
	scope   entity.Scope
	changes []graph.Change
	to      uint64
	// fresh: the index held nothing of the scope when the sync began, so
	// no digest is looked up (see put).
	fresh bool
}

// Sync applies the changes of every scope after the position the index
// reached in it (graph.Store.Heads tells which scopes moved) and returns
// how many it applied. Each batch takes a page of every scope behind in
// turn, so a scope with a long backlog does not hold the others back. The
// new positions go into the batch with the page's last documents (a page
// whose documents pass syncBatchBytes takes several; see cappedBatch), so
// a crash leaves the index at an earlier position and the next Sync
// catches up. Records that were deleted, or are gone by the time Sync
// reads them, leave the index. While queries are in flight it yields to them (see
// Querying), keeping at least half its pace.
func (x *Index) Sync(ctx context.Context, store graph.Store) (int, error) {
	x.syncMu.Lock()
	defer x.syncMu.Unlock()
	y := &yielder{queries: &x.queries}
	defer func() { x.yielded.Add(int64(y.waited)) }()
	read := time.Now()
	heads, err := store.Heads(ctx)
	if err != nil {
		return 0, err
	}
	x.lag.Read(heads, read)
	behind := graph.Behind(heads, x.Seq)
	fresh := map[entity.Scope]bool{}
	for _, scope := range behind {
		fresh[scope] = x.Seq(scope) == 0
	}
	n := 0
	for len(behind) > 0 {
		if err := ctxErr(ctx, "search.Sync"); err != nil {
			return n, err
		}
		var pages []page
		var held []*scopeState
		var next []entity.Scope
		room := syncPage
		for i, scope := range behind {
			if room == 0 {
				next = append(next, behind[i:]...)
				break
			}
			y.step(ctx)
			st := x.state(scope)
			st.lock()
			held = append(held, st)
			p, done, err := x.read(ctx, store, st, scope, room)
			if err != nil {
				unlockAll(held)
				return n, err
			}
			if done {
				p.to = max(p.to, heads[scope])
			} else {
				next = append(next, scope)
			}
			p.fresh = fresh[scope]
			pages = append(pages, p)
			room -= len(p.changes)
		}
		err := x.apply(ctx, store, pages, y)
		unlockAll(held)
		if err != nil {
			return n, err
		}
		n += syncPage - room
		behind = next
	}
	x.lag.Reached(read)
	return n, nil
}

func unlockAll(held []*scopeState) {
	for _, st := range held {
		st.unlock()
	}
}

// read reads up to limit changes of scope after the index's position, with
// st locked, and says whether they reach the end of what the scope has
// committed. A local write notified before the read is in it, unless the
// page is cut short: then the scope stays pending.
func (x *Index) read(ctx context.Context, store graph.Store, st *scopeState, scope entity.Scope, limit int) (page, bool, error) {
	from := x.Seq(scope)
	wasPending := st.pending.Swap(false)
	cs, err := store.ScopeChanges(ctx, scope, from, limit)
	if err != nil {
		if wasPending {
			st.pending.Store(true)
		}
		return page{}, false, err
	}
	p := page{scope: scope, changes: cs, to: from}
	if len(cs) > 0 {
		p.to = cs[len(cs)-1].Seq
	}
	done := len(cs) < limit
	if !done && wasPending {
		st.pending.Store(true)
	}
	return p, done, nil
}

// catchUp applies every change of scope the index has not applied. Once
// it holds the scope it counts as a query in flight (a sync yields to it);
// not while it waits for a sync that holds the scope.
func (x *Index) catchUp(ctx context.Context, store graph.Store, scope entity.Scope) error {
	st := x.state(scope)
	st.lock()
	defer st.unlock()
	defer x.Querying()()
	for {
		if err := ctxErr(ctx, "search.CatchUp"); err != nil {
			return err
		}
		p, done, err := x.read(ctx, store, st, scope, syncPage)
		if err != nil {
			return err
		}
		if len(p.changes) > 0 {
			if err := x.apply(ctx, store, []page{p}, nil); err != nil {
				return err
			}
		}
		if done {
			return nil
		}
	}
}

// apply indexes pages of changes with the positions they reach, in one
// batch, or several when their documents pass syncBatchBytes (the last
// carries the positions), reading the records readChunk at a time; y (nil: none) yields to
// queries before each read and before the batch.
func (x *Index) apply(ctx context.Context, store graph.Store, pages []page, y *yielder) error {
	to := map[entity.Scope]uint64{}
	for _, p := range pages {
		if p.to > x.Seq(p.scope) {
			to[p.scope] = p.to
		}
	}
	if len(to) == 0 {
		return nil
	}
	// Raised before the documents are visible, so a query never trusts a
	// flag set later than it thinks (see Query and flagEnded).
	now := time.Now()
	if n := now.UnixNano(); n > x.flagged.Load() {
		x.flagged.Store(n)
	}
	// Chunks only where there is someone to yield to: a query's own
	// catch-up (y nil) reads its page in one statement.
	chunk := readChunk
	if y == nil {
		chunk = syncPage
	}
	b := &cappedBatch{bi: x.bi, b: x.bi.NewBatch(), max: syncBatchBytes}
	for _, p := range pages {
		for part := range slices.Chunk(p.changes, chunk) {
			y.step(ctx)
			err := store.View(ctx, p.scope, func(tx graph.Tx) error {
				return x.indexChanges(b, tx, part, now, p.fresh)
			})
			if err != nil {
				return err
			}
		}
	}
	shards, err := x.pos.encode(to)
	if err != nil {
		return entity.Wrap(entity.EINTERNAL, "search.Sync", err)
	}
	for i, v := range shards {
		b.b.SetInternal(posKey(i), v)
	}
	y.step(ctx)
	if err := b.apply(); err != nil {
		return err
	}
	x.pos.set(to)
	return nil
}

// syncBatchBytes bounds the JSON of the documents one Bleve batch of a
// sync holds (besides syncPage changes): analysing a batch takes tens of
// times its documents' size, so a page of 1,000 facts of a kilobyte kept
// 40–60 MB live during a bulk import, and one of 1,000 large episodes
// hundreds. About 200 facts, or one large episode.
const syncBatchBytes = 256 << 10

// episodeGroup is how many episodes a sync reads from the store at once:
// at most 256 KiB of content each, 16 are the 4 MiB an import writes in a
// transaction.
const episodeGroup = 16

// batch takes the documents of a sync; size is the length of a
// document's JSON.
type batch interface {
	Index(id string, data any, size int) error
	Delete(id string)
}

// cappedBatch is a Bleve batch that applies what it holds once its
// documents pass max bytes, so a page of large records is not analysed in
// one go. Only the last batch of a page (apply) carries the positions: a
// crash between two leaves documents the index's position has not reached,
// which the next sync reads again and finds unchanged (digest).
type cappedBatch struct {
	bi    bleve.Index
	b     *bleve.Batch
	max   int
	bytes int
	last  int // the size of the last document put
}

func (c *cappedBatch) Index(id string, data any, size int) error {
	if err := c.b.Index(id, data); err != nil {
		return err
	}
	c.last = size
	if c.bytes += size; c.bytes >= c.max {
		if err := c.apply(); err != nil {
			return err
		}
		c.b = c.bi.NewBatch()
	}
	return nil
}

func (c *cappedBatch) Delete(id string) { c.b.Delete(id) }

// apply applies the batch.
func (c *cappedBatch) apply() error {
	if testBatchApplied != nil {
		testBatchApplied(c.bytes, c.last)
	}
	c.bytes, c.last = 0, 0
	if err := c.bi.Batch(c.b); err != nil {
		return entity.Wrap(entity.EINTERNAL, "search.Sync", err)
	}
	return nil
}

// testBatchApplied, when set (by tests), is called with the size of each
// batch a sync applies and of its last document.
var testBatchApplied func(bytes, last int)

// indexChanges puts the documents of changes of one scope into b: the
// facts and entities are read in one batch, the episodes in groups of
// episodeGroup (one round trip each on Neo4j), and a record deleted,
// forgotten or gone by now leaves the index. With fresh the index held
// nothing of the scope when the sync began (see put).
func (x *Index) indexChanges(b batch, tx graph.Tx, changes []graph.Change, now time.Time, fresh bool) error {
	factIDs, entityIDs, episodes := splitChanges(changes)
	facts, entities, err := graph.FactsAndEntitiesByID(tx, factIDs, entityIDs, true) // the index reads no claims
	if err != nil {
		return err
	}
	for _, c := range changes {
		typ, doc, ok := recordDoc(c, facts, entities, now)
		if !ok {
			continue
		}
		if err := x.put(b, docID(typ, c.Scope, c.ID), doc, fresh); err != nil {
			return err
		}
	}
	for group := range slices.Chunk(episodes, episodeGroup) {
		if err := x.putEpisodes(b, tx, group, fresh); err != nil {
			return err
		}
	}
	return nil
}

// splitChanges sorts changes by kind: the ids of the facts and entities
// to read (not deleted), and the episodes' changes.
func splitChanges(changes []graph.Change) (factIDs, entityIDs []string, episodes []graph.Change) {
	for _, c := range changes {
		switch {
		case c.Kind == graph.KindEpisode:
			episodes = append(episodes, c)
		case c.Deleted:
		case c.Kind == graph.KindFact:
			factIDs = append(factIDs, c.ID)
		case c.Kind == graph.KindEntity:
			entityIDs = append(entityIDs, c.ID)
		}
	}
	return factIDs, entityIDs, episodes
}

// recordDoc is the document of a fact's or an entity's change: its type,
// and nil when the record leaves the index. ok is false for the changes of
// other kinds.
func recordDoc(c graph.Change, facts map[string]entity.Fact, entities map[string]entity.Entity, now time.Time) (typ string, doc map[string]any, ok bool) {
	switch c.Kind {
	case graph.KindFact:
		// Forgotten facts leave every recall path, history included.
		if f, ok := facts[c.ID]; ok && !c.Deleted && f.ForgottenAt == nil {
			doc = factDoc(&f, now)
		}
		return TypeFact, doc, true
	case graph.KindEntity:
		if e, ok := entities[c.ID]; ok && !c.Deleted && e.ForgottenAt == nil {
			doc = entityDoc(&e)
		}
		return TypeEntity, doc, true
	}
	return "", nil, false // episodes apart; tombstones are not searchable
}

// putEpisodes reads a group of episodes' changes and puts their documents.
func (x *Index) putEpisodes(b batch, tx graph.Tx, group []graph.Change, fresh bool) error {
	var ids []string
	for _, c := range group {
		if !c.Deleted {
			ids = append(ids, c.ID)
		}
	}
	got, err := graph.EpisodesByID(tx, ids)
	if err != nil {
		return err
	}
	for _, c := range group {
		var doc map[string]any
		// A forgotten episode's text would tell a forgotten fact again.
		if e, ok := got[c.ID]; ok && !c.Deleted && e.ForgottenAt == nil {
			doc = episodeDoc(&e)
		}
		if err := x.put(b, docID(TypeEpisode, c.Scope, c.ID), doc, fresh); err != nil {
			return err
		}
	}
	return nil
}

// put puts doc into b as document id, or takes id out of the index when
// doc is nil; a document the index holds already unchanged is left alone.
// With fresh the index held nothing of the document's scope when the sync
// began: its digest is not looked up (a look-up in every segment, for a
// document not there). A document the sync itself wrote meanwhile is then
// written again, which changes nothing.
func (x *Index) put(b batch, id string, doc map[string]any, fresh bool) error {
	if doc == nil {
		b.Delete(id)
		return nil
	}
	h, size, err := digest(doc)
	if err != nil {
		return entity.Wrap(entity.EINTERNAL, "search.Sync", err)
	}
	if !fresh && x.storedDigest(id) == h {
		return nil // only what the index does not hold changed
	}
	doc[fHash] = h
	x.note(doc)
	return b.Index(id, doc, size)
}

// digest is a short hash of a document's JSON (map keys sorted), and the
// JSON's length.
func digest(doc map[string]any) (string, int, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return "", 0, err
	}
	h := fnv.New64a()
	h.Write(b)
	return strconv.FormatUint(h.Sum64(), 36), len(b), nil
}

// storedDigest returns the digest stored with document id, "" if none.
func (x *Index) storedDigest(id string) string {
	d, err := x.bi.Document(id)
	if err != nil || d == nil {
		return ""
	}
	var h string
	d.VisitFields(func(f index.Field) {
		if f.Name() == fHash {
			h = string(f.Value())
		}
	})
	return h
}

// Notify says that scope was just written: the next query in it catches
// up first (read your writes), and Follow syncs now. It never blocks; hook
// it to the memory service's Changed callback.
func (x *Index) Notify(scope entity.Scope) {
	x.state(scope).pending.Store(true)
	select {
	case x.notify <- struct{}{}:
	default:
	}
}

// CatchUp makes a query in scope see the writes made there through this
// process (Notify) that the index has not applied yet: it applies the
// scope's changes when such a write is pending or a sync that may be
// applying it is running, and waits for nothing otherwise — not for other
// scopes' changes, however many. Writes of other processes are Follow's.
func (x *Index) CatchUp(ctx context.Context, store graph.Store, scope entity.Scope) error {
	st := x.state(scope)
	if !st.pending.Load() && !st.busy.Load() {
		return nil
	}
	return x.catchUp(ctx, store, scope)
}

// Follow keeps the index in sync with store until ctx ends: it syncs at
// once, then whenever Notify is called and at least every interval (which
// also picks up writes of other processes, e.g. other replicas sharing a
// Neo4j store). Errors are passed to onErr (when set) and retried at the
// next tick.
func (x *Index) Follow(ctx context.Context, store graph.Store, interval time.Duration, onErr func(error)) {
	graph.Follow(ctx, func(ctx context.Context) error {
		_, err := x.Sync(ctx, store)
		return err
	}, x.notify, interval, onErr)
}

// Rebuild makes a fresh index of store in dir, replacing the one there
// only once the new one is complete: it is built in a sibling folder and
// renamed into place, so an interrupted rebuild leaves the old index
// usable. No other process may have dir open.
func Rebuild(ctx context.Context, dir string, store graph.Store) (*Index, error) {
	tmp := dir + ".rebuild"
	if err := os.RemoveAll(tmp); err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, "search.Rebuild", err)
	}
	x, err := Open(tmp)
	if err != nil {
		return nil, err
	}
	_, err = x.Sync(ctx, store)
	if err == nil {
		err = x.Compact(ctx)
	}
	if err != nil {
		x.Close()
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := x.Close(); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, "search.Rebuild", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, "search.Rebuild", err)
	}
	return Open(dir)
}

// compactPlaceholder is the id of the document Compact writes and deletes.
const compactPlaceholder = "\x00compact"

// Compact merges the index's segments into one, which makes queries
// faster after a bulk load (Rebuild, a long catch-up). It blocks until
// done; searches and syncs may run meanwhile.
func (x *Index) Compact(ctx context.Context) error {
	ai, err := x.bi.Advanced()
	if err != nil {
		return entity.Wrap(entity.EINTERNAL, "search.Compact", err)
	}
	s, ok := ai.(*scorch.Scorch)
	if !ok {
		return nil
	}
	// Deleted documents keep their terms in the segment that held them
	// until a merge rewrites it, and the merger never rewrites a lone
	// segment: a placeholder written now makes sure there are two, so a
	// purge leaves no term behind. It is deleted after the merge (a
	// deleted placeholder holds no term of any record).
	if err := x.bi.Index(compactPlaceholder, map[string]any{fType: "placeholder"}); err != nil {
		return entity.Wrap(entity.EINTERNAL, "search.Compact", err)
	}
	// The merger only rewrites segments already on disk.
	if err := x.persisted(ctx, true); err != nil {
		return err
	}
	if err := s.ForceMerge(ctx, &mergeplan.SingleSegmentMergePlanOptions); err != nil {
		return entity.Wrap(entity.EINTERNAL, "search.Compact", err)
	}
	if err := x.bi.Delete(compactPlaceholder); err != nil {
		return entity.Wrap(entity.EINTERNAL, "search.Compact", err)
	}
	return nil
}

// persisted waits until every batch applied so far is on disk and, with
// files, until no segment is held in memory only (the merger rewrites
// only segments on disk).
func (x *Index) persisted(ctx context.Context, files bool) error {
	return persisted(ctx, x.bi, files)
}

func persisted(ctx context.Context, bi bleve.Index, files bool) error {
	ai, err := bi.Advanced()
	if err != nil {
		return entity.Wrap(entity.EINTERNAL, "search.persisted", err)
	}
	s, ok := ai.(*scorch.Scorch)
	if !ok {
		return nil
	}
	target, _ := s.StatsMap()["CurRootEpoch"].(uint64)
	for {
		m := s.StatsMap()
		n, _ := m["LastPersistedEpoch"].(uint64)
		mem, _ := m["num_root_memorysegments"].(uint64)
		if n >= target && (!files || mem == 0) {
			return nil
		}
		select {
		case <-ctx.Done():
			return entity.Wrap(entity.EUNAVAILABLE, "search.persisted", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Yielded is how long the syncs of this index waited for queries in
// flight (see Querying), in all.
func (x *Index) Yielded() time.Duration { return time.Duration(x.yielded.Load()) }
