package neo4j

import (
	"slices"
	"time"

	neo "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/graphmem/graphmem/cypher"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

var (
	stmtFactsAround        = cypher.MustRead("facts_around.cypher")
	stmtEpisodesByID       = cypher.MustRead("episodes_by_id.cypher")
	stmtEntitiesByPrefixes = cypher.MustRead("entities_by_prefixes.cypher")
	_                      = graph.BatchReader((*tx)(nil))
	_                      = graph.Tx((*tx)(nil))
)

// FactsAround reads one hop of a graph walk for a whole frontier in one
// query, the filters evaluated on the fact nodes.
func (t *tx) FactsAround(entityIDs []string, a graph.Around) (map[string][]entity.Fact, error) {
	const op = "neo4j.FactsAround"
	out := make(map[string][]entity.Fact)
	ids := make([]string, 0, len(entityIDs))
	for _, id := range entityIDs {
		if id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	ids, err := t.aroundCached(ids, a, out)
	if err != nil || len(ids) == 0 {
		return out, err
	}
	recs, err := t.query(stmtFactsAround, map[string]any{"ids": ids, "limit": cypherLimit(a.Limit),
		"asOf": nullTime(a.AsOf), "now": nullTime(a.Now), "bare": a.Bare, "hub": int64(a.Hub)})
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		f, err := t.decodeFact(props(r.Values[1]))
		if err != nil {
			return nil, internal(op, err)
		}
		id := asString(r.Values[0])
		out[id] = append(out[id], f)
	}
	return out, nil
}

// aroundCached answers FactsAround for the ids whose facts around the
// Store's cache holds (a read without claims, see writeCache), reading
// those of the ids it does not know first (facts_around_all.cypher), and
// returns the ids left for the store: hubs whose newest facts held do not
// fill the limit.
func (t *tx) aroundCached(ids []string, a graph.Around, out map[string][]entity.Fact) ([]string, error) {
	const op = "neo4j.FactsAround"
	if !a.Bare {
		return ids, nil
	}
	if use, err := t.cacheView(); !use || err != nil {
		return ids, err
	}
	c, head := t.store.cache, t.view.head
	var rest, unknown []string
	answer := func(id string, fs []entity.Fact, partial bool) {
		got, ok := admitted(fs, a, partial)
		switch {
		case !ok:
			rest = append(rest, id)
		case len(got) > 0:
			out[id] = got
		}
	}
	for _, id := range ids {
		if fs, partial, ok := c.around(t.scope, head, id); ok {
			answer(id, fs, partial)
		} else {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) == 0 {
		return rest, nil
	}
	recs, err := t.query(stmtFactsAroundAll, map[string]any{"ids": unknown, "cap": int64(aroundCap), "over": int64(aroundCap + 1)})
	if err != nil {
		return nil, err
	}
	found := make(map[string]*neo.Record, len(recs))
	for _, r := range recs {
		found[asString(r.Values[0])] = r
	}
	for _, id := range unknown {
		var fs []entity.Fact
		partial := false
		if r, ok := found[id]; ok {
			partial = r.Values[1] != true
			for _, n := range asList(r.Values[2]) {
				f, err := t.decodeFact(props(n))
				if err != nil {
					return nil, internal(op, err)
				}
				fs = append(fs, f)
			}
		}
		slices.SortFunc(fs, func(f, g entity.Fact) int { return newestFirst(f, g.ID) })
		c.putAround(t.scope, head, id, cloneFacts(fs), partial)
		answer(id, fs, partial)
	}
	return rest, nil
}

// admitted is the facts of fs (newest first) that a admits, at most
// a.Limit of them: FactsAround's answer made from the facts around an
// entity, and whether it is the answer — always when fs are all of them;
// when they are only the newest (partial), if the limit is reached.
func admitted(fs []entity.Fact, a graph.Around, partial bool) ([]entity.Fact, bool) {
	out := fs[:0]
	for i := range fs {
		if a.Limit > 0 && len(out) == a.Limit {
			return out, true
		}
		if a.Admits(&fs[i]) {
			out = append(out, fs[i])
		}
	}
	return out, !partial || (a.Limit > 0 && len(out) == a.Limit)
}

// nullTime is a time parameter, or null for the zero time.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}

// FactsAndEntitiesByID returns the facts among factIDs and the entities
// among entityIDs, in one round trip; bare leaves the facts' claims and
// revisions out, which need not be sent or decoded.
func (t *tx) FactsAndEntitiesByID(factIDs, entityIDs []string, bare bool) (map[string]entity.Fact, map[string]entity.Entity, error) {
	const op = "neo4j.FactsAndEntitiesByID"
	fs, es := make(map[string]entity.Fact, len(factIDs)), make(map[string]entity.Entity, len(entityIDs))
	if t.view.read && t.view.use {
		// The facts of the chains and the entities of the name keys the
		// Store's cache holds (a read that has not read its head yet goes
		// to the store: reading it would cost what this read does).
		factIDs, entityIDs = t.store.cache.byID(t.scope, t.view.head, factIDs, entityIDs, bare, fs, es)
	}
	if len(factIDs) == 0 && len(entityIDs) == 0 {
		return fs, es, nil
	}
	recs, err := t.query(stmtFactsAndEntitiesByID, map[string]any{"facts": nonNil(factIDs), "entities": nonNil(entityIDs), "bare": bare})
	if err != nil {
		return nil, nil, err
	}
	for _, r := range recs {
		for _, n := range asList(r.Values[0]) {
			f, err := t.decodeFact(props(n))
			if err != nil {
				return nil, nil, internal(op, err)
			}
			fs[f.ID] = f
		}
		for _, n := range asList(r.Values[1]) {
			e, err := t.decodeEntity(props(n))
			if err != nil {
				return nil, nil, internal(op, err)
			}
			es[e.ID] = e
		}
	}
	return fs, es, nil
}

// nonNil is ids, or an empty list for none (a nil slice is sent as null).
func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

// asList is a list value of a record, or nil.
func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// FactsByID returns the facts among ids, in one round trip.
func (t *tx) FactsByID(ids []string) (map[string]entity.Fact, error) {
	return byID(t, "neo4j.FactsByID", stmtFactsByID, ids, t.decodeFact, func(f entity.Fact) string { return f.ID })
}

// EntitiesByID returns the entities among ids, in one round trip.
func (t *tx) EntitiesByID(ids []string) (map[string]entity.Entity, error) {
	return byID(t, "neo4j.EntitiesByID", stmtEntitiesByID, ids, t.decodeEntity, func(e entity.Entity) string { return e.ID })
}

// EpisodesByID returns the episodes among ids, in one round trip.
func (t *tx) EpisodesByID(ids []string) (map[string]entity.Episode, error) {
	return byID(t, "neo4j.EpisodesByID", stmtEpisodesByID, ids, t.decodeEpisode, func(e entity.Episode) string { return e.ID })
}

// EntitiesByPrefixes reads the entities of several name prefixes in one
// round trip; a prefix longer than an index key is read on its own.
func (t *tx) EntitiesByPrefixes(prefixes []string, limit int) (map[string][]entity.Entity, error) {
	const op = "neo4j.EntitiesByPrefixes"
	out := make(map[string][]entity.Entity, len(prefixes))
	var short []string
	for _, p := range prefixes {
		if _, done := out[p]; done {
			continue
		}
		out[p] = nil
		if len(p) <= maxKeyPart {
			short = append(short, p)
			continue
		}
		es, err := t.EntitiesByPrefix(p, limit)
		if err != nil {
			return nil, err
		}
		out[p] = es
	}
	// Prefixes the Store's cache holds are answered from it, and those
	// read are given to it.
	view, err := t.cacheView()
	if err != nil {
		return nil, err
	}
	if view {
		missing := short[:0:0]
		for _, p := range short {
			if es, ok := t.store.cache.viewPrefix(t.scope, t.view.head, p, limit); ok {
				out[p] = es
			} else {
				missing = append(missing, p)
			}
		}
		short = missing
	}
	if len(short) == 0 {
		return out, nil
	}
	recs, err := t.query(stmtEntitiesByPrefixes, map[string]any{"prefixes": short, "limit": cypherLimit(limit)})
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		e, err := t.decodeEntity(props(r.Values[1]))
		if err != nil {
			return nil, internal(op, err)
		}
		p := asString(r.Values[0])
		out[p] = append(out[p], e)
	}
	if view {
		read := make(map[string][]entity.Entity, len(short))
		for _, p := range short {
			read[p] = cloneEntities(out[p])
		}
		t.store.cache.putPrefixes(t.scope, t.view.head, read, limit)
	}
	return out, nil
}

// byID runs a statement that returns one node per id found.
func byID[T any](t *tx, op, stmt string, ids []string, decode func(map[string]any) (T, error), key func(T) string) (map[string]T, error) {
	out := make(map[string]T, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	recs, err := t.query(stmt, map[string]any{"ids": ids})
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		v, err := decode(props(r.Values[0]))
		if err != nil {
			return nil, internal(op, err)
		}
		out[key(v)] = v
	}
	return out, nil
}
