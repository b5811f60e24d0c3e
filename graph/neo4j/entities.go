package neo4j

import (
	"fmt"
	"slices"
	"strings"

	"github.com/graphmem/graphmem/cypher"
	"github.com/graphmem/graphmem/entity"
)

var (
	stmtEntityGet         = cypher.MustRead("entity_get.cypher")
	stmtEntitiesByKey     = cypher.MustRead("entities_by_key.cypher")
	stmtEntitiesByKeyHead = cypher.MustRead("entities_by_key_head.cypher")
	stmtEntitiesByPrefix  = cypher.MustRead("entities_by_prefix.cypher")
	stmtEntitiesList      = cypher.MustRead("entities_list.cypher")
	stmtEntitiesPut       = cypher.MustRead("entities_put.cypher")
	stmtEntityDelete      = cypher.MustRead("entity_delete.cypher")
)

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
