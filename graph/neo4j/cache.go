package neo4j

import (
	"container/list"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/graphmem/graphmem/entity"
)

// Fact bodies are cached by version. Every write of a fact gives its node a
// new change number (seq) and a new random version (ver), so the pair names
// one content of the fact for good: a body cached under it is never stale,
// whoever rewrote the fact since — another replica, a process that wiped the
// database and wrote the same ids again (numbering restarts at zero, the
// random version does not repeat), or a writer that does not know about
// versions (it keeps ver but changes seq). No invalidation is needed.
//
// The hot reads (facts_around, fact_chains, fact_versions,
// facts_and_entities_by_id) return the fact's id, seq and ver, and its body
// only when it has no version (written before versions existed) or the
// caller asks for it ($full). The Store takes the bodies from its cache and
// reads those it lacks in one more statement (facts_by_id.cypher). Projecting
// a fact's twenty-odd properties and decoding its claims was most of the cost
// of those reads, on the server and in Go.

// DefaultFactCacheBytes is Config.FactCacheBytes when unset: about 40,000
// facts of the size the bench writes (claims, revisions and attributes
// included).
const DefaultFactCacheBytes = 64 << 20

// version names one stored content of a fact.
type version struct{ seq, ver int64 }

// newVer is a fresh random version for a fact about to be written; never
// 0, which stands for none.
func newVer() int64 { return 1 + rand.Int64N(math.MaxInt64) }

// versionOf is the version of a fact's stored properties p; its ver is 0
// if it has none.
func versionOf(p map[string]any) version { return version{asInt(p["seq"]), asInt(p["ver"])} }

type factKey struct{ scope, id string }

type cachedFact struct {
	key  factKey
	v    version
	fact entity.Fact
	size int64
}

// factCache holds decoded facts by (scope, id), each at the one version it
// last saw, least recently used first out once their estimated size passes
// max bytes. Safe for concurrent use; a nil *factCache caches nothing.
type factCache struct {
	mu    sync.Mutex
	max   int64
	used  int64
	order list.List // of *cachedFact, most recently used first
	at    map[factKey]*list.Element
}

// newFactCache returns a cache of max bytes, or nil (no cache) for max < 0.
func newFactCache(max int64) *factCache {
	if max < 0 {
		return nil
	}
	if max == 0 {
		max = DefaultFactCacheBytes
	}
	return &factCache{max: max, at: make(map[factKey]*list.Element)}
}

// get returns the fact id of scope at version v, if cached. It is shared
// with the cache: read it, or hand out a Clone.
func (c *factCache) get(scope, id string, v version) (entity.Fact, bool) {
	if c == nil {
		return entity.Fact{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.at[factKey{scope, id}]
	if !ok || e.Value.(*cachedFact).v != v {
		return entity.Fact{}, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cachedFact).fact, true
}

// put caches f, which the cache now owns, as the fact id of scope at
// version v, whose stored properties p are (to estimate its size). It
// replaces whatever version of the fact was cached.
func (c *factCache) put(scope string, v version, f entity.Fact, p map[string]any) {
	if c == nil {
		return
	}
	size := propsSize(p)
	if size > c.max {
		return
	}
	k := factKey{scope, f.ID}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.at[k]; ok {
		c.drop(e)
	}
	c.at[k] = c.order.PushFront(&cachedFact{key: k, v: v, fact: f, size: size})
	c.used += size
	for c.used > c.max {
		c.drop(c.order.Back())
	}
}

func (c *factCache) drop(e *list.Element) {
	cf := c.order.Remove(e).(*cachedFact)
	delete(c.at, cf.key)
	c.used -= cf.size
}

// propsSize estimates the memory a fact decoded from the properties p
// takes, its cache entry included: the text of its values (claims and
// revisions as their JSON, which is about their decoded size) and a fixed
// cost per value and per fact.
func propsSize(p map[string]any) int64 {
	const perFact, perValue = 512, 24
	n := int64(perFact)
	for _, v := range p {
		n += perValue
		switch v := v.(type) {
		case string:
			n += int64(len(v))
		case []string:
			for _, s := range v {
				n += 16 + int64(len(s))
			}
		case []any:
			for _, s := range v {
				n += 16 + int64(len(asString(s)))
			}
		}
	}
	return n
}

// factRef is a fact a read statement named: its id and version, and its
// stored properties when the statement returned them (a fact stored
// without a version, or a read asking for bodies).
type factRef struct {
	id   string
	v    version
	body map[string]any
}

// refOf reads a fact reference from the values id, seq, ver and body.
func refOf(vals []any) factRef {
	return factRef{id: asString(vals[0]), v: version{asInt(vals[1]), asInt(vals[2])}, body: props(vals[3])}
}

// found is a fact resolve found: f (shared with the cache: read it, or
// Clone it to hand it out) and, unless it came from the cache, its stored
// properties p.
type found struct {
	f  entity.Fact
	p  map[string]any
	ok bool
}

// resolve returns the facts refs name, in their order: each decoded from
// its body, or taken from the cache, or read with the others the cache
// lacks in one statement (facts_by_id.cypher), which found[i].ok false
// marks as no longer stored. Bodies read at a version are cached, unless
// partial (the bare bodies of facts_around.cypher). With exact, the facts
// must be the versions named: if the store holds another one of any of
// them now, resolve returns current false, and the caller reads again with
// bodies.
func (t *tx) resolve(op string, refs []factRef, exact, partial bool) (out []found, current bool, err error) {
	cache := t.store.facts
	out = make([]found, len(refs))
	var missing []string
	for i, r := range refs {
		if r.body != nil {
			f, err := t.decodeFact(r.body)
			if err != nil {
				return nil, false, internal(op, err)
			}
			if r.v.ver != 0 && !partial {
				cache.put(t.scope, r.v, f, r.body)
			}
			out[i] = found{f: f, p: r.body, ok: true}
			continue
		}
		if f, ok := cache.get(t.scope, r.id, r.v); ok {
			out[i] = found{f: f, ok: true}
			continue
		}
		missing = append(missing, r.id)
	}
	if len(missing) == 0 {
		return out, true, nil
	}
	recs, err := t.exec(stmtFactsByID, map[string]any{"ids": missing})
	if err != nil {
		return nil, false, err
	}
	read := make(map[string]found, len(recs))
	for _, rec := range recs {
		p := props(rec.Values[0])
		f, err := t.decodeFact(p)
		if err != nil {
			return nil, false, internal(op, err)
		}
		if v := versionOf(p); v.ver != 0 {
			cache.put(t.scope, v, f, p)
		}
		read[f.ID] = found{f: f, p: p, ok: true}
	}
	for i, r := range refs {
		if out[i].ok {
			continue
		}
		got := read[r.id]
		if exact && (!got.ok || versionOf(got.p) != r.v) {
			return nil, false, nil
		}
		out[i] = got
	}
	return out, true, nil
}
