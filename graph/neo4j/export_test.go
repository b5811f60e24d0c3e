package neo4j

import (
	"context"

	neo "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/graphmem/graphmem/cypher"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// BareCreate writes fs with bench_bare_create.cypher, encoded exactly as
// PutFacts encodes them: the baseline of BenchmarkPutFacts.
func (s *Store) BareCreate(ctx context.Context, fs []entity.Fact) error {
	rows := make([]map[string]any, len(fs))
	for i := range fs {
		p, err := factProps(&fs[i])
		if err != nil {
			return err
		}
		rows[i] = map[string]any{"props": p}
	}
	stmt := cypher.MustRead("bench_bare_create.cypher")
	sess := s.session(ctx, neo.AccessModeWrite)
	defer sess.Close(ctx)
	_, err := sess.ExecuteWrite(ctx, func(tx neo.ManagedTransaction) (any, error) {
		res, err := tx.Run(ctx, stmt, map[string]any{"rows": rows})
		if err != nil {
			return nil, err
		}
		return res.Consume(ctx)
	})
	return translate("neo4j.BareCreate", err)
}

// Links returns the ids of the entities linked to the fact id of scope:
// by SUBJECT_OF, and by OBJECT, each sorted.
func (s *Store) Links(ctx context.Context, scope, id string) (subjects, objects []string, err error) {
	const stmt = `MATCH (f:Fact {scope: $scope, id: $id})
RETURN COLLECT { MATCH (e:Entity)-[:SUBJECT_OF]->(f) RETURN e.id ORDER BY e.id } AS s,
       COLLECT { MATCH (f)-[:OBJECT]->(e:Entity) RETURN e.id ORDER BY e.id } AS o`
	sess := s.session(ctx, neo.AccessModeRead)
	defer sess.Close(ctx)
	res, err := sess.Run(ctx, stmt, map[string]any{"scope": scope, "id": id})
	if err != nil {
		return nil, nil, err
	}
	rec, err := res.Single(ctx)
	if err != nil {
		return nil, nil, err
	}
	return asStrings(rec.Values[0]), asStrings(rec.Values[1]), nil
}

// CachedChain reports whether the write cache holds the chain k of scope.
func (s *Store) CachedChain(scope string, k graph.ChainKey) bool {
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	_, ok := s.cache.scope(scope).chains[k]
	return ok
}

// CachedName reports whether the write cache holds the name key of scope.
func (s *Store) CachedName(scope, key string) bool {
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	_, ok := s.cache.scope(scope).names[key]
	return ok
}

// CachedAround reports whether the cache holds the facts around entity id
// of scope.
func (s *Store) CachedAround(scope, id string) bool {
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	_, ok := s.cache.scope(scope).around[id]
	return ok
}
