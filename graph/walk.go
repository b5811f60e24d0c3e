package graph

import (
	"fmt"
	"time"

	"github.com/graphmem/graphmem/entity"
)

// Around selects the facts a walk reads around each entity: those whose
// subject or object the entity is, that pass the filters, newest (highest
// id, ids sort by creation) first. The filters run in the store, so an
// entity with thousands of past facts still yields its current ones.
type Around struct {
	// AsOf keeps only the facts valid at AsOf (entity.Fact.ValidAt); zero
	// keeps every valid time.
	AsOf time.Time
	// Now keeps only the facts recallable at Now (entity.Fact.Recallable):
	// not retracted, forgotten, expired or archived. Zero keeps them all.
	Now time.Time
	// Limit is how many facts are read per entity; ≤ 0 reads them all.
	Limit int
	// Bare says the caller needs no claims and revisions (Fact.Claims,
	// Fact.Revisions): an adapter that transfers each fact may leave them
	// out. Every other field is as stored.
	Bare bool
	// Hub, when > 0, says that the caller only counts the facts of an
	// entity with more than Hub of them (Walk does not expand a hub): an
	// adapter that transfers each fact may return such an entity's facts
	// with their ID alone.
	Hub int
}

// Admits reports whether f passes a's filters: the definition every
// adapter's FactsAround follows.
func (a Around) Admits(f *entity.Fact) bool {
	if !a.AsOf.IsZero() && !f.ValidAt(a.AsOf) {
		return false
	}
	return a.Now.IsZero() || f.Recallable(a.Now)
}

// WalkQuery asks for the facts around some entities: a breadth-first walk
// of Hops hops from Seeds. At each hop the store reads, for every entity of
// the frontier, its facts as Around says (current and newest first); Select
// then decides which of them the walk takes, and the entities at the other
// end of the taken facts form the next frontier.
type WalkQuery struct {
	Seeds []string // entity ids, best first
	Hops  int      // 1 = the seeds' own facts; at most MaxHops
	AsOf  time.Time
	Now   time.Time
	// Bare: the facts the walk yields may lack claims and revisions
	// (Around.Bare).
	Bare bool
	// Read is how many facts are read per entity (Around.Limit); ≤ 0:
	// DefaultRead.
	Read int
	// Hub: from the second hop on, an entity with more than Hub facts
	// passing the filters is a hub (a city, a company, a topic shared by
	// thousands) and is not expanded: its facts say little about the
	// seeds. ≤ 0: no entity is a hub.
	Hub int
	// Frontier caps the entities expanded per hop, the seeds included, in
	// the order they were reached; ≤ 0: no cap.
	Frontier int
	// Select is the selection policy: given the facts read around the
	// entity from at hop (newest first), it returns those the walk takes,
	// in order of preference; it may return modified copies. nil takes
	// them all.
	Select func(from string, hop int, facts []entity.Fact) []entity.Fact
	// Known are facts the caller already read around some entities with
	// the same AsOf and Now (FactsAround, newest first, at least Read of
	// them or all there are): the walk takes them instead of reading
	// those entities again.
	Known map[string][]entity.Fact
}

// Step is a fact the walk took: from the entity From, at hop Hop (1 for a
// fact of a seed). A fact reached from several entities is a step of each.
type Step struct {
	From string
	Hop  int
	Fact entity.Fact
}

// Walk limits.
const (
	DefaultRead = 50
	MaxHops     = 4
)

// Walk runs q over tx: one FactsAround read per hop (none for a hop whose
// entities are all in q.Known), so a walk of k hops costs at most k round
// trips on a store where every read is one.
// Returns EINVALID if Hops is out of range.
func Walk(tx Tx, q WalkQuery) ([]Step, error) {
	if q.Hops < 1 || q.Hops > MaxHops {
		return nil, &entity.Error{Code: entity.EINVALID, Op: "graph.Walk",
			Message: fmt.Sprintf("hops must be between 1 and %d", MaxHops)}
	}
	if q.Read <= 0 {
		q.Read = DefaultRead
	}
	seen := map[string]bool{}
	full := func(ids []string) bool { return q.Frontier > 0 && len(ids) >= q.Frontier }
	var frontier []string
	for _, id := range q.Seeds {
		if id != "" && !seen[id] && !full(frontier) {
			seen[id] = true
			frontier = append(frontier, id)
		}
	}
	var out []Step
	for hop := 1; hop <= q.Hops && len(frontier) > 0; hop++ {
		a := Around{AsOf: q.AsOf, Now: q.Now, Limit: q.Read, Bare: q.Bare}
		hubs := hop > 1 && q.Hub > 0
		if hubs {
			a.Limit, a.Hub = min(q.Read, q.Hub+1), q.Hub
		}
		around, err := q.around(tx, frontier, a)
		if err != nil {
			return nil, err
		}
		var next []string
		for _, from := range frontier {
			fs := around[from]
			if hubs && len(fs) > q.Hub {
				continue
			}
			if q.Select != nil {
				fs = q.Select(from, hop, fs)
			}
			for _, f := range fs {
				out = append(out, Step{From: from, Hop: hop, Fact: f})
				for _, id := range []string{f.SubjectID, f.ObjectID} {
					if id != "" && !seen[id] && !full(next) {
						seen[id] = true
						next = append(next, id)
					}
				}
			}
		}
		frontier = next
	}
	return out, nil
}

// around reads the facts around the entities of a frontier, taking the
// known ones from q.Known: one FactsAround read for the others, none if
// every entity is known.
func (q *WalkQuery) around(tx Tx, frontier []string, a Around) (map[string][]entity.Fact, error) {
	var unknown []string
	for _, id := range frontier {
		if _, ok := q.Known[id]; !ok {
			unknown = append(unknown, id)
		}
	}
	out := map[string][]entity.Fact{}
	if len(unknown) > 0 {
		var err error
		if out, err = tx.FactsAround(unknown, a); err != nil {
			return nil, err
		}
	}
	for _, id := range frontier {
		if fs, ok := q.Known[id]; ok && len(fs) > 0 {
			if a.Limit > 0 {
				fs = fs[:min(len(fs), a.Limit)]
			}
			out[id] = fs
		}
	}
	return out, nil
}
