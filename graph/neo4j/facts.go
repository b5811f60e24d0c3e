package neo4j

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	neo "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/graphmem/graphmem/cypher"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

var (
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
)

// factLinks is where a stored fact's graph links point: its subject and
// its object ("" for a literal).
type factLinks struct{ subject, object string }

func linksOf(p map[string]any) factLinks {
	return factLinks{subject: asString(p["subject_id"]), object: asString(p["object_id"])}
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
