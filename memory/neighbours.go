package memory

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// NeighbourhoodQuery asks for the graph around one entity, for a person to
// look at: its relationships and those of its neighbours, ended ones
// included, as they stood at AsOf.
type NeighbourhoodQuery struct {
	// AsOf is the valid time (default now): facts starting after it are
	// left out; the others are marked current or ended at it.
	AsOf time.Time
	// Depth is 1 (the entity's own facts) or 2 (its neighbours' too).
	Depth int
	// Nodes bounds the entities returned, the centre included.
	Nodes int
}

// Neighbourhood bounds.
const (
	// neighbourFanOut bounds the facts kept per entity, the ones valid at
	// AsOf first, then the most recent.
	neighbourFanOut = 40
	// neighbourScan bounds the facts read per entity before choosing.
	neighbourScan = 2000
)

// Node is an entity of a neighbourhood, at Depth hops from its centre.
type Node struct {
	Entity entity.Entity
	Depth  int
}

// Neighbourhood is the graph around an entity: Nodes (the centre first)
// and Edges, the facts between them plus the centre's literal values.
// Truncated says that a bound left some out.
type Neighbourhood struct {
	Nodes     []Node
	Edges     []entity.Fact
	AsOf      time.Time
	Truncated bool
}

// Neighbourhood returns the entities and relationships around the entity
// id names (an id or a name, see entityByRef) up to q.Depth hops, bounded
// so it stays fast at any size. Forgotten and retracted facts are left out.
func (s *Service) Neighbourhood(ctx context.Context, scope entity.Scope, id string, q NeighbourhoodQuery) (Neighbourhood, error) {
	now := s.now()
	if q.AsOf.IsZero() {
		q.AsOf = now
	}
	q.Depth = min(max(q.Depth, 1), 2)
	if q.Nodes <= 0 {
		q.Nodes = entity.DefaultGraphNodes
	}
	q.Nodes = min(q.Nodes, entity.MaxGraphNodes)
	var out Neighbourhood
	err := s.Store.View(ctx, scope, func(tx graph.Tx) error {
		centre, err := entityByRef(tx, id)
		if err != nil {
			return err
		}
		id := centre.ID
		out = Neighbourhood{Nodes: []Node{{Entity: centre}}, AsOf: q.AsOf}
		depth := map[string]int{id: 0}
		edges := map[string]bool{}
		frontier := []string{id}
		for d := 1; d <= q.Depth && len(frontier) > 0; d++ {
			var next []string
			for _, from := range frontier {
				fs, err := s.neighbourFacts(tx, from, from == id, q.AsOf, now)
				if err != nil {
					return err
				}
				if len(fs) > neighbourFanOut {
					fs, out.Truncated = fs[:neighbourFanOut], true
				}
				for _, f := range fs {
					if edges[f.ID] {
						continue
					}
					other := f.ObjectID
					if other == from {
						other = f.SubjectID
					}
					if _, ok := depth[other]; !ok && other != "" {
						if len(out.Nodes) >= q.Nodes {
							out.Truncated = true
							continue
						}
						e, err := tx.Entity(other)
						if entity.ErrorCode(err) == entity.ENOTFOUND || (err == nil && e.ForgottenAt != nil) {
							continue // purged or forgotten
						} else if err != nil {
							return err
						}
						depth[other] = d
						out.Nodes = append(out.Nodes, Node{Entity: e, Depth: d})
						next = append(next, other)
					}
					edges[f.ID] = true
					out.Edges = append(out.Edges, f)
				}
			}
			frontier = next
		}
		return nil
	})
	return out, err
}

// neighbourFacts returns the facts of an entity a person may see as of
// asOf: known now, not forgotten or retracted, started by asOf, literal
// values only if asked; those valid at asOf first, then the most recently
// started.
func (s *Service) neighbourFacts(tx graph.Tx, id string, literals bool, asOf, now time.Time) ([]entity.Fact, error) {
	fs, err := tx.FactsOf(id, neighbourScan)
	if err != nil {
		return nil, err
	}
	q := FactQuery{KnownAt: now, IncludeHistory: true}
	var out []entity.Fact
	for _, f := range fs {
		v, ok := visible(&f, q, now)
		if !ok || v.Status(now) == entity.StatusRetracted || (!v.ValidFrom.IsZero() && v.ValidFrom.After(asOf)) ||
			(v.ObjectID == "" && !literals) {
			continue
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b entity.Fact) int {
		if va, vb := a.ValidAt(asOf), b.ValidAt(asOf); va != vb {
			if va {
				return -1
			}
			return 1
		}
		if c := b.ValidFrom.Compare(a.ValidFrom); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out, nil
}
