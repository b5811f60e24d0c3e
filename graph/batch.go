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
	// FactsOfEach is FactsOf for each entity id.
	FactsOfEach(entityIDs []string, limit int) (map[string][]entity.Fact, error)
}

// FactsByID reads the facts among ids that exist.
func FactsByID(tx Tx, ids []string) (map[string]entity.Fact, error) {
	if b, ok := tx.(interface {
		FactsByID([]string) (map[string]entity.Fact, error)
	}); ok {
		return b.FactsByID(ids)
	}
	out := make(map[string]entity.Fact, len(ids))
	for _, id := range ids {
		f, err := tx.Fact(id)
		if entity.ErrorCode(err) == entity.ENOTFOUND {
			continue
		} else if err != nil {
			return nil, err
		}
		out[id] = f
	}
	return out, nil
}

// EntitiesByID reads the entities among ids that exist.
func EntitiesByID(tx Tx, ids []string) (map[string]entity.Entity, error) {
	if b, ok := tx.(interface {
		EntitiesByID([]string) (map[string]entity.Entity, error)
	}); ok {
		return b.EntitiesByID(ids)
	}
	out := make(map[string]entity.Entity, len(ids))
	for _, id := range ids {
		e, err := tx.Entity(id)
		if entity.ErrorCode(err) == entity.ENOTFOUND {
			continue
		} else if err != nil {
			return nil, err
		}
		out[id] = e
	}
	return out, nil
}

// FactsOfEach reads FactsOf for each entity id.
func FactsOfEach(tx Tx, entityIDs []string, limit int) (map[string][]entity.Fact, error) {
	if b, ok := tx.(interface {
		FactsOfEach([]string, int) (map[string][]entity.Fact, error)
	}); ok {
		return b.FactsOfEach(entityIDs, limit)
	}
	out := make(map[string][]entity.Fact, len(entityIDs))
	for _, id := range entityIDs {
		if _, done := out[id]; done {
			continue
		}
		fs, err := tx.FactsOf(id, limit)
		if err != nil {
			return nil, err
		}
		out[id] = fs
	}
	return out, nil
}
