package vector

import (
	"context"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graphmem/graphmem/embed"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/search"
)

// Embedder turns texts into unit vectors (embed.Client).
type Embedder interface {
	Embed(ctx context.Context, kind embed.Kind, texts []string) ([][]float32, error)
	// Model names the model; vectors of another model are discarded.
	Model() string
}

// Index is the vector index: one HNSW graph per scope and record type,
// derived from the store's change sequence like the search index and
// kept in one file of its folder. It is safe for concurrent use; Sync
// calls are serialised.
type Index struct {
	dir string
	emb Embedder
	id  string // model and prefixes the vectors were made with

	mu     sync.RWMutex
	graphs map[gkey]*hnsw
	// pos is, per scope, the change number up to which the index applied
	// the scope's changes (graph.Store.ScopeChanges).
	pos map[entity.Scope]uint64
	lag graph.LagMeter
	gen uint64 // changes made, under mu

	syncMu sync.Mutex
	// saveMu serialises writes of the file; saved is the gen written last.
	saveMu  sync.Mutex
	saved   atomic.Uint64
	savedAt atomic.Int64
	notify  chan struct{}
	queries *queryCache
	// asking holds the questions being embedded: a question asked again
	// meanwhile waits for the same call.
	askMu  sync.Mutex
	asking map[string]*asked

	// embedded counts texts embedded since Open.
	embedded atomic.Int64
	// donor lends its vectors to a rebuild: a record whose text it holds
	// is not embedded again.
	donor *Index
	// predicates are the texts of the ontology's predicates by name
	// (SetPredicates); nil: none.
	predicates map[string]string
}

type gkey struct {
	scope entity.Scope
	typ   string
}

// FileName is the file of the index inside its folder.
const FileName = "vectors.gmv"

const fileName = FileName

// searchEf is the candidate list of a search: recall@10 ≈ 0.96 on hard
// synthetic data (TestHNSW_RecallAddRemove).
const searchEf = 128

// saveEvery is how often a running follower writes the file at most;
// Close and Save write it at once.
const saveEvery = 10 * time.Second

// Open opens (or creates) the vector index in dir. A file written with
// another model, other prefixes or another layout is discarded: it is
// derived data, the next Sync rebuilds it. identity names the model and
// prefixes (embed.Client.Identity).
func Open(dir string, emb Embedder, identity string) (*Index, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, "vector.Open", err)
	}
	x := &Index{dir: dir, emb: emb, id: identity, graphs: map[gkey]*hnsw{}, pos: map[entity.Scope]uint64{},
		notify: make(chan struct{}, 1), queries: newQueryCache(512), asking: map[string]*asked{}}
	pos, graphs, err := load(filepath.Join(dir, fileName), identity)
	if err != nil {
		return nil, err
	}
	if graphs != nil {
		x.pos, x.graphs = pos, graphs
	}
	return x, nil
}

// Dir is the folder of the index.
func (x *Index) Dir() string { return x.dir }

// Seq is the highest change number up to which the index applied the
// changes of a scope.
func (x *Index) Seq() uint64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var m uint64
	for _, p := range x.pos {
		m = max(m, p)
	}
	return m
}

// Lag is how far the index is behind the store (see Sync).
func (x *Index) Lag() graph.Lag { return x.lag.Lag(x.position, time.Now()) }

func (x *Index) position(scope entity.Scope) uint64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.pos[scope]
}

// Len is the number of vectors held.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	n := 0
	for _, g := range x.graphs {
		n += g.len()
	}
	return n
}

// Embedded is how many texts the index had embedded since it was opened.
func (x *Index) Embedded() int64 { return x.embedded.Load() }

// Has reports whether the record of the given type has a vector.
func (x *Index) Has(scope entity.Scope, typ, id string) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	g := x.graphs[gkey{scope, typ}]
	if g == nil {
		return false
	}
	_, ok := g.byKey[id]
	return ok
}

// Close writes the file and releases the index.
func (x *Index) Close() error { return x.Save() }

// Save writes the index to its file now (atomically: a new file renamed
// over the old one, so a removed vector leaves nothing behind in it).
func (x *Index) Save() error {
	x.saveMu.Lock()
	defer x.saveMu.Unlock()
	path := filepath.Join(x.dir, fileName)
	x.mu.RLock()
	gen := x.gen
	if _, err := os.Stat(path); err == nil && gen == x.saved.Load() {
		x.mu.RUnlock()
		return nil
	}
	err := save(path, x.id, x.pos, x.graphs)
	x.mu.RUnlock()
	if err != nil {
		return err
	}
	x.saved.Store(gen)
	x.savedAt.Store(time.Now().UnixNano())
	return nil
}

// dirty reports changes not written to the file yet.
func (x *Index) dirty() bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.gen != x.saved.Load()
}

// Hit is one nearest record.
type Hit struct {
	ID         string
	Similarity float64 // cosine similarity to the query
}

// Search returns the k records of the type in scope whose vectors are
// most similar to v (a unit vector), best first.
func (x *Index) Search(scope entity.Scope, typ string, v []float32, k int) []Hit {
	x.mu.RLock()
	defer x.mu.RUnlock()
	g := x.graphs[gkey{scope, typ}]
	if g == nil {
		return nil
	}
	cs := g.search(v, k, max(searchEf, 2*k))
	out := make([]Hit, len(cs))
	for i, c := range cs {
		out[i] = Hit{ID: g.nodes[c.id].key, Similarity: float64(c.sim)}
	}
	return out
}

// Pairwise returns the similarities of the stored vectors of ids to one
// another: m[i][j] for ids[i] and ids[j], 0 where either has no vector.
func (x *Index) Pairwise(scope entity.Scope, typ string, ids []string) [][]float64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	m := make([][]float64, len(ids))
	for i := range m {
		m[i] = make([]float64, len(ids))
	}
	g := x.graphs[gkey{scope, typ}]
	if g == nil {
		return m
	}
	nodes := make([]*node, len(ids))
	for i, id := range ids {
		if slot, ok := g.byKey[id]; ok {
			nodes[i] = g.nodes[slot]
		}
	}
	for i, a := range nodes {
		for j := i + 1; a != nil && j < len(nodes); j++ {
			if b := nodes[j]; b != nil {
				m[i][j] = float64(sim(a, b.vec, b.scale))
				m[j][i] = m[i][j]
			}
		}
	}
	return m
}

// SetQueryCache sets how many questions' vectors QueryVector remembers
// (512 by default; 0: none, every question is embedded).
func (x *Index) SetQueryCache(n int) { x.queries = newQueryCache(n) }

// QueryVector embeds a question (kind query), remembering the last few
// hundred so a repeated question costs no call; a question already being
// embedded waits for that call instead of making its own.
func (x *Index) QueryVector(ctx context.Context, text string) ([]float32, error) {
	if v, ok := x.queries.get(text); ok {
		return v, nil
	}
	x.askMu.Lock()
	a, ok := x.asking[text]
	if !ok {
		a = &asked{done: make(chan struct{})}
		x.asking[text] = a
	}
	x.askMu.Unlock()
	if ok {
		select {
		case <-a.done:
			return a.vec, a.err
		case <-ctx.Done():
			return nil, entity.Wrap(entity.EUNAVAILABLE, "vector.QueryVector", ctx.Err())
		}
	}
	vs, err := x.emb.Embed(ctx, embed.Query, []string{text})
	if err == nil {
		a.vec = vs[0]
		x.queries.put(text, a.vec)
	}
	a.err = err
	x.askMu.Lock()
	delete(x.asking, text)
	x.askMu.Unlock()
	close(a.done)
	return a.vec, err
}

// asked is one question being embedded.
type asked struct {
	done chan struct{}
	vec  []float32
	err  error
}

// CachedQueryVector returns the vector of a question embedded lately,
// without calling the embedder.
func (x *Index) CachedQueryVector(text string) ([]float32, bool) { return x.queries.get(text) }

// EmbedPassages embeds texts as passages (for vectors kept outside the
// index, such as the ontology's predicates).
func (x *Index) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	return x.emb.Embed(ctx, embed.Passage, texts)
}

// Texts that records are embedded by.

// FactText is the text a fact is embedded by.
func FactText(f *entity.Fact) string { return oneLine(search.FactText(f)) }

// EntityText is the text an entity is embedded by: its name, aliases, type
// and summary.
func EntityText(e *entity.Entity) string {
	parts := append([]string{e.Name}, e.Aliases...)
	if e.Type != "" {
		parts = append(parts, string(e.Type))
	}
	if e.Summary != "" {
		parts = append(parts, e.Summary)
	}
	return oneLine(strings.Join(parts, "\n"))
}

// EpisodeText is the text an episode is embedded by.
func EpisodeText(e *entity.Episode) string { return oneLine(e.Said()) }

// TypePredicate is the record type of the ontology's predicates, kept
// apart from every scope (PredicateScope): questions are matched to them
// by meaning (SetPredicates).
const TypePredicate = "predicate"

// PredicateScope is the scope the predicates' vectors are kept under: the
// empty name, which no store scope has.
const PredicateScope entity.Scope = ""

// PredicateText is the text a predicate is embedded by: its name in
// words, its description and its synonyms ("reports to: The manager of an
// engineer. Also: manager").
func PredicateText(p ontology.Predicate) string {
	t := strings.ReplaceAll(p.Name, "_", " ")
	if p.Description != "" {
		t += ": " + p.Description
	}
	if len(p.Synonyms) > 0 {
		syn := make([]string, len(p.Synonyms))
		for i, x := range p.Synonyms {
			syn[i] = strings.ReplaceAll(x, "_", " ")
		}
		t += " Also: " + strings.Join(syn, ", ")
	}
	return oneLine(t)
}

// SetPredicates gives the index the ontology's predicates: the follower
// embeds those it does not hold with the same text at its next sync and
// drops the vectors of predicates no longer named.
func (x *Index) SetPredicates(o *ontology.Ontology) {
	texts := make(map[string]string, len(o.Predicates))
	for _, p := range o.Predicates {
		texts[p.Name] = PredicateText(p)
	}
	x.syncMu.Lock()
	x.predicates = texts
	x.syncMu.Unlock()
	x.Notify()
}

// maxTextRunes bounds an embedded text: small models read 512 tokens.
const maxTextRunes = 1500

func oneLine(s string) string {
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ; ")), " ")
	if r := []rune(s); len(r) > maxTextRunes {
		s = string(r[:maxTextRunes])
	}
	return s
}

func digestOf(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// Notify wakes Follow to sync now; it never blocks.
func (x *Index) Notify() {
	select {
	case x.notify <- struct{}{}:
	default:
	}
}

// Follow keeps the index in sync with store until ctx ends: at once, then
// whenever Notify is called and at least every interval. Errors (an
// embedder that is down) go to onErr and are retried at the next tick;
// writes never wait for the index.
func (x *Index) Follow(ctx context.Context, store graph.Store, interval time.Duration, onErr func(error)) {
	graph.Follow(ctx, func(ctx context.Context) error {
		_, err := x.Sync(ctx, store)
		return err
	}, x.notify, interval, onErr)
}

// syncPage is how many changes one step of Sync reads (and embeds at
// most: a few seconds of a small model on one core).
const syncPage = 100

// Sync applies the store's changes after the last sequence the index
// applied and returns how many it applied: a new or changed text is
// embedded (in batches, a text already embedded is not embedded again), a
// deleted, forgotten or archived record loses its vector. The file is
// written when the index caught up, at most every saveEvery.
func (x *Index) Sync(ctx context.Context, store graph.Store) (int, error) {
	n, err := x.sync(ctx, store, false)
	if err == nil && x.dirty() && time.Since(time.Unix(0, x.savedAt.Load())) >= saveEvery {
		err = x.Save()
	}
	return n, err
}

// Prune removes at once the vectors of records deleted, forgotten or
// archived after the last sequence applied, embedding nothing (so it works
// when the embedder is down), and writes the file: what a purge calls so
// no vector of a purged record stays on disk.
func (x *Index) Prune(ctx context.Context, store graph.Store) error {
	if _, err := x.sync(ctx, store, true); err != nil {
		return err
	}
	return x.Save()
}

// syncPredicates embeds the predicates' texts the index does not hold
// and drops the vectors of predicates no longer set.
func (x *Index) syncPredicates(ctx context.Context) error {
	x.syncMu.Lock()
	defer x.syncMu.Unlock()
	if x.predicates == nil {
		return nil
	}
	key := gkey{PredicateScope, TypePredicate}
	var todo []item
	for name, text := range x.predicates {
		it := item{key: key, id: name, text: text, digest: digestOf(text)}
		if !x.holds(it) {
			todo = append(todo, it)
		}
	}
	x.mu.Lock()
	if g := x.graphs[key]; g != nil {
		for name := range g.byKey {
			if _, ok := x.predicates[name]; !ok && g.remove(name) {
				x.gen++
			}
		}
	}
	x.mu.Unlock()
	slices.SortFunc(todo, func(a, b item) int { return strings.Compare(a.id, b.id) })
	return x.embedAll(ctx, todo)
}

// item is one text to embed.
type item struct {
	key    gkey
	id     string
	text   string
	digest uint64
}

func (x *Index) sync(ctx context.Context, store graph.Store, pruneOnly bool) (int, error) {
	if !pruneOnly {
		if err := x.syncPredicates(ctx); err != nil {
			return 0, err
		}
	}
	// Each scope is read on its own (graph.Store.ScopeChanges): only a
	// scope's numbers follow its commit order, so one position over the
	// whole store could pass a commit that becomes visible late.
	read := time.Now()
	heads, err := store.Heads(ctx)
	if err != nil {
		return 0, err
	}
	if !pruneOnly {
		x.lag.Read(heads, read)
	}
	n := 0
	for _, scope := range graph.Behind(heads, x.position) {
		after := x.position(scope)
		for {
			if err := ctx.Err(); err != nil {
				return n, entity.Wrap(entity.EUNAVAILABLE, "vector.Sync", err)
			}
			k, next, err := x.page(ctx, store, scope, heads[scope], after, pruneOnly)
			n += k
			if err != nil {
				return n, err
			}
			if k < syncPage {
				break
			}
			after = next
		}
	}
	if !pruneOnly {
		x.lag.Reached(read)
	}
	return n, nil
}

// page applies the changes of scope after a sequence, one page of them, and
// returns how many and the position they reach (head, the scope's head, when
// they are its last). Pages are serialised, not whole catch-ups, so a
// purge's Prune waits for one page at most.
func (x *Index) page(ctx context.Context, store graph.Store, scope entity.Scope, head, after uint64, pruneOnly bool) (int, uint64, error) {
	x.syncMu.Lock()
	defer x.syncMu.Unlock()
	if !pruneOnly {
		after = x.position(scope) // another Sync may have applied pages meanwhile
	}
	changes, err := store.ScopeChanges(ctx, scope, after, syncPage)
	if err != nil {
		return 0, after, err
	}
	todo, gone, err := x.read(ctx, store, changes)
	if err != nil {
		return 0, after, err
	}
	x.mu.Lock()
	for _, it := range gone {
		if g := x.graphs[it.key]; g != nil && g.remove(it.id) {
			x.gen++
		}
	}
	x.mu.Unlock()
	last := after
	if len(changes) > 0 {
		last = changes[len(changes)-1].Seq
	}
	if len(changes) < syncPage {
		last = max(last, head)
	}
	if pruneOnly {
		return len(changes), last, nil
	}
	if err := x.embedAll(ctx, todo); err != nil {
		return 0, after, err
	}
	x.mu.Lock()
	x.pos[scope] = max(x.pos[scope], last)
	x.gen++
	x.mu.Unlock()
	return len(changes), last, nil
}

// read sorts one page of changes into texts to embed and vectors to drop.
func (x *Index) read(ctx context.Context, store graph.Store, changes []graph.Change) (todo, gone []item, err error) {
	byScope := map[entity.Scope][]graph.Change{}
	var scopes []entity.Scope
	for _, c := range changes {
		if _, ok := byScope[c.Scope]; !ok {
			scopes = append(scopes, c.Scope)
		}
		byScope[c.Scope] = append(byScope[c.Scope], c)
	}
	for _, scope := range scopes {
		err := store.View(ctx, scope, func(tx graph.Tx) error {
			for _, c := range byScope[scope] {
				it, keep, err := textOf(tx, c)
				if err != nil {
					return err
				}
				switch {
				case it.key.typ == "":
				case !keep:
					gone = append(gone, it)
				case !x.holds(it):
					todo = append(todo, it)
				}
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return todo, gone, nil
}

// holds reports whether the index has it's vector for the same text.
func (x *Index) holds(it item) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	g := x.graphs[it.key]
	if g == nil {
		return false
	}
	id, ok := g.byKey[it.id]
	return ok && g.nodes[id].digest == it.digest
}

// textOf reads the record a change names: its text, or keep false when it
// must have no vector. A record type without vectors has an empty key.
func textOf(tx graph.Tx, c graph.Change) (item, bool, error) {
	var typ string
	switch c.Kind {
	case graph.KindFact:
		typ = search.TypeFact
	case graph.KindEntity:
		typ = search.TypeEntity
	case graph.KindEpisode:
		typ = search.TypeEpisode
	default:
		return item{}, false, nil
	}
	it := item{key: gkey{c.Scope, typ}, id: c.ID}
	if c.Deleted {
		return it, false, nil
	}
	var err error
	switch typ {
	case search.TypeFact:
		var f entity.Fact
		if f, err = tx.Fact(c.ID); err == nil {
			if f.ForgottenAt != nil || f.ArchivedAt != nil {
				return it, false, nil
			}
			it.text = FactText(&f)
		}
	case search.TypeEntity:
		var e entity.Entity
		if e, err = tx.Entity(c.ID); err == nil {
			if e.ForgottenAt != nil {
				return it, false, nil
			}
			it.text = EntityText(&e)
		}
	case search.TypeEpisode:
		var e entity.Episode
		if e, err = tx.Episode(c.ID); err == nil {
			if e.ForgottenAt != nil {
				return it, false, nil
			}
			it.text = EpisodeText(&e)
		}
	}
	switch {
	case entity.ErrorCode(err) == entity.ENOTFOUND:
		return it, false, nil
	case err != nil:
		return it, false, err
	}
	if strings.TrimSpace(it.text) == "" {
		return it, false, nil
	}
	it.digest = digestOf(it.text)
	return it, true, nil
}

// embedBatch is how many texts go to the embedder at once between
// checks of ctx (the client splits further into its own batch size).
const embedBatch = 64

func (x *Index) embedAll(ctx context.Context, todo []item) error {
	todo = x.borrow(todo)
	for start := 0; start < len(todo); start += embedBatch {
		part := todo[start:min(len(todo), start+embedBatch)]
		texts := make([]string, len(part))
		for i, it := range part {
			texts[i] = it.text
		}
		vs, err := x.emb.Embed(ctx, embed.Passage, texts)
		if err != nil {
			return err
		}
		x.embedded.Add(int64(len(part)))
		x.mu.Lock()
		for i, it := range part {
			g := x.graphs[it.key]
			if g == nil {
				g = newHNSW()
				x.graphs[it.key] = g
			}
			g.add(it.id, it.digest, vs[i])
		}
		x.gen++
		x.mu.Unlock()
	}
	return nil
}

// borrow takes the vectors the donor holds for the same texts and returns
// the items left to embed.
func (x *Index) borrow(todo []item) []item {
	if x.donor == nil {
		return todo
	}
	left := todo[:0]
	x.donor.mu.RLock()
	x.mu.Lock()
	for _, it := range todo {
		d := x.donor.graphs[it.key]
		if d == nil {
			left = append(left, it)
			continue
		}
		id, ok := d.byKey[it.id]
		if !ok || d.nodes[id].digest != it.digest {
			left = append(left, it)
			continue
		}
		n := d.nodes[id]
		v := make([]float32, len(n.vec))
		for i, q := range n.vec {
			v[i] = float32(q) * n.scale
		}
		g := x.graphs[it.key]
		if g == nil {
			g = newHNSW()
			x.graphs[it.key] = g
		}
		g.add(it.id, it.digest, v)
		x.gen++
	}
	x.mu.Unlock()
	x.donor.mu.RUnlock()
	return left
}

// Rebuild makes a fresh vector index of store in dir and replaces the one
// there once it is complete (built in a sibling folder, then renamed). The
// vectors of the old index are reused for records whose text has not
// changed, so a rebuild embeds only what is new. No other process may have
// dir open.
func Rebuild(ctx context.Context, dir string, store graph.Store, emb Embedder, identity string) (*Index, error) {
	tmp := dir + ".rebuild"
	if err := os.RemoveAll(tmp); err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, "vector.Rebuild", err)
	}
	x, err := Open(tmp, emb, identity)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, fileName)); err == nil {
		if x.donor, err = Open(dir, emb, identity); err != nil {
			return nil, err
		}
	}
	_, err = x.sync(ctx, store, false)
	x.donor = nil
	if err == nil {
		err = x.Save()
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, "vector.Rebuild", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, "vector.Rebuild", err)
	}
	x.dir = dir
	return x, nil
}
