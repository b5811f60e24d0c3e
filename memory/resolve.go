package memory

import (
	"strings"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// resolved maps each mention (normalised name and type) of a batch to its
// entity.
type resolved map[string]*entity.Entity

func mentionKey(name, typ string) string {
	return entity.Normalize(name) + "\x00" + strings.ToLower(strings.TrimSpace(typ))
}

func (r resolved) of(name, typ string) *entity.Entity { return r[mentionKey(name, typ)] }

// fuzzyScanLimit bounds the candidates read for one fuzzy lookup.
const fuzzyScanLimit = 200

// resolveEntities finds or creates the entity of every subject and object
// of the batch (entity.Resolve states the policy) and writes new or changed
// entities.
func (s *Service) resolveEntities(tx graph.Tx, scope entity.Scope, in []FactInput, now time.Time) (resolved, error) {
	type mention struct {
		name, typ string
		aliases   []string
	}
	var mentions []mention
	seen := map[string]int{}
	add := func(name, typ string, aliases []string) {
		name = strings.TrimSpace(name)
		if name == "" {
			return
		}
		k := mentionKey(name, typ)
		if i, ok := seen[k]; ok {
			mentions[i].aliases = append(mentions[i].aliases, aliases...)
			return
		}
		seen[k] = len(mentions)
		mentions = append(mentions, mention{name, strings.ToLower(strings.TrimSpace(typ)), aliases})
	}
	for _, f := range in {
		add(f.Subject, f.SubjectType, f.SubjectAliases)
		if strings.TrimSpace(f.Object) != "" {
			add(f.Object, f.ObjectType, f.ObjectAliases)
		}
	}
	// Typed mentions first, so an untyped mention of the same name joins
	// the entity its typed twin resolves to.
	typedFirst := make([]mention, 0, len(mentions))
	for _, m := range mentions {
		if m.typ != "" {
			typedFirst = append(typedFirst, m)
		}
	}
	for _, m := range mentions {
		if m.typ == "" {
			typedFirst = append(typedFirst, m)
		}
	}
	keys := make([]string, 0, len(mentions))
	kseen := map[string]bool{}
	for _, m := range mentions {
		if k := entity.Normalize(m.name); !kseen[k] {
			kseen[k] = true
			keys = append(keys, k)
		}
	}
	stored, err := tx.EntitiesByKey(keys)
	if err != nil {
		return nil, err
	}
	// The candidates of every mention that may need a fuzzy lookup, in
	// one read (one round trip on Neo4j) rather than one per mention.
	var prefixes []string
	for _, m := range mentions {
		key := entity.Normalize(m.name)
		if entity.FuzzyCandidate(m.name, m.typ) && entity.Resolve(m.name, m.typ, stored[key]).Entity == nil {
			prefixes = append(prefixes, entity.FuzzyPrefix(key))
		}
	}
	prefixCache := map[string][]entity.Entity{}
	if len(prefixes) > 0 {
		if prefixCache, err = graph.EntitiesByPrefixes(tx, prefixes, fuzzyScanLimit); err != nil {
			return nil, err
		}
	}
	out := resolved{}
	var byKey = map[string][]*entity.Entity{} // entities of this batch (found or new) by key
	dirty := map[string]*entity.Entity{}
	for _, m := range typedFirst {
		key := entity.Normalize(m.name)
		var e *entity.Entity
		if local := pickLocal(byKey[key], m.typ); local != nil {
			e = local
		} else if match := entity.Resolve(m.name, m.typ, stored[key]); match.Entity != nil {
			e = match.Entity
		} else if entity.FuzzyCandidate(m.name, m.typ) {
			p := entity.FuzzyPrefix(key)
			cands, ok := prefixCache[p]
			if !ok {
				if cands, err = tx.EntitiesByPrefix(p, fuzzyScanLimit); err != nil {
					return nil, err
				}
				prefixCache[p] = cands
			}
			if match := entity.Resolve(m.name, m.typ, cands); match.Entity != nil {
				e = match.Entity
				if e.AddAlias(m.name) {
					e.UpdatedAt = now
					dirty[e.ID] = e
				}
			}
		}
		if e == nil {
			e = &entity.Entity{ID: s.NewID(), Scope: scope, Name: m.name, Type: m.typ, CreatedAt: now, UpdatedAt: now}
			dirty[e.ID] = e
		}
		for _, a := range m.aliases {
			if e.AddAlias(a) {
				e.UpdatedAt = now
				dirty[e.ID] = e
			}
		}
		if e.ForgottenAt != nil {
			// Mentioned again after it was forgotten: new statements about
			// it bring it back (its forgotten facts stay forgotten).
			e.ForgottenAt, e.UpdatedAt = nil, now
			dirty[e.ID] = e
		}
		if e.Type == "" && m.typ != "" {
			e.Type, e.UpdatedAt = m.typ, now
			dirty[e.ID] = e
		}
		if d, ok := dirty[e.ID]; ok {
			e = d
		}
		byKey[key] = appendUnique(byKey[key], e)
		out[mentionKey(m.name, m.typ)] = e
	}
	if len(dirty) > 0 {
		es := make([]entity.Entity, 0, len(dirty))
		for _, e := range dirty {
			es = append(es, *e)
		}
		if err := tx.PutEntities(es); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func pickLocal(es []*entity.Entity, typ string) *entity.Entity {
	for _, e := range es {
		if typ == "" || e.Type == "" || strings.EqualFold(e.Type, typ) {
			return e
		}
	}
	return nil
}

func appendUnique(es []*entity.Entity, e *entity.Entity) []*entity.Entity {
	for _, x := range es {
		if x.ID == e.ID {
			return es
		}
	}
	return append(es, e)
}
