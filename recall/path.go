package recall

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/search"
)

// The walk: answers that cross entities (docs/design.md §4). "Who leads
// the team that owns cart-api?" names one entity, cart-api (the anchor),
// and two predicates, owns and leads; its answer is two facts joined
// through an entity it does not name: cart-api owned_by search team, then
// search team led_by Bob Aziz.
//
// A plan is what the question says, read without the graph: its anchors
// (the entities it names exactly or by alias, and the request's focus),
// the words that name predicates (each linked as single-hop predicates
// are: the lexicon, the ontology's names and synonyms; Chinese words as
// phrases) and the time it asks about (as_of, known_at, or a time it
// names). The plan does not fix the order of the hops: word order differs
// between wordings and languages ("the lead of the team that owns X",
// "X's owning team's lead", "X所属团队的负责人"). The walk finds it in the
// graph instead: from the anchors it follows, level by level, the facts
// valid at the question's time whose predicate the question's words name
// (forward, subject to object, or back, object to subject), each word
// used once. One hop to an entity may go unnamed (the question says
// "the team" and no word names owned_by): it counts little. A path is
// an answer when its last hop is named and it explains more of the
// question than any single fact of the anchor does.
//
// The walk reads one level at a time (at most pathHops reads of the store,
// whatever the fan-out) and keeps the pathBeam best partial paths.
//
// A path that stops before the question's words are used up is broken:
// the block says where ("memory holds that cart-api is owned by the
// search team, but no led_by for the search team"), and no other
// subject's fact stands in for the missing hop.

// Limits of the walk.
const (
	pathHops    = 3   // hops of the longest path
	pathBeam    = 48  // partial paths kept per level
	pathRead    = 200 // facts read around an entity
	pathAnchors = 3   // entities a walk starts from
)

// Path is a chain of facts a question's answer crosses, in walk order:
// from the anchor the question names to the answer. Complete is false for
// a broken path: Missing then names the predicate memory holds no fact of
// for the last entity reached.
type Path struct {
	Hops     []PathHop `json:"hops"`
	Complete bool      `json:"complete"`
	Missing  string    `json:"missing,omitempty"`
	// Text is the chain in one line, as the block shows it.
	Text string `json:"text"`
}

// PathHop is one fact of a path: it leaves Entity (by id EntityID)
// through Predicate — forward (Entity is the subject) or, when Inverse,
// back (Entity is the object) — and reaches To, an entity or a value.
type PathHop struct {
	Entity    string        `json:"entity"`
	EntityID  string        `json:"entity_id"`
	Predicate string        `json:"predicate"`
	Inverse   bool          `json:"inverse,omitempty"`
	To        string        `json:"to"`
	ToID      string        `json:"to_id,omitempty"`
	FactID    string        `json:"fact_id"`
	Status    entity.Status `json:"status"`
}

// plan is what a question asks the walk for.
type plan struct {
	anchors []entity.Entity
	// words are the question's words that may name a predicate (stemmed
	// terms; "cjk:" and a phrase for Chinese); typed are those that name
	// an entity type ("team"): they help a phrase ("owning team") but
	// name no hop alone.
	words []string
	typed map[string]bool
	asOf  time.Time
	lx    *lexicon
}

// String prints the plan, for tests and debugging.
func (pl *plan) String() string {
	var b strings.Builder
	b.WriteString("anchors")
	for _, a := range pl.anchors {
		fmt.Fprintf(&b, " %q", a.Name)
	}
	b.WriteString("; words")
	for _, w := range pl.words {
		b.WriteString(" " + w)
		if pl.typed[w] {
			b.WriteString("(type)")
		}
	}
	fmt.Fprintf(&b, "; at %s", pl.asOf.UTC().Format(time.RFC3339))
	return b.String()
}

// makePlan reads a plan from the question's analysis: anchors are the
// entities it names; words its terms that some predicate's phrase holds,
// without the anchors' names and the times it names.
func makePlan(a analysis, lx *lexicon, o *ontology.Ontology, anchors []entity.Entity, asOf time.Time) *plan {
	pl := &plan{anchors: anchors, typed: map[string]bool{}, asOf: asOf, lx: lx}
	drop := map[string]bool{}
	norm := entity.Normalize(a.text)
	for _, en := range anchors {
		for _, n := range append([]string{en.Name}, en.Aliases...) {
			for _, t := range search.Analyze(n) {
				drop[t] = true
			}
			norm = strings.ReplaceAll(norm, entity.Normalize(n), " ")
		}
	}
	for _, t := range a.times {
		for _, w := range search.Analyze(t.text) {
			drop[w] = true
		}
	}
	types := map[string]bool{}
	for _, t := range search.Analyze(kindWords) {
		types[t] = true
	}
	for _, et := range o.EntityTypes {
		for _, t := range search.Analyze(et.Name) {
			types[t] = true
		}
	}
	named := lx.termsNamed()
	for _, t := range search.Analyze(a.text) {
		if drop[t] || questionFiller[t] || isCJKTerm(t) || !named[t] || slices.Contains(pl.words, t) {
			continue
		}
		pl.words = append(pl.words, t)
		pl.typed[t] = types[t]
	}
	pl.words = append(pl.words, lx.cjkPhrases(norm)...)
	return pl
}

// kindWords name a kind of thing, as entity types do: in "the on-call
// engineer" or "the team that owns", they say what the bridge is, not how
// it is reached.
const kindWords = "engineer engineers person people someone somebody employee staff team group service system app application project database cluster"

// termsNamed are the terms of every phrase naming a predicate by name,
// synonym or lexicon word (not description).
func (lx *lexicon) termsNamed() map[string]bool {
	lx.once.Do(func() {
		lx.named = map[string]bool{}
		for _, phs := range lx.phrases {
			for _, ph := range phs {
				if !ph.desc {
					for _, t := range ph.terms {
						lx.named[t] = true
					}
				}
			}
		}
	})
	return lx.named
}

// cjkPhrases are the Chinese phrases naming predicates that norm holds,
// each as "cjk:" and the phrase, without those inside a longer one found
// at the same place ("负责" in "负责人").
func (lx *lexicon) cjkPhrases(norm string) []string {
	type span struct {
		ph       string
		from, to int
	}
	var found []span
	seen := map[string]bool{}
	for _, phs := range lx.phrases {
		for _, ph := range phs {
			if ph.cjk == "" || seen[ph.cjk] {
				continue
			}
			seen[ph.cjk] = true
			for off := 0; ; {
				i := strings.Index(norm[off:], ph.cjk)
				if i < 0 {
					break
				}
				found = append(found, span{ph.cjk, off + i, off + i + len(ph.cjk)})
				off += i + len(ph.cjk)
			}
		}
	}
	var out []string
	for _, s := range found {
		inside := slices.ContainsFunc(found, func(o span) bool {
			return o.to-o.from > s.to-s.from && o.from <= s.from && s.to <= o.to
		})
		if !inside && !slices.Contains(out, "cjk:"+s.ph) {
			out = append(out, "cjk:"+s.ph)
		}
	}
	sort.Strings(out)
	return out
}

// names is how well pred is named by the words left (a set of the plan's
// words), in [0, 1], and the words its best phrase uses. A phrase must
// use a word that is not an entity type.
func (pl *plan) names(pred string, left map[string]bool) (float64, []string) {
	best, bestUsed := 0.0, []string(nil)
	try := func(ph phrase) {
		if ph.desc {
			return
		}
		if ph.cjk != "" {
			if k := "cjk:" + ph.cjk; left[k] && best < 1 {
				best, bestUsed = 1, []string{k}
			}
			return
		}
		var got, all float64
		var used []string
		typedOnly := true
		for _, t := range ph.terms {
			w := pl.lx.weight(t)
			all += w
			if left[t] {
				got += w
				used = append(used, t)
				typedOnly = typedOnly && pl.typed[t]
			}
		}
		if len(used) == 0 || typedOnly {
			return
		}
		if s := got / all; s > best || s == best && len(used) > len(bestUsed) {
			best, bestUsed = s, used
		}
	}
	phs, known := pl.lx.phrases[pred]
	for _, ph := range phs {
		try(ph)
	}
	if ph, ok := newPhrase(strings.ReplaceAll(pred, "_", " ")); ok && !known {
		try(ph)
	}
	return best, bestUsed
}

// Scores of a path's hops.
const (
	namedHop   = 0.5  // a hop is named when its predicate's match reaches it
	unnamedHop = 0.1  // what a hop no word names counts
	inverseHop = 0.95 // a hop against a fact's direction, relative to along it
)

// partial is a path being walked.
type partial struct {
	facts   []entity.Fact
	inverse []bool
	at      string // the entity reached
	left    map[string]bool
	score   float64
	unnamed int
}

func (p *partial) extend(f entity.Fact, inverse bool, to string, used []string, score float64) *partial {
	n := &partial{facts: append(slices.Clip(p.facts), f), inverse: append(slices.Clip(p.inverse), inverse), at: to,
		left: make(map[string]bool, len(p.left)), score: p.score + score, unnamed: p.unnamed}
	for w := range p.left {
		if !slices.Contains(used, w) {
			n.left[w] = true
		}
	}
	if used == nil {
		n.unnamed++
	}
	return n
}

// visits reports whether the path already passed through entity id.
func (p *partial) visits(id string) bool {
	for _, f := range p.facts {
		if f.SubjectID == id || f.ObjectID == id {
			return true
		}
	}
	return false
}

// walked is what the walk found: the best path (nil when the question
// asks for no more than one fact of its anchor) and, when it is broken,
// the predicate missing.
type walked struct {
	path    *partial
	missing string
}

// walkPlan walks pl through the store at the plan's time, as p sees facts.
func walkPlan(tx graph.Tx, pl *plan, p *params) (walked, error) {
	if len(pl.anchors) == 0 || len(pl.words) == 0 {
		return walked{}, nil
	}
	all := map[string]bool{}
	for _, w := range pl.words {
		all[w] = true
	}
	level := make([]*partial, 0, len(pl.anchors))
	for _, a := range pl.anchors {
		level = append(level, &partial{at: a.ID, left: all})
	}
	var single, best *partial
	better := func(a, b *partial) bool {
		if b == nil {
			return true
		}
		if a.score != b.score {
			return a.score > b.score
		}
		return len(a.facts) < len(b.facts)
	}
	for hop := 1; hop <= pathHops && len(level) > 0; hop++ {
		ids := make([]string, 0, len(level))
		for _, pa := range level {
			if !slices.Contains(ids, pa.at) {
				ids = append(ids, pa.at)
			}
		}
		around, err := tx.FactsAround(ids, p.pointAround(pathRead))
		if err != nil {
			return walked{}, err
		}
		var next []*partial
		for _, pa := range level {
			for _, f := range around[pa.at] {
				f, ok := p.visibleAt(f)
				if !ok {
					continue
				}
				inverse, to := false, f.ObjectID
				if f.SubjectID != pa.at {
					inverse, to = true, f.SubjectID
				}
				if to != "" && pa.visits(to) {
					continue
				}
				s, used := pl.names(f.Predicate, pa.left)
				if inverse {
					s *= inverseHop
				}
				if s >= namedHop {
					np := pa.extend(f, inverse, to, used, s)
					if len(np.facts) == 1 && better(np, single) {
						single = np
					}
					if len(np.facts) > 1 && better(np, best) {
						best = np
					}
					if to != "" && len(np.left) > 0 {
						next = append(next, np)
					}
				} else if to != "" && pa.unnamed == 0 && hop < pathHops {
					next = append(next, pa.extend(f, inverse, to, nil, unnamedHop))
				}
			}
		}
		sort.SliceStable(next, func(i, j int) bool { return next[i].score > next[j].score })
		level = next[:min(len(next), pathBeam)]
	}
	// A path answers when it explains more than one fact of the anchor.
	if best != nil && (single == nil || best.score > single.score+unnamedHop/2) {
		return walked{path: best, missing: pl.missing(best)}, nil
	}
	if single != nil && single.at != "" {
		if m := pl.missing(single); m != "" {
			return walked{path: single, missing: m}, nil
		}
	}
	return walked{}, nil
}

// missing is the predicate the words a path left name best, when they
// name one fully: what the path lacks.
func (pl *plan) missing(pa *partial) string {
	untyped := false
	for w := range pa.left {
		// Beyond the first hop, a Chinese word left is more often a
		// particle of the wording than a hop not found.
		untyped = untyped || !pl.typed[w] && (len(pa.facts) == 1 || !strings.HasPrefix(w, "cjk:"))
	}
	if !untyped || pa.at == "" {
		return ""
	}
	best, name := 0.0, ""
	for _, pred := range slices.Sorted(maps.Keys(pl.lx.phrases)) {
		if s, _ := pl.names(pred, pa.left); s > best {
			best, name = s, pred
		}
	}
	if best < 1 {
		return ""
	}
	return name
}

// pointAround is what the walk reads around an entity: facts valid at
// the question's time (asOf), recallable now; for a known_at request,
// every fact (visibleAt decides).
func (p *params) pointAround(limit int) graph.Around {
	a := graph.Around{Limit: limit}
	if p.bare() {
		a.Bare, a.Now, a.AsOf = true, p.now, p.asOf
	}
	return a
}

// visibleAt is f as the request sees it, valid at asOf whatever the mode.
func (p *params) visibleAt(f entity.Fact) (entity.Fact, bool) {
	q := *p
	q.history, q.during = false, nil
	return q.visible(f)
}

// hops describes a walked path for the answer.
func (w walked) hops(p *params) Path {
	out := Path{Complete: w.missing == "", Missing: w.missing, Hops: []PathHop{}}
	var parts []string
	for i, f := range w.path.facts {
		h := PathHop{Predicate: f.Predicate, Inverse: w.path.inverse[i], FactID: f.ID, Status: f.StatusAt(p.asOf, p.now)}
		if h.Inverse {
			h.Entity, h.EntityID, h.To, h.ToID = f.ObjectText(), f.ObjectID, f.Subject, f.SubjectID
		} else {
			h.Entity, h.EntityID, h.To, h.ToID = f.Subject, f.SubjectID, f.ObjectText(), f.ObjectID
		}
		out.Hops = append(out.Hops, h)
		parts = append(parts, fmt.Sprintf("%s %s %s", f.Subject, f.Predicate, f.ObjectText()))
	}
	out.Text = strings.Join(parts, " → ")
	if w.missing != "" {
		last := out.Hops[len(out.Hops)-1]
		out.Text += fmt.Sprintf(" → memory holds no %s for %s", w.missing, last.To)
	}
	return out
}

// pathBlock is the block of a walked path: a line showing the chain, then
// every fact of the path in walk order, the answer last; for a broken
// path, where it broke. It ranks above every other fact block.
func (b *builder) pathBlock(w walked, path Path, top float64) *block {
	bl := &block{priority: top}
	chain := line{Kind: "path", Text: flatten(path.Text)}
	for i, f := range w.path.facts {
		h := path.Hops[i]
		chain.hops = append(chain.hops, pathLineHop{subject: flatten(f.Subject), predicate: f.Predicate, object: flatten(f.ObjectText())})
		if i == len(w.path.facts)-1 && path.Missing != "" {
			chain.missing, chain.missingAt = path.Missing, flatten(h.To)
		}
	}
	bl.lines = append(bl.lines, chain)
	for i := range w.path.facts {
		f := &w.path.facts[i]
		l := b.factLine("fact", f)
		l.nested = true
		bl.lines = append(bl.lines, l)
		bl.facts = append(bl.facts, ContextFact{Fact: boundedFact(*f), Status: l.Status, Role: "path", Score: round(top)})
	}
	return bl
}

// pathLineHop is one fact of a path line, rendered with its names
// quoted.
type pathLineHop struct{ subject, predicate, object string }

// walk adds the block of the question's path, if it crosses entities,
// and returns the path for the answer. The facts of the path leave the
// blocks they were in.
func (b *builder) walk(tx graph.Tx) ([]Path, error) {
	var anchors []entity.Entity
	for _, id := range slices.Sorted(maps.Keys(b.c.linked)) {
		if it := b.c.entities[id]; it != nil && b.c.linked[id] != entity.MatchFuzzy {
			anchors = append(anchors, *it.entity)
		}
	}
	slices.SortStableFunc(anchors, func(x, y entity.Entity) int { return cmp.Compare(len(y.Name), len(x.Name)) })
	anchors = anchors[:min(len(anchors), pathAnchors)]
	pl := makePlan(b.p.a, lexiconOf(b.e.ontology()), b.e.ontology(), anchors, b.p.asOf)
	w, err := walkPlan(tx, pl, b.p)
	if err != nil || w.path == nil {
		return []Path{}, err
	}
	path := w.hops(b.p)
	in := map[string]bool{}
	for _, f := range w.path.facts {
		in[f.ID] = true
	}
	top := 1.0
	kept := b.blocks[:0]
	for _, bl := range b.blocks {
		if len(bl.facts) > 0 && in[bl.facts[0].Fact.ID] {
			continue
		}
		top = max(top, bl.priority)
		kept = append(kept, bl)
	}
	b.blocks = append([]*block{b.pathBlock(w, path, top*2)}, kept...)
	return []Path{path}, nil
}
