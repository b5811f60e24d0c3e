package neo4j

import (
	"slices"
	"time"

	"github.com/graphmem/graphmem/cypher"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

var (
	stmtFactsAround        = cypher.MustRead("facts_around.cypher")
	stmtFactVersions       = cypher.MustRead("fact_versions.cypher")
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
	params := map[string]any{"ids": ids, "limit": cypherLimit(a.Limit),
		"asOf": nullTime(a.AsOf), "now": nullTime(a.Now), "bare": a.Bare, "hub": int64(a.Hub)}
	// Bodies come from the cache; if a fact changed since the statement
	// named its version, the read is made again with bodies, so every fact
	// passed the statement's filters as it is returned.
	for full := t.store.facts == nil; ; full = true {
		params["full"] = full
		recs, err := t.query(stmtFactsAround, params)
		if err != nil {
			return nil, err
		}
		refs := make([]factRef, len(recs))
		for i, r := range recs {
			if r.Values[1] == true { // a hub's fact: its id only
				refs[i] = factRef{id: asString(r.Values[2]), body: map[string]any{"id": r.Values[2]}}
				continue
			}
			refs[i] = refOf(r.Values[2:])
		}
		got, current, err := t.resolve(op, refs, true, a.Bare)
		if err != nil {
			return nil, err
		}
		if !current {
			continue
		}
		for i, r := range recs {
			f := got[i].f.Clone()
			if a.Bare {
				f.Claims, f.Revisions = nil, nil
			}
			id := asString(r.Values[0])
			out[id] = append(out[id], f)
		}
		return out, nil
	}
}

// nullTime is a time parameter, or null for the zero time.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}

// FactsAndEntitiesByID returns the facts among factIDs and the entities
// among entityIDs, in one round trip.
func (t *tx) FactsAndEntitiesByID(factIDs, entityIDs []string) (map[string]entity.Fact, map[string]entity.Entity, error) {
	const op = "neo4j.FactsAndEntitiesByID"
	fs, es := make(map[string]entity.Fact, len(factIDs)), make(map[string]entity.Entity, len(entityIDs))
	if len(factIDs) == 0 && len(entityIDs) == 0 {
		return fs, es, nil
	}
	full := t.store.facts == nil
	recs, err := t.query(stmtFactsAndEntitiesByID, map[string]any{"facts": nonNil(factIDs), "entities": nonNil(entityIDs), "full": full})
	if err != nil {
		return nil, nil, err
	}
	for _, r := range recs {
		if err := t.factsByRef(op, asList(r.Values[0]), fs); err != nil {
			return nil, nil, err
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

// factsByRef adds to out the facts named by rows of values id, seq, ver and
// body: by id, at whatever version the store holds now if it holds another.
func (t *tx) factsByRef(op string, rows []any, out map[string]entity.Fact) error {
	refs := make([]factRef, len(rows))
	for i, r := range rows {
		refs[i] = refOf(asList(r))
	}
	got, _, err := t.resolve(op, refs, false, false)
	if err != nil {
		return err
	}
	for _, g := range got {
		if g.ok {
			out[g.f.ID] = g.f.Clone()
		}
	}
	return nil
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
// Their versions are read first, and only the bodies the cache lacks.
func (t *tx) FactsByID(ids []string) (map[string]entity.Fact, error) {
	const op = "neo4j.FactsByID"
	if t.store.facts == nil || len(ids) == 0 {
		return byID(t, op, stmtFactsByID, ids, t.decodeFact, func(f entity.Fact) string { return f.ID })
	}
	recs, err := t.query(stmtFactVersions, map[string]any{"ids": ids})
	if err != nil {
		return nil, err
	}
	rows := make([]any, len(recs))
	for i, r := range recs {
		rows[i] = r.Values
	}
	out := make(map[string]entity.Fact, len(recs))
	if err := t.factsByRef(op, rows, out); err != nil {
		return nil, err
	}
	return out, nil
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
