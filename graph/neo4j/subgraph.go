package neo4j

import (
	"slices"
	"strings"

	"github.com/graphmem/graphmem/cypher"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

var _ graph.Subgrapher = (*tx)(nil)

var stmtFactsOfEach = cypher.MustRead("facts_of_each.cypher")

// FactsOfEach is FactsOf for a whole frontier, in one query.
func (t *tx) FactsOfEach(entityIDs []string, limit int) (map[string][]entity.Fact, error) {
	const op = "neo4j.FactsOfEach"
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
	recs, err := t.query(stmtFactsOfEach, map[string]any{"ids": ids, "limit": cypherLimit(limit)})
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		f, err := t.decodeFact(props(r.Values[1]))
		if err != nil {
			return nil, internal(op, err)
		}
		id := asString(r.Values[0])
		out[id] = append(out[id], f)
	}
	return out, nil
}

// subgraphStatement assembles the walk of hops hops from its parts (see
// subgraph_start.cypher): Cypher has no loop over hops, so they are
// unrolled.
func subgraphStatement(hops int) string {
	var b strings.Builder
	b.WriteString(stmtSubgraphStart)
	for i := range hops {
		b.WriteString("\n")
		b.WriteString(stmtSubgraphHop)
		if i < hops-1 {
			b.WriteString("\n")
			b.WriteString(stmtSubgraphNext)
		}
	}
	b.WriteString("\n")
	b.WriteString(stmtSubgraphEnd)
	return b.String()
}

var (
	stmtSubgraphStart = cypher.MustRead("subgraph_start.cypher")
	stmtSubgraphHop   = cypher.MustRead("subgraph_hop.cypher")
	stmtSubgraphNext  = cypher.MustRead("subgraph_next.cypher")
	stmtSubgraphEnd   = cypher.MustRead("subgraph_end.cypher")

	subgraphStatements = func() []string {
		out := make([]string, graph.MaxHops+1)
		for h := 1; h <= graph.MaxHops; h++ {
			out[h] = subgraphStatement(h)
		}
		return out
	}()
)

// Subgraph runs the walk as one Cypher query over the graph links, the
// temporal filters evaluated on the fact nodes. It reaches only entities
// that are stored (a fact naming a missing entity leads nowhere), and
// returns the facts ordered by hop, then id.
func (t *tx) Subgraph(q graph.SubgraphQuery) ([]graph.SubgraphFact, error) {
	const op = "neo4j.Subgraph"
	if err := q.Normalize(); err != nil {
		return nil, err
	}
	if len(q.Seeds) == 0 {
		return nil, nil
	}
	recs, err := t.query(subgraphStatements[q.Hops], map[string]any{
		"seeds": q.Seeds, "fanout": q.FanOut, "asOf": q.AsOf.UTC(), "now": q.Now.UTC(),
	})
	if err != nil {
		return nil, err
	}
	out := make([]graph.SubgraphFact, 0, len(recs))
	for _, r := range recs {
		f, err := t.decodeFact(props(r.Values[0]))
		if err != nil {
			return nil, internal(op, err)
		}
		out = append(out, graph.SubgraphFact{Fact: f, Hop: int(asInt(r.Values[1]))})
	}
	return out, nil
}

var _ graph.BatchReader = (*tx)(nil)

// FactsByID returns the facts among ids, in one round trip.
func (t *tx) FactsByID(ids []string) (map[string]entity.Fact, error) {
	const op = "neo4j.FactsByID"
	out := make(map[string]entity.Fact, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	recs, err := t.query(stmtFactsByID, map[string]any{"ids": ids})
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		f, err := t.decodeFact(props(r.Values[0]))
		if err != nil {
			return nil, internal(op, err)
		}
		out[f.ID] = f
	}
	return out, nil
}

// EntitiesByID returns the entities among ids, in one round trip.
func (t *tx) EntitiesByID(ids []string) (map[string]entity.Entity, error) {
	const op = "neo4j.EntitiesByID"
	out := make(map[string]entity.Entity, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	recs, err := t.query(stmtEntitiesByID, map[string]any{"ids": ids})
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		e, err := t.decodeEntity(props(r.Values[0]))
		if err != nil {
			return nil, internal(op, err)
		}
		out[e.ID] = e
	}
	return out, nil
}
