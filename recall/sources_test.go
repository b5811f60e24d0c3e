package recall

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/search"
)

// The sources on hand-built inputs: a store of a few records in maps and
// a search index that answers fixed hits, no Bleve or bbolt.

// mapTx is a store of a few records: the reads the sources make. Any
// other read panics (the nil graph.Tx).
type mapTx struct {
	graph.Tx
	facts    map[string]entity.Fact
	entities map[string]entity.Entity
}

func (m mapTx) Fact(id string) (entity.Fact, error) {
	if f, ok := m.facts[id]; ok {
		return f, nil
	}
	return entity.Fact{}, entity.Errorf(entity.ENOTFOUND, "fact %s not found", id)
}

func (m mapTx) Entity(id string) (entity.Entity, error) {
	if e, ok := m.entities[id]; ok {
		return e, nil
	}
	return entity.Entity{}, entity.Errorf(entity.ENOTFOUND, "entity %s not found", id)
}

func (m mapTx) EntitiesByKey(keys []string) (map[string][]entity.Entity, error) {
	out := map[string][]entity.Entity{}
	for _, k := range keys {
		for _, id := range slices.Sorted(maps.Keys(m.entities)) {
			if en := m.entities[id]; slices.Contains(en.Keys(), k) {
				out[k] = append(out[k], en)
			}
		}
	}
	return out, nil
}

func (m mapTx) EntitiesByPrefix(prefix string, limit int) ([]entity.Entity, error) {
	var out []entity.Entity
	for _, id := range slices.Sorted(maps.Keys(m.entities)) {
		en := m.entities[id]
		if slices.ContainsFunc(en.Keys(), func(k string) bool { return strings.HasPrefix(k, prefix) }) && len(out) < limit {
			out = append(out, en)
		}
	}
	return out, nil
}

// FactsAround returns every fact touching each entity, newest first.
func (m mapTx) FactsAround(ids []string, _ graph.Around) (map[string][]entity.Fact, error) {
	out := map[string][]entity.Fact{}
	for _, id := range ids {
		for _, fid := range slices.Sorted(maps.Keys(m.facts)) {
			if f := m.facts[fid]; f.SubjectID == id || f.ObjectID == id {
				out[id] = append(out[id], f)
			}
		}
	}
	return out, nil
}

// fixedHits is a search index that answers hits, and keeps the query.
type fixedHits struct {
	hits []search.Hit
	got  *search.Query
}

func (f fixedHits) Search(_ context.Context, q search.Query) ([]search.Hit, error) {
	*f.got = q
	return f.hits, nil
}

func newCandidates(q string, now time.Time) *candidates {
	w := DefaultWeights()
	return &candidates{p: params{scope: "s", now: now, asOf: now, limit: 10, a: analyze(q, now)}, w: &w,
		facts: map[string]*item{}, entities: map[string]*item{}, episodes: map[string]*item{},
		linked: map[string]entity.MatchKind{}, gramLinks: map[string][]string{}, scale: 1, best: 1}
}

// TestBM25Source: the hits become candidates with their BM25 score and
// rank among their kind; a fact the request may not see (ended before
// as_of) and one deleted since it was indexed are left out; episodes are
// passed on; the scale is the best score, at least 1; the terms linking
// kept are asked to be kept.
func TestBM25Source(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	ended := now.AddDate(0, -1, 0)
	tx := mapTx{
		facts: map[string]entity.Fact{
			"f1": {ID: "f1", SubjectID: "cart", Predicate: "port", Value: "8080", ValidFrom: now.AddDate(-1, 0, 0)},
			"f2": {ID: "f2", SubjectID: "cart", Predicate: "port", Value: "80", ValidFrom: now.AddDate(-2, 0, 0), ValidTo: &ended},
		},
		entities: map[string]entity.Entity{"cart": {ID: "cart", Name: "cart-api"}},
	}
	hits := []search.Hit{
		{Type: search.TypeFact, ID: "f1", Score: 3},
		{Type: search.TypeEntity, ID: "cart", Score: 2.5},
		{Type: search.TypeFact, ID: "f2", Score: 2},
		{Type: search.TypeFact, ID: "gone", Score: 1.5},
		{Type: search.TypeEpisode, ID: "ep1", Score: 1},
	}
	c := newCandidates("which port does cart-api use", now)
	c.keep = []string{"port"}
	var q search.Query
	if err := (bm25Source{fixedHits{hits, &q}}).add(context.Background(), tx, c); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(q.Keep, []string{"port"}) || q.Scope != "s" || q.Limit != candidatesMin {
		t.Errorf("query %+v: want the kept terms, the scope and %d candidates", q, candidatesMin)
	}
	if f := c.facts["f1"]; f == nil || f.ff.BM25 != 3 || f.ff.BM25Rank != 1 {
		t.Errorf("f1: %+v, want BM25 3 at rank 1", f)
	}
	if c.facts["f2"] != nil || c.facts["gone"] != nil || len(c.facts) != 1 {
		t.Errorf("facts %v: want only f1 (f2 ended before as_of, gone deleted)", slices.Sorted(maps.Keys(c.facts)))
	}
	if en := c.entities["cart"]; en == nil || en.ef.BM25 != 2.5 || en.ef.BM25Rank != 1 {
		t.Errorf("entity: %+v, want BM25 2.5 at rank 1", en)
	}
	if len(c.episodeHits) != 1 || c.episodeHits[0].ID != "ep1" || c.scale != 3 || c.best != 3 {
		t.Errorf("episodes %v, scale %v, best %v: want ep1 passed on, both 3", c.episodeHits, c.scale, c.best)
	}

	// Below 1 the scale stays 1; the best score is the score itself.
	c = newCandidates("which port", now)
	if err := (bm25Source{fixedHits{[]search.Hit{{Type: search.TypeEpisode, ID: "ep1", Score: 0.2}}, &q}}).add(context.Background(), tx, c); err != nil {
		t.Fatal(err)
	}
	if c.scale != 1 || c.best != 0.2 {
		t.Errorf("scale %v, best %v: want 1 and 0.2", c.scale, c.best)
	}
}

// TestLinkSource: the question's names link exactly, by alias and as a
// known variant ("Postgres" of PostgreSQL), never through another name's
// words ("zebra-gateway" is not gateway-service); the named entities'
// facts are read, and the words that tell them apart are kept for the
// search.
func TestLinkSource(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	since := now.AddDate(-1, 0, 0)
	tx := mapTx{
		entities: map[string]entity.Entity{
			"pg":   {ID: "pg", Name: "PostgreSQL", Type: "database"},
			"gw":   {ID: "gw", Name: "gateway-service", Type: "service"},
			"cart": {ID: "cart", Name: "cart-api", Aliases: []string{"carts"}, Type: "service"},
		},
		facts: map[string]entity.Fact{
			"f1": {ID: "f1", SubjectID: "cart", Subject: "cart-api", Predicate: "uses_database", ObjectID: "pg", Object: "PostgreSQL", ValidFrom: since},
			"f2": {ID: "f2", SubjectID: "cart", Subject: "cart-api", Predicate: "port", Value: "8080", ValidFrom: since},
		},
	}
	e := &Engine{NoUnknownNames: true}
	for _, tc := range []struct {
		q      string
		linked []string
		keep   string // a term kept for the search
	}{
		{"Which service uses Postgres?", []string{"pg"}, ""},
		{"which port does carts use", []string{"cart"}, "port"},
		{"what port does cart-api listen on", []string{"cart"}, "port"},
		{"which database does zebra-gateway use", nil, ""},
	} {
		c := newCandidates(tc.q, now)
		if err := (linkSource{e}).add(context.Background(), tx, c); err != nil {
			t.Fatal(err)
		}
		if got := slices.Sorted(maps.Keys(c.linked)); !slices.Equal(got, tc.linked) {
			t.Errorf("%q: linked %v, want %v", tc.q, got, tc.linked)
		}
		if c.q == nil {
			t.Errorf("%q: no question for predicate linking", tc.q)
		}
		if tc.keep != "" && !slices.Contains(c.keep, search.Analyze(tc.keep)[0]) {
			t.Errorf("%q: kept %v, want %q among them", tc.q, c.keep, tc.keep)
		}
		if len(tc.linked) > 0 && c.linkedFacts == nil {
			t.Errorf("%q: the named entities' facts were not read", tc.q)
		}
	}
}

// TestWalkSource: the facts around a named entity become candidates one
// hop from it, reached from the question's names.
func TestWalkSource(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	since := now.AddDate(-1, 0, 0)
	tx := mapTx{facts: map[string]entity.Fact{
		"f1": {ID: "f1", SubjectID: "cart", Predicate: "owned_by", ObjectID: "team", ValidFrom: since},
		"f2": {ID: "f2", SubjectID: "team", Predicate: "lead", ObjectID: "ana", ValidFrom: since},
	}}
	c := newCandidates("who owns cart-api", now)
	c.p.hops = 2
	c.linked["cart"] = entity.MatchExact
	if err := (walkSource{}).add(context.Background(), tx, c); err != nil {
		t.Fatal(err)
	}
	f1, f2 := c.facts["f1"], c.facts["f2"]
	if f1 == nil || f2 == nil {
		t.Fatalf("facts %v: want f1 and f2", slices.Sorted(maps.Keys(c.facts)))
	}
	w := DefaultWeights()
	g1, hop1 := graphOf(f1.ff.Reach, &w)
	g2, hop2 := graphOf(f2.ff.Reach, &w)
	if hop1 != 1 || hop2 != 2 || g1 != w.Fact.Graph || g2 != w.Fact.Hop2 {
		t.Errorf("f1 at hop %d (%v), f2 at hop %d (%v): want 1 and 2 from a named entity", hop1, g1, hop2, g2)
	}
}

// TestEpisodeSource_Gate: with no episode hit and no named entity there is
// nothing to rank episodes from, and no store read is made.
func TestEpisodeSource_Gate(t *testing.T) {
	c := newCandidates("anything", time.Now())
	if err := (episodeSource{}).add(context.Background(), mapTx{}, c); err != nil || len(c.episodes) > 0 {
		t.Errorf("episodes %v, error %v", c.episodes, err)
	}
}
