package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/temporal"
)

// FactQuery filters facts. Subject and Object are names, resolved exactly
// or by alias; an Object that names no entity is matched as a literal value.
type FactQuery struct {
	Subject   string
	Predicate string
	Object    string
	// AsOf selects facts valid at that instant (default now) unless
	// IncludeHistory is set.
	AsOf time.Time
	// KnownAt shows what graphmem believed at that instant (default now).
	KnownAt        time.Time
	IncludeHistory bool
	Limit          int
	Cursor         string
}

// maxScanPages bounds the store pages read to fill one filtered page.
const maxScanPages = 20

// Facts lists facts matching q, as known at q.KnownAt. Forgotten facts are
// never listed; retracted ones only as known before their retraction.
func (s *Service) Facts(ctx context.Context, scope entity.Scope, q FactQuery) ([]entity.Fact, string, error) {
	now := s.now()
	if q.AsOf.IsZero() {
		q.AsOf = now
	}
	if q.KnownAt.IsZero() {
		q.KnownAt = now
	}
	limit := clampLimit(q.Limit)
	var out []entity.Fact
	var next string
	err := s.Store.View(ctx, scope, func(tx graph.Tx) error {
		out, next = nil, ""
		filters, err := s.factFilters(tx, q)
		if err != nil || len(filters) == 0 {
			return err
		}
		// Several subjects may share a name: list each in turn; the cursor
		// then belongs to the last one, which is good enough for one page.
		for _, f := range filters {
			f.Cursor = q.Cursor
			for range maxScanPages {
				f.Limit = limit - len(out)
				page, cur, err := tx.Facts(f)
				if err != nil {
					return err
				}
				for _, fact := range page {
					if v, ok := visible(&fact, q, now); ok {
						out = append(out, v)
					}
				}
				next, f.Cursor = cur, cur
				if cur == "" || len(out) >= limit {
					break
				}
			}
			if len(out) >= limit {
				break
			}
		}
		return nil
	})
	return out, next, err
}

func clampLimit(n int) int {
	if n <= 0 {
		return entity.DefaultPageSize
	}
	return min(n, entity.MaxPageSize)
}

// visible returns f as known at q.KnownAt if the query may show it.
func visible(f *entity.Fact, q FactQuery, now time.Time) (entity.Fact, bool) {
	if f.ForgottenAt != nil || !f.KnownAt(q.KnownAt) {
		return entity.Fact{}, false
	}
	v := f.AsKnownAt(q.KnownAt)
	// Current listings leave out what left recall (TTL expiry, archiving);
	// history keeps it.
	if !q.IncludeHistory && (!v.ValidAt(q.AsOf) || !v.Recallable(now)) {
		return entity.Fact{}, false
	}
	return v, true
}

func (s *Service) factFilters(tx graph.Tx, q FactQuery) ([]graph.FactFilter, error) {
	base := graph.FactFilter{}
	if q.Predicate != "" {
		base.Predicate = s.Ontology.Canonical(q.Predicate)
	}
	subjects := []string{""}
	if q.Subject != "" {
		es, err := s.lookup(tx, q.Subject)
		if err != nil || len(es) == 0 {
			return nil, err
		}
		subjects = subjects[:0]
		for _, e := range es {
			subjects = append(subjects, e.ID)
		}
	}
	if q.Object != "" {
		es, err := s.lookup(tx, q.Object)
		if err != nil {
			return nil, err
		}
		if len(es) > 0 {
			base.ObjectID = es[0].ID
		} else {
			base.Value = q.Object
		}
	}
	var out []graph.FactFilter
	for _, id := range subjects {
		f := base
		f.SubjectID = id
		out = append(out, f)
	}
	return out, nil
}

// lookup returns the entities a name denotes exactly or by alias.
func (s *Service) lookup(tx graph.Tx, name string) ([]entity.Entity, error) {
	key := entity.Normalize(name)
	m, err := tx.EntitiesByKey([]string{key})
	if err != nil {
		return nil, err
	}
	return m[key], nil
}

// FactDetail is one fact with its supersession chain and provenance.
type FactDetail struct {
	Fact     entity.Fact      `json:"fact"`
	Chain    []entity.Fact    `json:"chain"`
	Episodes []entity.Episode `json:"episodes"`
}

// Fact returns one fact as graphmem believed it at knownAt (zero: now),
// with the facts of its chain (same subject and predicate, and for "many"
// predicates the same object) known then, ordered by valid time, and the
// episodes it came from. Returns ENOTFOUND for a fact of another scope, a
// forgotten one, and one not known at knownAt: not recorded yet, or
// retracted by then (it was never true; what was believed before the
// retraction is read with an earlier knownAt), as every other read path.
func (s *Service) Fact(ctx context.Context, scope entity.Scope, id string, knownAt time.Time) (FactDetail, error) {
	if knownAt.IsZero() {
		knownAt = s.now()
	}
	var d FactDetail
	err := s.Store.View(ctx, scope, func(tx graph.Tx) error {
		f, err := tx.Fact(id)
		if err != nil {
			return err
		}
		switch {
		case f.ForgottenAt != nil || f.Waiting:
			return entity.Errorf(entity.ENOTFOUND, "fact %s not found", id)
		case f.ExpiredAt != nil && !f.ExpiredAt.After(knownAt):
			return entity.Errorf(entity.ENOTFOUND, "fact %s was retracted at %s: it was never true (known_at before then shows what was believed)",
				id, f.ExpiredAt.UTC().Format(time.RFC3339Nano))
		case f.RecordedAt.After(knownAt):
			return entity.Errorf(entity.ENOTFOUND, "fact %s was not recorded yet at known_at", id)
		}
		f = f.AsKnownAt(knownAt)
		d = FactDetail{Fact: f}
		chain, card, err := s.chainOf(tx, &f)
		if err != nil {
			return err
		}
		for _, c := range chain {
			if c.ForgottenAt != nil || c.Waiting || !c.KnownAt(knownAt) || (card != ontology.One && c.ObjectKey() != f.ObjectKey()) {
				continue
			}
			d.Chain = append(d.Chain, c.AsKnownAt(knownAt))
		}
		sortByValidTime(d.Chain)
		for _, ep := range f.EpisodeIDs {
			e, err := tx.Episode(ep)
			if entity.ErrorCode(err) == entity.ENOTFOUND {
				continue // purged
			} else if err != nil {
				return err
			}
			d.Episodes = append(d.Episodes, e)
		}
		return nil
	})
	return d, err
}

// cardinality returns a predicate's cardinality in a scope: the ontology's,
// else the remembered hint, else "many".
func (s *Service) cardinality(tx graph.Tx, pred string) (ontology.Cardinality, bool, error) {
	if c, ok := s.Ontology.Cardinality(pred); ok {
		return c, true, nil
	}
	v, ok, err := tx.Meta("cardinality:" + pred)
	if err != nil || !ok {
		return ontology.Many, false, err
	}
	return ontology.Cardinality(v), true, nil
}

// chainOf reads the chain of f (every fact of its subject and predicate)
// and the predicate's cardinality.
func (s *Service) chainOf(tx graph.Tx, f *entity.Fact) ([]entity.Fact, ontology.Cardinality, error) {
	key := graph.ChainKey{SubjectID: f.SubjectID, Predicate: f.Predicate}
	chains, err := tx.Chains([]graph.ChainKey{key})
	if err != nil {
		return nil, "", err
	}
	card, _, err := s.cardinality(tx, f.Predicate)
	return chains[key], card, err
}

func sortByValidTime(fs []entity.Fact) {
	slices.SortFunc(fs, func(a, b entity.Fact) int {
		if c := a.ValidFrom.Compare(b.ValidFrom); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Predicate, b.Predicate); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// Retract marks a fact as never true (docs/design.md §3 rule 5) and recomputes its
// chain; queries known at an earlier time still see it. Returns ENOTFOUND.
func (s *Service) Retract(ctx context.Context, scope entity.Scope, id string) (entity.Fact, error) {
	var out entity.Fact
	err := s.update(ctx, scope, func(tx graph.Tx) error {
		f, err := tx.Fact(id)
		if err != nil {
			return err
		}
		if f.ExpiredAt != nil || f.ForgottenAt != nil {
			return entity.Errorf(entity.ENOTFOUND, "fact %s not found", id)
		}
		chain, card, err := s.chainOf(tx, &f)
		if err != nil {
			return err
		}
		res, err := temporal.Retract(chain, id, temporal.Rules{Cardinality: card}, s.now(), s.NewID)
		if err != nil {
			return err
		}
		for _, w := range res.Writes {
			if w.ID == id {
				out = w
			}
		}
		return tx.PutFacts(res.Writes)
	})
	return out, err
}

// EntityMatch is an entity found by name, with how it matched.
type EntityMatch struct {
	Entity entity.Entity    `json:"entity"`
	Match  entity.MatchKind `json:"match"`
	Score  float64          `json:"score"`
}

// FindEntities finds entities by name: exact and alias matches first, then
// fuzzy ones (any type: lookups, unlike merges, may suggest look-alikes).
// Forgotten entities are not found.
func (s *Service) FindEntities(ctx context.Context, scope entity.Scope, name string, limit int) ([]EntityMatch, error) {
	key := entity.Normalize(name)
	if key == "" {
		return nil, entity.FieldErrors{"name": "required"}.Err()
	}
	var out []EntityMatch
	err := s.Store.View(ctx, scope, func(tx graph.Tx) error {
		var err error
		out, err = findEntities(tx, key, clampLimit(limit))
		return err
	})
	return out, err
}

// findEntities is FindEntities in a transaction, for a normalised name.
func findEntities(tx graph.Tx, key string, limit int) ([]EntityMatch, error) {
	var out []EntityMatch
	exact, err := tx.EntitiesByKey([]string{key})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, e := range exact[key] {
		seen[e.ID] = true
		if e.ForgottenAt != nil {
			continue
		}
		m := EntityMatch{Entity: e, Match: entity.MatchAlias, Score: 0.99}
		if entity.Normalize(e.Name) == key {
			m.Match, m.Score = entity.MatchExact, 1
		}
		out = append(out, m)
	}
	cands, err := tx.EntitiesByPrefix(entity.FuzzyPrefix(key), fuzzyScanLimit)
	if err != nil {
		return nil, err
	}
	for _, e := range cands {
		if seen[e.ID] || e.ForgottenAt != nil {
			continue
		}
		seen[e.ID] = true
		best := 0.0
		for _, k := range e.Keys() {
			best = max(best, entity.Similarity(key, k))
		}
		if best >= entity.FuzzyThreshold || strings.HasPrefix(entity.Normalize(e.Name), key) {
			out = append(out, EntityMatch{Entity: e, Match: entity.MatchFuzzy, Score: best})
		}
	}
	slices.SortStableFunc(out, func(a, b EntityMatch) int { return cmp.Compare(b.Score, a.Score) })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// entityByRef finds the entity ref names: the entity with that id, else
// the one entity whose name or alias it is. REST, the CLI and MCP all take
// either. Forgotten entities are not found. A name several entities share
// is ECONFLICT listing their ids; no match is ENOTFOUND suggesting
// look-alikes.
func entityByRef(tx graph.Tx, ref string) (entity.Entity, error) {
	ref = strings.TrimSpace(ref)
	e, err := tx.Entity(ref)
	switch {
	case err == nil && e.ForgottenAt == nil:
		return e, nil
	case err != nil && entity.ErrorCode(err) != entity.ENOTFOUND:
		return entity.Entity{}, err
	}
	key := entity.Normalize(ref)
	if key == "" {
		return entity.Entity{}, entity.Errorf(entity.ENOTFOUND, "no entity named %q", ref)
	}
	ms, err := findEntities(tx, key, 6)
	if err != nil {
		return entity.Entity{}, err
	}
	var exact, fuzzy []string
	var hit entity.Entity
	for _, m := range ms {
		if m.Match == entity.MatchFuzzy {
			fuzzy = append(fuzzy, strconv.Quote(m.Entity.Name))
			continue
		}
		hit = m.Entity
		exact = append(exact, fmt.Sprintf("%s (%s, id %s)", m.Entity.Name, m.Entity.Type, m.Entity.ID))
	}
	switch {
	case len(exact) == 1:
		return hit, nil
	case len(exact) > 1:
		return entity.Entity{}, entity.Errorf(entity.ECONFLICT, "%q names %d entities; give one of their ids: %s", ref, len(exact), strings.Join(exact, "; "))
	case len(fuzzy) > 0:
		return entity.Entity{}, entity.Errorf(entity.ENOTFOUND, "no entity named %q; did you mean %s?", ref, strings.Join(fuzzy, ", "))
	}
	return entity.Entity{}, entity.Errorf(entity.ENOTFOUND, "no entity named %q", ref)
}

// EntityDetail is an entity with facts about it: those valid now (Entity)
// or all of them over time (Timeline).
type EntityDetail struct {
	Entity entity.Entity `json:"entity"`
	Facts  []entity.Fact `json:"facts"`
}

// maxEntityFacts bounds the facts read for one entity.
const maxEntityFacts = 10000

// Entity returns an entity, by id or name (see entityByRef), and its
// current facts.
func (s *Service) Entity(ctx context.Context, scope entity.Scope, ref string) (EntityDetail, error) {
	var d EntityDetail
	now := s.now()
	err := s.Store.View(ctx, scope, func(tx graph.Tx) error {
		e, err := entityByRef(tx, ref)
		if err != nil {
			return err
		}
		fs, err := tx.FactsOf(e.ID, maxEntityFacts)
		if err != nil {
			return err
		}
		d = EntityDetail{Entity: e}
		for _, f := range fs {
			if f.Recallable(now) && f.ValidAt(now) {
				d.Facts = append(d.Facts, f)
			}
		}
		sortByValidTime(d.Facts)
		return nil
	})
	return d, err
}

// Timeline returns an entity, by id or name (see entityByRef), with every
// fact of it (as subject or object) over time, optionally of one predicate,
// as known at knownAt (zero = now), ordered by valid time. Forgotten facts
// are left out.
func (s *Service) Timeline(ctx context.Context, scope entity.Scope, ref, predicate string, knownAt time.Time) (EntityDetail, error) {
	if knownAt.IsZero() {
		knownAt = s.now()
	}
	if predicate != "" {
		predicate = s.Ontology.Canonical(predicate)
	}
	var d EntityDetail
	err := s.Store.View(ctx, scope, func(tx graph.Tx) error {
		e, err := entityByRef(tx, ref)
		if err != nil {
			return err
		}
		d = EntityDetail{Entity: e}
		fs, err := tx.FactsOf(e.ID, maxEntityFacts)
		if err != nil {
			return err
		}
		q := FactQuery{KnownAt: knownAt, IncludeHistory: true}
		for _, f := range fs {
			if predicate != "" && f.Predicate != predicate {
				continue
			}
			if v, ok := visible(&f, q, knownAt); ok {
				d.Facts = append(d.Facts, v)
			}
		}
		sortByValidTime(d.Facts)
		return nil
	})
	return d, err
}
