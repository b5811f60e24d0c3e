package graph

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/graphmem/graphmem/entity"
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

// Normalize checks the query and fills the default fan-out.
func (q *SubgraphQuery) Normalize() error {
	if q.Hops < 1 || q.Hops > MaxHops {
		return &entity.Error{Code: entity.EINVALID, Op: "graph.Subgraph",
			Message: fmt.Sprintf("hops must be between 1 and %d", MaxHops)}
	}
	if q.FanOut <= 0 {
		q.FanOut = DefaultFanOut
	}
	return nil
}

// walkScan bounds the facts Walk reads per entity before filtering.
const walkScan = 100_000

// Walk is the generic path of the same walk on any graph.Tx: one FactsOf
// call per entity of each hop's frontier, the filters applied in Go. Like
// Subgraph, it only walks to entities that are stored.
func Walk(tx Tx, q SubgraphQuery) ([]SubgraphFact, error) {
	if err := q.Normalize(); err != nil {
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
