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
	mentions := batchMentions(in)
	stored, err := tx.EntitiesByKey(mentionKeys(mentions))
	if err != nil {
		return nil, err
	}
	// The candidates of every mention that may need a fuzzy lookup, in
	// one read (one round trip on Neo4j) rather than one per mention.
	prefixCache := map[string][]entity.Entity{}
	if prefixes := fuzzyPrefixes(mentions, stored); len(prefixes) > 0 {
		if prefixCache, err = graph.EntitiesByPrefixes(tx, prefixes, fuzzyScanLimit); err != nil {
			return nil, err
		}
	}
	r := batchResolver{tx: tx, now: now, stored: stored, prefixCache: prefixCache,
		byKey: map[string][]*entity.Entity{}, dirty: map[string]*entity.Entity{}}
	out := resolved{}
	for _, m := range typedFirst(mentions) {
		key := entity.Normalize(m.name)
		e, err := r.find(m)
		if err != nil {
			return nil, err
		}
		if e == nil {
			e = &entity.Entity{ID: s.NewID(), Scope: scope, Name: m.name, Type: m.typ, CreatedAt: now, UpdatedAt: now}
			r.dirty[e.ID] = e
		}
		e = r.update(e, m)
		r.byKey[key] = appendUnique(r.byKey[key], e)
		out[mentionKey(m.name, m.typ)] = e
	}
	if len(r.dirty) > 0 {
		es := make([]entity.Entity, 0, len(r.dirty))
		for _, e := range r.dirty {
			es = append(es, *e)
		}
		if err := tx.PutEntities(es); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// entityMention is a subject or object of a batch: its name, its type
// (lower case, maybe empty) and the aliases the batch gives it.
type entityMention struct {
	name, typ string
	aliases   []string
}

// batchMentions lists the subjects and objects of in, once per name and
// type, in order, each with every alias the batch gives it.
func batchMentions(in []FactInput) []entityMention {
	var mentions []entityMention
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
		mentions = append(mentions, entityMention{name, strings.ToLower(strings.TrimSpace(typ)), aliases})
	}
	for _, f := range in {
		add(f.Subject, f.SubjectType, f.SubjectAliases)
		if strings.TrimSpace(f.Object) != "" {
			add(f.Object, f.ObjectType, f.ObjectAliases)
		}
	}
	return mentions
}

// typedFirst orders the typed mentions first, so an untyped mention of the
// same name joins the entity its typed twin resolves to.
func typedFirst(mentions []entityMention) []entityMention {
	out := make([]entityMention, 0, len(mentions))
	for _, m := range mentions {
		if m.typ != "" {
			out = append(out, m)
		}
	}
	for _, m := range mentions {
		if m.typ == "" {
			out = append(out, m)
		}
	}
	return out
}

// mentionKeys lists the normalised names of the mentions, once each.
func mentionKeys(mentions []entityMention) []string {
	keys := make([]string, 0, len(mentions))
	seen := map[string]bool{}
	for _, m := range mentions {
		if k := entity.Normalize(m.name); !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// fuzzyPrefixes lists the fuzzy-lookup prefixes of the mentions that may
// need one: those no stored entity of the same key resolves.
func fuzzyPrefixes(mentions []entityMention, stored map[string][]entity.Entity) []string {
	var prefixes []string
	for _, m := range mentions {
		key := entity.Normalize(m.name)
		if entity.FuzzyCandidate(m.name, m.typ) && entity.Resolve(m.name, m.typ, stored[key]).Entity == nil {
			prefixes = append(prefixes, entity.FuzzyPrefix(key))
		}
	}
	return prefixes
}

// batchResolver resolves the mentions of one batch in turn.
type batchResolver struct {
	tx          graph.Tx
	now         time.Time
	stored      map[string][]entity.Entity  // by key
	prefixCache map[string][]entity.Entity  // fuzzy candidates by prefix
	byKey       map[string][]*entity.Entity // entities of this batch (found or new) by key
	dirty       map[string]*entity.Entity   // new or changed, by id
}

// find returns the entity mention m names, nil if there is none: one of
// this batch, else a stored one of the same key, else one a fuzzy lookup
// finds, which takes m's name as an alias.
func (r *batchResolver) find(m entityMention) (*entity.Entity, error) {
	key := entity.Normalize(m.name)
	if local := pickLocal(r.byKey[key], m.typ); local != nil {
		return local, nil
	}
	if match := entity.Resolve(m.name, m.typ, r.stored[key]); match.Entity != nil {
		return match.Entity, nil
	}
	if !entity.FuzzyCandidate(m.name, m.typ) {
		return nil, nil
	}
	p := entity.FuzzyPrefix(key)
	cands, ok := r.prefixCache[p]
	if !ok {
		var err error
		if cands, err = r.tx.EntitiesByPrefix(p, fuzzyScanLimit); err != nil {
			return nil, err
		}
		r.prefixCache[p] = cands
	}
	match := entity.Resolve(m.name, m.typ, cands)
	if match.Entity == nil {
		return nil, nil
	}
	e := match.Entity
	if e.AddAlias(m.name) {
		e.UpdatedAt = r.now
		r.dirty[e.ID] = e
	}
	return e, nil
}

// update gives e the aliases and type of m and brings it back if it was
// forgotten, marking it dirty if it changed; it returns the batch's copy
// of e.
func (r *batchResolver) update(e *entity.Entity, m entityMention) *entity.Entity {
	for _, a := range m.aliases {
		if e.AddAlias(a) {
			e.UpdatedAt = r.now
			r.dirty[e.ID] = e
		}
	}
	if e.ForgottenAt != nil {
		// Mentioned again after it was forgotten: new statements about
		// it bring it back (its forgotten facts stay forgotten).
		e.ForgottenAt, e.UpdatedAt = nil, r.now
		r.dirty[e.ID] = e
	}
	if e.Type == "" && m.typ != "" {
		e.Type, e.UpdatedAt = m.typ, r.now
		r.dirty[e.ID] = e
	}
	if d, ok := r.dirty[e.ID]; ok {
		e = d
	}
	return e
}

// pickLocal returns the first of es whose type agrees with typ (either
// may be empty), nil if none does.
func pickLocal(es []*entity.Entity, typ string) *entity.Entity {
	for _, e := range es {
		if typ == "" || e.Type == "" || strings.EqualFold(e.Type, typ) {
			return e
		}
	}
	return nil
}

// appendUnique appends e to es unless an entity of its id is there.
func appendUnique(es []*entity.Entity, e *entity.Entity) []*entity.Entity {
	for _, x := range es {
		if x.ID == e.ID {
			return es
		}
	}
	return append(es, e)
}
