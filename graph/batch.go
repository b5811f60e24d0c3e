package graph

import "github.com/graphmem/graphmem/entity"

// BatchReader is an optional capability of a Tx: several records in one
// round trip, for adapters where every read is one (Neo4j). Callers use the
// functions below, which use each method a Tx has and fall back to the
// single reads of Tx for the others.
type BatchReader interface {
	// FactsByID returns the facts among ids that exist, by id.
	FactsByID(ids []string) (map[string]entity.Fact, error)
	// EntitiesByID returns the entities among ids that exist, by id.
	EntitiesByID(ids []string) (map[string]entity.Entity, error)
	// EpisodesByID returns the episodes among ids that exist, by id.
	EpisodesByID(ids []string) (map[string]entity.Episode, error)
	// EntitiesByPrefixes is Tx.EntitiesByPrefix for each prefix.
	EntitiesByPrefixes(prefixes []string, limit int) (map[string][]entity.Entity, error)
	// FactsAndEntitiesByID is FactsByID and EntitiesByID at once; bare
	// says the caller needs no claims and revisions of the facts (as
	// Around.Bare).
	FactsAndEntitiesByID(factIDs, entityIDs []string, bare bool) (map[string]entity.Fact, map[string]entity.Entity, error)
}

// FactsByID reads the facts among ids that exist.
func FactsByID(tx Tx, ids []string) (map[string]entity.Fact, error) {
	if b, ok := tx.(interface {
		FactsByID([]string) (map[string]entity.Fact, error)
	}); ok {
		return b.FactsByID(ids)
	}
	return eachByID(ids, tx.Fact)
}

// EntitiesByID reads the entities among ids that exist.
func EntitiesByID(tx Tx, ids []string) (map[string]entity.Entity, error) {
	if b, ok := tx.(interface {
		EntitiesByID([]string) (map[string]entity.Entity, error)
	}); ok {
		return b.EntitiesByID(ids)
	}
	return eachByID(ids, tx.Entity)
}

// EpisodesByID reads the episodes among ids that exist.
func EpisodesByID(tx Tx, ids []string) (map[string]entity.Episode, error) {
	if b, ok := tx.(interface {
		EpisodesByID([]string) (map[string]entity.Episode, error)
	}); ok {
		return b.EpisodesByID(ids)
	}
	return eachByID(ids, tx.Episode)
}

// FactsAndEntitiesByID reads the facts among factIDs and the entities
// among entityIDs that exist; with bare the facts may lack their claims
// and revisions (BatchReader.FactsAndEntitiesByID).
func FactsAndEntitiesByID(tx Tx, factIDs, entityIDs []string, bare bool) (map[string]entity.Fact, map[string]entity.Entity, error) {
	if b, ok := tx.(interface {
		FactsAndEntitiesByID([]string, []string, bool) (map[string]entity.Fact, map[string]entity.Entity, error)
	}); ok {
		return b.FactsAndEntitiesByID(factIDs, entityIDs, bare)
	}
	fs, err := FactsByID(tx, factIDs)
	if err != nil {
		return nil, nil, err
	}
	es, err := EntitiesByID(tx, entityIDs)
	if err != nil {
		return nil, nil, err
	}
	return fs, es, nil
}

// EntitiesByPrefixes reads EntitiesByPrefix for each prefix.
func EntitiesByPrefixes(tx Tx, prefixes []string, limit int) (map[string][]entity.Entity, error) {
	if b, ok := tx.(interface {
		EntitiesByPrefixes([]string, int) (map[string][]entity.Entity, error)
	}); ok {
		return b.EntitiesByPrefixes(prefixes, limit)
	}
	out := make(map[string][]entity.Entity, len(prefixes))
	for _, p := range prefixes {
		es, err := tx.EntitiesByPrefix(p, limit)
		if err != nil {
			return nil, err
		}
		out[p] = es
	}
	return out, nil
}

// eachByID is the fallback of the batch reads: one read per id, the
// missing ones left out.
func eachByID[T any](ids []string, read func(string) (T, error)) (map[string]T, error) {
	out := make(map[string]T, len(ids))
	for _, id := range ids {
		r, err := read(id)
		if entity.ErrorCode(err) == entity.ENOTFOUND {
			continue
		} else if err != nil {
			return nil, err
		}
		out[id] = r
	}
	return out, nil
}
