package neo4j

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/graphmem/graphmem/cypher"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// SubgraphQuery asks for the facts around some entities: a breadth-first
// walk of Hops hops from Seeds over facts valid at AsOf and recallable at
// Now (entity.Fact.ValidAt and Recallable). From each entity the walk
// follows at most FanOut such facts, lowest ids first.
type SubgraphQuery struct {
	Seeds  []string
	Hops   int       // 1 = the seeds' own facts; at most MaxHops
	FanOut int       // ≤ 0: DefaultFanOut
	AsOf   time.Time // valid time
	Now    time.Time // what is retracted, forgotten, expired or archived
}

// SubgraphFact is a fact reached by the walk, with the hop that first
// reached it (1 for a fact of a seed).
type SubgraphFact struct {
	Fact entity.Fact
	Hop  int
}

// Walk limits.
const (
	DefaultFanOut = 50
	MaxHops       = 4
)

// Subgrapher is the optional fast path of the graph walk, found by type
// assertion on a graph.Tx: the whole walk in one query instead of one
// FactsOf call per entity. Walk is the generic path it must agree with.
type Subgrapher interface {
	Subgraph(q SubgraphQuery) ([]SubgraphFact, error)
}

var _ Subgrapher = (*tx)(nil)

// BatchReader is an optional read of a graph.Tx for walks that keep their
// own selection policy: FactsOf for many entities in one round trip.
type BatchReader interface {
	// FactsOfEach maps each of entityIDs to what FactsOf(id, limit) returns
	// for it; entities with no facts are left out.
	FactsOfEach(entityIDs []string, limit int) (map[string][]entity.Fact, error)
}

var _ BatchReader = (*tx)(nil)

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

func (q *SubgraphQuery) normalize() error {
	if q.Hops < 1 || q.Hops > MaxHops {
		return &entity.Error{Code: entity.EINVALID, Op: "neo4j.Subgraph",
			Message: fmt.Sprintf("hops must be between 1 and %d", MaxHops)}
	}
	if q.FanOut <= 0 {
		q.FanOut = DefaultFanOut
	}
	return nil
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
		out := make([]string, MaxHops+1)
		for h := 1; h <= MaxHops; h++ {
			out[h] = subgraphStatement(h)
		}
		return out
	}()
)

// Subgraph runs the walk as one Cypher query over the graph links, the
// temporal filters evaluated on the fact nodes. It reaches only entities
// that are stored (a fact naming a missing entity leads nowhere), and
// returns the facts ordered by hop, then id.
func (t *tx) Subgraph(q SubgraphQuery) ([]SubgraphFact, error) {
	const op = "neo4j.Subgraph"
	if err := q.normalize(); err != nil {
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
	out := make([]SubgraphFact, 0, len(recs))
	for _, r := range recs {
		f, err := t.decodeFact(props(r.Values[0]))
		if err != nil {
			return nil, internal(op, err)
		}
		out = append(out, SubgraphFact{Fact: f, Hop: int(asInt(r.Values[1]))})
	}
	return out, nil
}

// walkScan bounds the facts Walk reads per entity before filtering.
const walkScan = 100_000

// Walk is the generic path of the same walk on any graph.Tx: one FactsOf
// call per entity of each hop's frontier, the filters applied in Go. Like
// Subgraph, it only walks to entities that are stored.
func Walk(tx graph.Tx, q SubgraphQuery) ([]SubgraphFact, error) {
	if err := q.normalize(); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var frontier []string
	for _, id := range q.Seeds {
		if seen[id] {
			continue
		}
		if _, err := tx.Entity(id); err != nil {
			if entity.ErrorCode(err) == entity.ENOTFOUND {
				continue
			}
			return nil, err
		}
		seen[id] = true
		frontier = append(frontier, id)
	}
	found := map[string]bool{}
	var out []SubgraphFact
	for hop := 1; hop <= q.Hops && len(frontier) > 0; hop++ {
		var reached []entity.Fact
		reachedIDs := map[string]bool{}
		for _, id := range frontier {
			fs, err := tx.FactsOf(id, walkScan)
			if err != nil {
				return nil, err
			}
			n := 0
			for _, f := range fs { // FactsOf is in id order
				if n == q.FanOut {
					break
				}
				if !f.ValidAt(q.AsOf) || !f.Recallable(q.Now) {
					continue
				}
				n++
				if !reachedIDs[f.ID] {
					reachedIDs[f.ID] = true
					reached = append(reached, f)
				}
			}
		}
		slices.SortFunc(reached, func(a, b entity.Fact) int { return cmp.Compare(a.ID, b.ID) })
		var next []string
		for _, f := range reached {
			if !found[f.ID] {
				found[f.ID] = true
				out = append(out, SubgraphFact{Fact: f, Hop: hop})
			}
			if hop == q.Hops {
				continue
			}
			for _, id := range []string{f.SubjectID, f.ObjectID} {
				if id == "" || seen[id] {
					continue
				}
				if _, err := tx.Entity(id); err != nil {
					if entity.ErrorCode(err) == entity.ENOTFOUND {
						continue
					}
					return nil, err
				}
				seen[id] = true
				next = append(next, id)
			}
		}
		frontier = next
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
