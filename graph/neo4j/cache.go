package neo4j

import (
	"container/list"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// writeCache holds, for the write transactions of this Store, the fact
// chains (Tx.Chains) and the entities of name keys (Tx.EntitiesByKey) they
// read and wrote, so an ingest batch reads from Neo4j only the chains and
// names it has not met lately. What it holds of a scope is true at one
// change number, the scope's head after this Store's last write there: a
// write transaction, holding the scope's lock, reads the head first
// (write_lock.cypher), and when the head has moved — another Store wrote
// to the scope, or a commit whose outcome is unknown — the scope's entries
// are dropped. This Store's own committed writes are applied to the entries
// before its next write transaction of the scope starts (writer), so the
// head it leaves is the head it knows.
//
// Recall's hit counts (TouchFacts) take no change number: another Store's
// hits are not seen here, which costs nothing, as facts are rewritten by
// the properties that changed (see tx.writeFacts) and no write path decides
// on a chain's hit counts. This Store's own touches drop the chains touched.
//
// Reads (View) use it too, for the facts around entities (Tx.FactsAround
// without claims: all of an entity's facts, or of a hub its aroundCap
// newest, filtered and limited in Go), chains, name keys, name prefixes
// (Tx.EntitiesByPrefixes), and facts and entities by id (from the chains
// and name keys held). A read checks the entries against the
// scope's head, read once per read (scope_head.cypher), holds what it read
// only if the head has not moved since, and passes the cache by while a
// write transaction of this Store that has drawn change numbers is open
// in the scope. This Store's writes keep the facts around held up to date
// (writeAround): each fact written goes into the entries of its subject and
// object and out of those it left; the entities a write creates that no
// fact named before are held from then on with the facts it wrote of them,
// so recall finds the facts around what was just written without reading
// them. A deletion drops all facts around, an entity write every prefix;
// this Store's touches are counted on the facts held, as the store counts
// them. Another Store's hits are seen once the scope's head moves. A budget
// of 0 turns it off.
type writeCache struct {
	mu     sync.Mutex
	budget int64 // bytes, estimated
	size   int64
	lru    list.List // *cacheEntry, most recently used first
	scopes map[entity.Scope]*scopeCache
	// hits and misses count the chains and name keys write transactions
	// asked for; readHits and readMisses the facts around entities and the
	// name keys reads asked for.
	hits, misses         uint64
	readHits, readMisses uint64
	// added counts the entries ever added.
	added uint64
}

// scopeCache is what the cache holds of one scope.
type scopeCache struct {
	// writer is held by this Store's write transaction of the scope from
	// before its lock statement until its writes are applied here.
	writer sync.Mutex
	head   uint64
	// writing: a write transaction of this Store has drawn change numbers
	// and not yet committed (or aborted); reads neither use nor fill the
	// scope's entries meanwhile, as the head they read may be one the
	// cache has not caught up with yet. A transaction that only counts
	// hits (TouchFacts) moves no head and leaves reads be.
	writing bool
	chains  map[graph.ChainKey]*list.Element
	names   map[string]*list.Element
	around  map[string]*list.Element
	// prefixes: the entities of name keys starting with a prefix, keyed
	// by prefixKey; dropped whenever this Store writes an entity.
	prefixes map[string]*list.Element
	// factChain, entityNames and factAround are the reverse maps: the
	// chain held that lists a fact, the name keys held that list an
	// entity, the entities whose facts around held list a fact.
	factChain   map[string]graph.ChainKey
	entityNames map[string][]string
	factAround  map[string][]string
}

// cacheEntry is one chain (facts by id), one name key (entities by id,
// none when no entity has the key) or the facts around one entity.
type cacheEntry struct {
	scope    entity.Scope
	kind     entryKind
	chain    graph.ChainKey
	name     string // a name key, or the entity of facts around
	facts    []entity.Fact
	entities []entity.Entity
	// partial: the entity has more than aroundCap facts around it, and
	// facts holds the aroundCap newest.
	partial bool
	// added numbers the entry among all those added (writeCache.added).
	added uint64
	size  int64
}

type entryKind uint8

const (
	chainEntry entryKind = iota
	nameEntry
	// aroundEntry: every fact whose subject or object the entity is,
	// without claims and revisions, newest (highest id) first.
	aroundEntry
	// prefixEntry: the entities of the name keys starting with a prefix,
	// as Tx.EntitiesByPrefixes answers them for one limit.
	prefixEntry
)

// aroundCap bounds the facts around an entity the cache holds: of an
// entity with more (a hub), the newest, which answer a read whose limit
// they fill; another read goes to the store.
const aroundCap = 256

func newWriteCache(budgetMB int) *writeCache {
	return &writeCache{budget: int64(budgetMB) << 20, scopes: map[entity.Scope]*scopeCache{}}
}

func (c *writeCache) on() bool { return c != nil && c.budget > 0 }

// writer returns the scope's writer lock, to be held around a write
// transaction.
func (c *writeCache) writer(scope entity.Scope) *sync.Mutex {
	c.mu.Lock()
	defer c.mu.Unlock()
	return &c.scope(scope).writer
}

func (c *writeCache) scope(scope entity.Scope) *scopeCache {
	sc := c.scopes[scope]
	if sc == nil {
		sc = &scopeCache{chains: map[graph.ChainKey]*list.Element{}, names: map[string]*list.Element{},
			around: map[string]*list.Element{}, prefixes: map[string]*list.Element{}, factChain: map[string]graph.ChainKey{},
			entityNames: map[string][]string{}, factAround: map[string][]string{}}
		c.scopes[scope] = sc
	}
	return sc
}

// begin checks the scope's entries against head, read under the scope's
// lock, and drops them when the scope has moved on without this Store.
// It returns the cache's count of entries added so far (see
// txCache.added).
func (c *writeCache) begin(scope entity.Scope, head uint64) (added uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sc := c.scope(scope)
	if sc.head != head {
		c.dropScope(sc)
		sc.head = head
	}
	return c.added
}

// numbering notes that a write transaction of scope draws change numbers.
func (c *writeCache) numbering(scope entity.Scope) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.scope(scope).writing = true
}

// abort ends a write transaction that did not commit, or whose outcome is
// unknown: the next transaction's head tells (begin, view).
func (c *writeCache) abort(scope entity.Scope) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.scope(scope).writing = false
}

func (c *writeCache) dropScope(sc *scopeCache) {
	for _, el := range sc.chains {
		c.remove(sc, el)
	}
	for _, el := range sc.names {
		c.remove(sc, el)
	}
	c.dropAll(sc, sc.around)
	c.dropAll(sc, sc.prefixes)
}

// dropAll removes the entries of one of the scope's maps keyed by name.
func (c *writeCache) dropAll(sc *scopeCache, entries map[string]*list.Element) {
	for _, el := range entries {
		c.remove(sc, el)
	}
}

// remove takes an entry out of the cache and its reverse maps.
func (c *writeCache) remove(sc *scopeCache, el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
	c.size -= e.size
	if m := sc.named(e.kind); m != nil {
		delete(m, e.name)
	} else {
		delete(sc.chains, e.chain)
	}
	for _, f := range e.facts {
		switch {
		case e.kind == aroundEntry:
			unlist(sc.factAround, f.ID, e.name)
		case sc.factChain[f.ID] == e.chain:
			delete(sc.factChain, f.ID)
		}
	}
	if e.kind == nameEntry {
		for _, en := range e.entities {
			unlist(sc.entityNames, en.ID, e.name)
		}
	}
}

// unlist takes name out of the reverse map's list for key.
func unlist(m map[string][]string, key, name string) {
	if l := slices.DeleteFunc(m[key], func(n string) bool { return n == name }); len(l) > 0 {
		m[key] = l
	} else {
		delete(m, key)
	}
}

// named is the scope's entries of a kind keyed by cacheEntry.name; nil
// for chains.
func (sc *scopeCache) named(k entryKind) map[string]*list.Element {
	switch k {
	case nameEntry:
		return sc.names
	case aroundEntry:
		return sc.around
	case prefixEntry:
		return sc.prefixes
	}
	return nil
}

// add puts an entry in (replacing one of the same key), then evicts.
func (c *writeCache) add(sc *scopeCache, e *cacheEntry) {
	c.added++
	e.added = c.added
	if names := sc.named(e.kind); names == nil {
		if el, ok := sc.chains[e.chain]; ok {
			c.remove(sc, el)
		}
		sc.chains[e.chain] = c.lru.PushFront(e)
	} else {
		if el, ok := names[e.name]; ok {
			c.remove(sc, el)
		}
		names[e.name] = c.lru.PushFront(e)
	}
	e.size = 64 + int64(len(e.name)+len(e.chain.SubjectID)+len(e.chain.Predicate))
	for i := range e.facts {
		f := &e.facts[i]
		e.size += factSize(f)
		if e.kind == aroundEntry {
			sc.factAround[f.ID] = append(sc.factAround[f.ID], e.name)
		} else {
			sc.factChain[f.ID] = e.chain
		}
	}
	for i := range e.entities {
		en := &e.entities[i]
		e.size += entitySize(en)
		if e.kind == nameEntry {
			sc.entityNames[en.ID] = append(sc.entityNames[en.ID], e.name)
		}
	}
	c.size += e.size
	c.evict()
}

// evict removes the least recently used entries while over the budget.
func (c *writeCache) evict() {
	for c.size > c.budget && c.lru.Len() > 0 {
		old := c.lru.Back()
		c.remove(c.scopes[old.Value.(*cacheEntry).scope], old)
	}
}

// chain returns copies of a chain held (the facts a transaction wrote
// left out) and whether it is held, noting the facts in w.served.
func (c *writeCache) chain(scope entity.Scope, k graph.ChainKey, w *txCache) ([]entity.Fact, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.scope(scope).chains[k]
	if !tally(ok, &c.hits, &c.misses) {
		return nil, false
	}
	c.lru.MoveToFront(el)
	held := el.Value.(*cacheEntry).facts
	out := make([]entity.Fact, 0, len(held))
	for i := range held {
		if w.wroteFact[held[i].ID] {
			continue // moved to another chain by this transaction
		}
		// A fact held is replaced whole, its slices never changed in
		// place, so the shallow copy stays as stored.
		w.served[held[i].ID] = held[i]
		out = append(out, held[i].Clone())
	}
	return out, true
}

// tally counts a hit or a miss and returns hit.
func tally(hit bool, hits, misses *uint64) bool {
	if hit {
		*hits++
	} else {
		*misses++
	}
	return hit
}

// stats returns the hits and misses so far and the bytes held (estimated).
func (c *writeCache) stats() graph.CacheStats {
	if !c.on() {
		return graph.CacheStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return graph.CacheStats{WriteHits: c.hits, WriteMisses: c.misses, ReadHits: c.readHits, ReadMisses: c.readMisses, Bytes: c.size}
}

// name returns copies of the entities of a name key held, and whether it
// is held.
func (c *writeCache) name(scope entity.Scope, key string) ([]entity.Entity, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.scope(scope).names[key]
	if !tally(ok, &c.hits, &c.misses) {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return cloneEntities(el.Value.(*cacheEntry).entities), true
}

// txCache is what one write transaction read from the store and wrote,
// applied to the cache when it has committed (commit).
type txCache struct {
	// chains and names read from the store before the transaction wrote
	// to them: the scope's state at its head.
	chains map[graph.ChainKey][]entity.Fact
	names  map[string][]entity.Entity
	// served are the facts Chains answered from the cache, as stored.
	served map[string]entity.Fact
	// wroteChain and wroteFact: the chains and facts PutFacts was given.
	wroteChain map[graph.ChainKey]bool
	wroteFact  map[string]bool
	// facts are the facts written, as the store holds them now, in order.
	facts []entity.Fact
	// gone are the facts deleted or touched: their chains are dropped.
	gone []string
	// touched are the hits counted (TouchFacts), applied to the facts
	// around entities held as the store applied them.
	touched map[string]time.Time
	// fresh are the entities the transaction created that no fact named
	// before (entities_put.cypher): their facts around are those it wrote.
	fresh []string
	// dropAround: the transaction deleted a fact or an entity, all facts
	// around go.
	dropAround bool
	// numbered: the transaction has drawn change numbers (tx.draw).
	numbered bool
	// added is the cache's count of entries added when the transaction
	// began: a read may hold entries added later, while the transaction
	// that only counted hits ran, with or without its hits.
	added uint64
	// entities are the ids and new name keys of the entities written or
	// deleted: the name keys listing them, and their new keys, are dropped.
	entities      []string
	entityKeys    []string
	wroteEntities bool
}

func newTxCache() *txCache {
	return &txCache{chains: map[graph.ChainKey][]entity.Fact{}, names: map[string][]entity.Entity{},
		served: map[string]entity.Fact{}, wroteChain: map[graph.ChainKey]bool{}, wroteFact: map[string]bool{}}
}

// commit applies a committed write transaction that started at head start
// and left the scope at head end.
func (c *writeCache) commit(scope entity.Scope, start, end uint64, w *txCache) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sc := c.scope(scope)
	sc.writing = false
	if sc.head != start {
		c.dropScope(sc)
		sc.head = end
		return
	}
	sc.head = end
	if w.dropAround || len(w.touched) > 0 && len(w.facts) > 0 {
		// (Hits counted in a transaction that also wrote facts may be
		// in the facts written or not.)
		c.dropAll(sc, sc.around)
	} else {
		c.writeAround(scope, sc, w)
	}
	for id, at := range w.touched {
		for _, eid := range slices.Clone(sc.factAround[id]) {
			el := sc.around[eid]
			e := el.Value.(*cacheEntry)
			if e.added > w.added {
				// Read while the transaction ran: perhaps after its
				// commit, with the hit already counted.
				c.remove(sc, el)
			} else if i, ok := slices.BinarySearchFunc(e.facts, id, newestFirst); ok {
				touch(&e.facts[i], at)
			}
		}
	}
	for k, fs := range w.chains {
		c.add(sc, &cacheEntry{scope: scope, chain: k, facts: fs})
	}
	for n, es := range w.names {
		c.add(sc, &cacheEntry{scope: scope, kind: nameEntry, name: n, entities: es})
	}
	for _, id := range w.gone {
		if k, ok := sc.factChain[id]; ok {
			c.remove(sc, sc.chains[k])
		}
	}
	for i := range w.facts {
		f := &w.facts[i]
		k := graph.ChainKey{SubjectID: f.SubjectID, Predicate: f.Predicate}
		if was, ok := sc.factChain[f.ID]; ok && was != k {
			// Moved to another chain: the one it left is dropped.
			c.remove(sc, sc.chains[was])
		}
		el, ok := sc.chains[k]
		if !ok {
			continue
		}
		e := el.Value.(*cacheEntry)
		i, found := slices.BinarySearchFunc(e.facts, f.ID, oldestFirst)
		if found {
			c.size -= factSize(&e.facts[i])
			e.facts[i] = *f
		} else {
			e.facts = slices.Insert(e.facts, i, *f)
		}
		grow := factSize(f)
		e.size += grow
		c.size += grow
		sc.factChain[f.ID] = k
	}
	for _, id := range w.entities {
		for _, n := range slices.Clone(sc.entityNames[id]) {
			c.remove(sc, sc.names[n])
		}
	}
	for _, n := range w.entityKeys {
		if el, ok := sc.names[n]; ok {
			c.remove(sc, el)
		}
	}
	if w.wroteEntities {
		c.dropAll(sc, sc.prefixes)
	}
	c.evict()
}

// writeAround applies the facts a committed transaction wrote to the facts
// around entities held — each fact goes from the entities it no longer
// names to those it names, without claims and revisions, as a read holds
// it — and holds the facts around the entities it created that no fact
// named before: exactly the facts it wrote of them. A hub's entry keeps its
// aroundCap newest; one that loses a fact it held is dropped, as the next
// newest is not known here.
func (c *writeCache) writeAround(scope entity.Scope, sc *scopeCache, w *txCache) {
	last := make(map[string]int, len(w.facts))
	for i := range w.facts {
		last[w.facts[i].ID] = i
	}
	var written []entity.Fact // the last version of each, bare, in order
	for i := range w.facts {
		if last[w.facts[i].ID] == i {
			f := w.facts[i]
			f.Claims, f.Revisions = nil, nil
			written = append(written, f)
		}
	}
	fresh := make(map[string][]entity.Fact, len(w.fresh))
	for _, id := range w.fresh {
		if _, held := sc.around[id]; !held { // (held: read meanwhile, kept up to date below)
			fresh[id] = nil
		}
	}
	for i := range written {
		f := &written[i]
		for _, id := range slices.Clone(sc.factAround[f.ID]) {
			if id != f.SubjectID && id != f.ObjectID {
				c.unhold(sc, sc.around[id], f.ID)
			}
		}
		for j, id := range []string{f.SubjectID, f.ObjectID} {
			if id == "" || j == 1 && id == f.SubjectID {
				continue
			}
			if el, ok := sc.around[id]; ok {
				c.upsert(sc, el, f)
			} else if fs, ok := fresh[id]; ok {
				fresh[id] = append(fs, *f)
			}
		}
	}
	for id, fs := range fresh {
		slices.SortFunc(fs, func(f, g entity.Fact) int { return newestFirst(f, g.ID) })
		partial := len(fs) > aroundCap
		c.add(sc, &cacheEntry{scope: scope, kind: aroundEntry, name: id, facts: fs[:min(len(fs), aroundCap)], partial: partial})
	}
}

// unhold takes fact id out of the facts around an entity held (el), or
// drops the entry when it holds only the newest.
func (c *writeCache) unhold(sc *scopeCache, el *list.Element, id string) {
	e := el.Value.(*cacheEntry)
	i, ok := slices.BinarySearchFunc(e.facts, id, newestFirst)
	switch {
	case !ok:
		return
	case e.partial:
		c.remove(sc, el)
		return
	}
	c.resize(e, -factSize(&e.facts[i]))
	e.facts = slices.Delete(e.facts, i, i+1)
	unlist(sc.factAround, id, e.name)
}

// upsert puts fact f in the facts around an entity held (el), in place of
// its earlier version; a hub's entry keeps its aroundCap newest.
func (c *writeCache) upsert(sc *scopeCache, el *list.Element, f *entity.Fact) {
	e := el.Value.(*cacheEntry)
	i, ok := slices.BinarySearchFunc(e.facts, f.ID, newestFirst)
	if ok {
		c.resize(e, factSize(f)-factSize(&e.facts[i]))
		e.facts[i] = *f
		return
	}
	if e.partial && i == len(e.facts) {
		return // older than the newest held
	}
	e.facts = slices.Insert(e.facts, i, *f)
	c.resize(e, factSize(f))
	sc.factAround[f.ID] = append(sc.factAround[f.ID], e.name)
	if len(e.facts) > aroundCap {
		old := &e.facts[aroundCap]
		c.resize(e, -factSize(old))
		unlist(sc.factAround, old.ID, e.name)
		e.facts, e.partial = e.facts[:aroundCap], true
	}
}

// resize changes an entry's estimated size, and the cache's, by n bytes.
func (c *writeCache) resize(e *cacheEntry, n int64) {
	e.size += n
	c.size += n
}

// newestFirst orders the facts around an entity: by id, highest first.
func newestFirst(f entity.Fact, id string) int { return strings.Compare(id, f.ID) }

// oldestFirst orders the facts of a chain: by id, lowest first.
func oldestFirst(f entity.Fact, id string) int { return strings.Compare(f.ID, id) }

// touch counts a hit on a fact held as facts_touch.cypher does in the
// store: one more hit, the last access raised to at, never lowered. The
// fact is changed in place; readers were given copies.
func touch(f *entity.Fact, at time.Time) {
	f.Hits++
	if !at.IsZero() && (f.LastAccessedAt == nil || f.LastAccessedAt.Before(at)) {
		at := at.UTC()
		f.LastAccessedAt = &at
	}
}

// clear drops everything (Wipe).
func (c *writeCache) clear() {
	if !c.on() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, sc := range c.scopes {
		c.dropScope(sc)
		sc.head = 0
	}
}

// factSize estimates the bytes a fact held takes.
func factSize(f *entity.Fact) int64 {
	n := 580 + len(f.ID) + len(f.SubjectID) + len(f.Subject) + len(f.Predicate) + len(f.ObjectID) + len(f.Object) +
		len(f.Value) + len(f.Text) + len(f.Supersedes) + len(f.SupersededBy) + 160*len(f.Claims) + 200*len(f.Revisions) +
		64*len(f.Attributes)
	for _, s := range f.EpisodeIDs {
		n += 16 + len(s)
	}
	for _, s := range f.Conflicts {
		n += 16 + len(s)
	}
	return int64(n)
}

// entitySize estimates the bytes an entity held takes.
func entitySize(e *entity.Entity) int64 {
	n := 200 + len(e.ID) + len(e.Name) + len(e.Type) + len(e.Summary) + 64*len(e.Attributes)
	for _, a := range e.Aliases {
		n += 16 + len(a)
	}
	return int64(n)
}

// view readies the scope's entries for a read that found the scope at
// head, and reports whether the read may use them. The entries are true
// at the head the cache knows; when the read found another head, a write
// the cache has not seen happened (another Store's, or one whose outcome
// was unknown): the entries go and the cache starts again at head. While
// a write transaction of this Store is open, reads pass the cache by.
func (c *writeCache) view(scope entity.Scope, head uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	sc := c.scope(scope)
	if sc.writing {
		return false
	}
	if sc.head != head {
		c.dropScope(sc)
		sc.head = head
	}
	return true
}

// known is the head the cache's entries of the scope are true at.
func (c *writeCache) known(scope entity.Scope) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.scope(scope).head
}

// viewing returns the scope's cache if a read that found head may use it.
func (c *writeCache) viewing(scope entity.Scope, head uint64) (*scopeCache, bool) {
	sc := c.scope(scope)
	return sc, !sc.writing && sc.head == head
}

// viewed returns the entry of key in the map of the scope's entries that
// entries picks, for a read that found the scope at head, counting the hit
// or miss. The caller holds c.mu.
func viewed[K comparable](c *writeCache, scope entity.Scope, head uint64, entries func(*scopeCache) map[K]*list.Element, key K) (*cacheEntry, bool) {
	sc, ok := c.viewing(scope, head)
	var el *list.Element
	if ok {
		el, ok = entries(sc)[key]
	}
	if !tally(ok, &c.readHits, &c.readMisses) {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cacheEntry), true
}

// hold adds entries read by a read that found the scope at head, unless
// the scope has moved on since.
func (c *writeCache) hold(scope entity.Scope, head uint64, entries ...*cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sc, ok := c.viewing(scope, head); ok {
		for _, e := range entries {
			c.add(sc, e)
		}
	}
}

// around returns copies of the facts around entity id held for a read
// that found the scope at head (newest first), partial when they are only
// the newest, and whether the cache holds them.
func (c *writeCache) around(scope entity.Scope, head uint64, id string) (facts []entity.Fact, partial, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := viewed(c, scope, head, func(sc *scopeCache) map[string]*list.Element { return sc.around }, id)
	if !ok {
		return nil, false, false
	}
	return cloneFacts(e.facts), e.partial, true
}

// putAround holds the facts around entity id (newest first; partial: only
// the newest), read by a read that found the scope at head.
func (c *writeCache) putAround(scope entity.Scope, head uint64, id string, facts []entity.Fact, partial bool) {
	c.hold(scope, head, &cacheEntry{scope: scope, kind: aroundEntry, name: id, facts: facts, partial: partial})
}

// viewName is name for a read that found the scope at head.
func (c *writeCache) viewName(scope entity.Scope, head uint64, key string) ([]entity.Entity, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := viewed(c, scope, head, func(sc *scopeCache) map[string]*list.Element { return sc.names }, key)
	if !ok {
		return nil, false
	}
	return cloneEntities(e.entities), true
}

// viewChain is chain for a read that found the scope at head.
func (c *writeCache) viewChain(scope entity.Scope, head uint64, k graph.ChainKey) ([]entity.Fact, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := viewed(c, scope, head, func(sc *scopeCache) map[graph.ChainKey]*list.Element { return sc.chains }, k)
	if !ok {
		return nil, false
	}
	return cloneFacts(e.facts), true
}

// byID puts copies of the facts among factIDs that the chains held list
// (with bare, the facts around entities held too, which lack claims and
// revisions), and of the entities among entityIDs that the name keys held
// list, in fs and es, for a read that found the scope at head, and returns
// the ids it does not hold.
func (c *writeCache) byID(scope entity.Scope, head uint64, factIDs, entityIDs []string, bare bool, fs map[string]entity.Fact, es map[string]entity.Entity) (restFacts, restEntities []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sc, ok := c.viewing(scope, head)
	if !ok {
		return factIDs, entityIDs
	}
	for _, id := range factIDs {
		f, el := sc.chainFact(id)
		if f == nil && bare {
			f, el = sc.aroundFact(id)
		}
		if !tally(f != nil, &c.readHits, &c.readMisses) {
			restFacts = append(restFacts, id)
			continue
		}
		c.lru.MoveToFront(el)
		fs[id] = f.Clone()
	}
	for _, id := range entityIDs {
		var en *entity.Entity
		if names := sc.entityNames[id]; len(names) > 0 && sc.names[names[0]] != nil {
			el := sc.names[names[0]]
			held := el.Value.(*cacheEntry).entities
			if i := slices.IndexFunc(held, func(e entity.Entity) bool { return e.ID == id }); i >= 0 {
				en = &held[i]
				c.lru.MoveToFront(el)
			}
		}
		if !tally(en != nil, &c.readHits, &c.readMisses) {
			restEntities = append(restEntities, id)
			continue
		}
		es[id] = en.Clone()
	}
	return restFacts, restEntities
}

// chainFact is the fact of id in the chain held that lists it, and the
// chain's entry; nil when none does.
func (sc *scopeCache) chainFact(id string) (*entity.Fact, *list.Element) {
	el := sc.chains[sc.factChain[id]]
	if el == nil {
		return nil, nil
	}
	held := el.Value.(*cacheEntry).facts
	if i, ok := slices.BinarySearchFunc(held, id, oldestFirst); ok {
		return &held[i], el
	}
	return nil, nil
}

// aroundFact is the fact of id, bare, in the first facts around an entity
// held that list it, and their entry; nil when none does.
func (sc *scopeCache) aroundFact(id string) (*entity.Fact, *list.Element) {
	for _, eid := range sc.factAround[id] {
		el := sc.around[eid]
		if el == nil {
			continue
		}
		held := el.Value.(*cacheEntry).facts
		if i, ok := slices.BinarySearchFunc(held, id, newestFirst); ok {
			return &held[i], el
		}
	}
	return nil, nil
}

// putChains holds the chains read by a read that found the scope at head.
func (c *writeCache) putChains(scope entity.Scope, head uint64, chains map[graph.ChainKey][]entity.Fact) {
	entries := make([]*cacheEntry, 0, len(chains))
	for k, fs := range chains {
		entries = append(entries, &cacheEntry{scope: scope, chain: k, facts: fs})
	}
	c.hold(scope, head, entries...)
}

// prefixKey keys the entities of a prefix read with a limit.
func prefixKey(prefix string, limit int) string { return fmt.Sprintf("%d\x00%s", limit, prefix) }

// viewPrefix returns copies of the entities of prefix read with limit, for
// a read that found the scope at head, and whether they are held.
func (c *writeCache) viewPrefix(scope entity.Scope, head uint64, prefix string, limit int) ([]entity.Entity, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := viewed(c, scope, head, func(sc *scopeCache) map[string]*list.Element { return sc.prefixes }, prefixKey(prefix, limit))
	if !ok {
		return nil, false
	}
	return cloneEntities(e.entities), true
}

// putPrefixes holds the entities of prefixes read with limit by a read
// that found the scope at head.
func (c *writeCache) putPrefixes(scope entity.Scope, head uint64, prefixes map[string][]entity.Entity, limit int) {
	entries := make([]*cacheEntry, 0, len(prefixes))
	for p, es := range prefixes {
		entries = append(entries, &cacheEntry{scope: scope, kind: prefixEntry, name: prefixKey(p, limit), entities: es})
	}
	c.hold(scope, head, entries...)
}

// putNames holds the entities of name keys read by a read that found the
// scope at head.
func (c *writeCache) putNames(scope entity.Scope, head uint64, names map[string][]entity.Entity) {
	entries := make([]*cacheEntry, 0, len(names))
	for n, es := range names {
		entries = append(entries, &cacheEntry{scope: scope, kind: nameEntry, name: n, entities: es})
	}
	c.hold(scope, head, entries...)
}

func cloneFacts(fs []entity.Fact) []entity.Fact {
	out := make([]entity.Fact, len(fs))
	for i := range fs {
		out[i] = fs[i].Clone()
	}
	return out
}

func cloneEntities(es []entity.Entity) []entity.Entity {
	if len(es) == 0 {
		return nil
	}
	out := make([]entity.Entity, len(es))
	for i := range es {
		out[i] = es[i].Clone()
	}
	return out
}
