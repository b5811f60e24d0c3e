package recall

import (
	"cmp"
	"fmt"
	"maps"
	"math"
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
	pathFanOut  = 5   // paths alike shown (a many predicate's fan-out)
)

// pathLead is the path block's priority over the best other block's (at
// least 1): any factor above 1 puts it first.
const pathLead = 2

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
	// terms, as often as the question says them; "cjk:" and a phrase for
	// Chinese). kinds maps those that name a kind of thing ("team",
	// "engineer") to the entity type they name: they help a phrase
	// ("owning team"), hint at a hop alone, and are used up by an entity
	// of their type on the path.
	words []string
	kinds map[string]string
	// nearest is, for each anchor, the word written closest to its name:
	// the first hop usually names it ("the lead of Umar's team", "who
	// leads the team that owns cart-api").
	nearest map[string]string
	// answer is the kind of thing the question asks for, when it says
	// ("what team", "which database"): a path ends only at an entity of
	// that type, or of none, or at a value.
	answer string
	asOf   time.Time
	lx     *lexicon
	// w weighs the paths.
	w *PathWeights
}

// answers reports whether an entity of type typ may end a path of pl.
func (pl *plan) answers(typ string) bool {
	return pl.answer == "" || typ == "" || typ == pl.answer
}

// idioms are wordings that name a chain, or a predicate, in words that
// alone would name something else; the plan reads them as what they
// stand for. A skip-level is a manager's manager; "backed up" asks for a
// backup, where "back" alone would read "back in March" as one.
// They are read in the lower-cased question.
var idioms = strings.NewReplacer(
	"skip-level", "manager's manager", "skip level", "manager's manager",
	"backed up", "backup", "backs up", "backup", "back up", "backup",
)

// askWords introduce the kind of thing a question asks for: "what team",
// "which database".
var askWords = map[string]bool{"what": true, "which": true}

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
		if k := pl.kinds[w]; k != "" {
			b.WriteString("(" + k + ")")
		}
	}
	if pl.answer != "" {
		b.WriteString("; asks for a " + pl.answer)
	}
	fmt.Fprintf(&b, "; at %s", pl.asOf.UTC().Format(time.RFC3339))
	return b.String()
}

// kindWords name a kind of thing, by the entity type they name: in "the
// on-call engineer" or "the team that owns", they say what an entity of
// the path is, not how it is reached. The ontology's entity types name
// themselves.
var kindWords = map[string]string{}

func init() {
	for typ, words := range map[string]string{
		"person":   "engineer engineers person people someone somebody employee staff",
		"team":     "team teams group squad",
		"service":  "service services system app application",
		"project":  "project",
		"database": "database databases cluster datastore",
	} {
		for _, w := range strings.Fields(words) {
			for _, t := range search.Analyze(w) {
				kindWords[t] = typ
			}
		}
	}
}

// makePlan reads a plan from the question's analysis: anchors are the
// entities it names; words its terms that some predicate's phrase holds,
// without the anchors' names and the times it names. w weighs its paths.
func makePlan(a analysis, lx *lexicon, o *ontology.Ontology, anchors []entity.Entity, asOf time.Time, w *PathWeights) *plan {
	pl := &plan{anchors: anchors, kinds: map[string]string{}, nearest: map[string]string{}, asOf: asOf, lx: lx, w: w}
	lower := idioms.Replace(strings.ToLower(a.text))
	spans := anchorSpans(lower, anchors)
	drop := unwritten(a, anchors, spans)
	types := map[string]string{}
	for _, et := range o.EntityTypes {
		for _, t := range search.Analyze(et.Name) {
			types[t] = et.Name
		}
	}
	named := lx.termsNamed()
	closest := map[string]int{}
	off, asks := 0, false
	for _, field := range strings.Fields(lower) {
		at := off + strings.Index(lower[off:], field)
		off = at + len(field)
		after := asks
		asks = askWords[field]
		if inSpans(spans, at, off) {
			continue // an anchor's name: "report" in "who does reports-api's lead report to"
		}
		for _, t := range search.Analyze(field) {
			if drop[t] || questionFiller[t] || isCJKTerm(t) {
				continue
			}
			kind := cmp.Or(types[t], kindWords[t])
			if after && kind != "" && pl.answer == "" {
				pl.answer = kind
			}
			if !named[t] && kind == "" {
				continue
			}
			pl.words = append(pl.words, t)
			if kind != "" {
				pl.kinds[t] = kind
			}
			for id, sp := range spans {
				d := max(sp[0]-off, at-sp[1])
				if c, ok := closest[id]; d >= 0 && (!ok || d < c) {
					closest[id], pl.nearest[id] = d, t
				}
			}
		}
	}
	norm := entity.Normalize(lower)
	for _, en := range anchors {
		for _, n := range append([]string{en.Name}, en.Aliases...) {
			norm = strings.ReplaceAll(norm, entity.Normalize(n), " ")
		}
	}
	pl.words = append(pl.words, lx.cjkPhrases(norm)...)
	return pl
}

// unwritten are the terms the plan leaves out wherever they stand: those
// of the times the question names, and the names of anchors it does not
// write as their names (in other casing or spacing, "bookingservice").
func unwritten(a analysis, anchors []entity.Entity, spans map[string][2]int) map[string]bool {
	drop := map[string]bool{}
	for _, en := range anchors {
		if _, ok := spans[en.ID]; ok {
			continue
		}
		for _, n := range append([]string{en.Name}, en.Aliases...) {
			for _, t := range search.Analyze(n) {
				drop[t] = true
			}
		}
	}
	for _, t := range a.times {
		for _, w := range search.Analyze(t.text) {
			drop[w] = true
		}
	}
	return drop
}

// inSpans reports whether [from, to) overlaps an anchor's span.
func inSpans(spans map[string][2]int, from, to int) bool {
	for _, sp := range spans {
		if from < sp[1] && sp[0] < to {
			return true
		}
	}
	return false
}

// anchorSpans are where the anchors' names (or aliases) stand in the
// lower-cased question, by entity id.
func anchorSpans(lower string, anchors []entity.Entity) map[string][2]int {
	out := map[string][2]int{}
	for _, en := range anchors {
		for _, n := range append([]string{en.Name}, en.Aliases...) {
			if i := strings.Index(lower, strings.ToLower(n)); i >= 0 && n != "" {
				out[en.ID] = [2]int{i, i + len(n)}
				break
			}
		}
	}
	return out
}

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

// names is how well pred is named by the words left (the plan's words
// not used yet, with how often), in [0, 1], and the words its best phrase
// uses. A phrase that uses only kind words ("database" of uses_database)
// only hints at the predicate: hinted is then true, and the score 0.
func (pl *plan) names(pred string, left map[string]int) (score float64, used []string, hinted bool) {
	best, bestUsed, bestSpec := 0.0, []string(nil), 0.0
	var hint []string
	try := func(ph phrase) {
		if ph.desc {
			return
		}
		if ph.cjk != "" {
			if k := "cjk:" + ph.cjk; left[k] > 0 && best < 1 {
				best, bestUsed = 1, []string{k}
			}
			return
		}
		var got, all float64
		var used []string
		kindOnly := true
		for _, t := range ph.terms {
			w := pl.lx.weight(t)
			all += w
			if left[t] > 0 {
				got += w
				used = append(used, t)
				kindOnly = kindOnly && pl.kinds[t] != ""
			}
		}
		// Of two phrases that name pred alike, the one whose words name
		// fewer other predicates is used, and the other is left for a
		// hop it alone may name: in "who is in charge of the squad
		// accountable for X", owned_by takes "accountable" and leaves
		// "in charge" to led_by.
		switch spec := got; {
		case len(used) == 0:
		case kindOnly:
			if len(used) > len(hint) {
				hint = used
			}
		case got/all > best || got/all == best && (len(used) > len(bestUsed) || len(used) == len(bestUsed) && spec > bestSpec):
			best, bestUsed, bestSpec = got/all, used, spec
		}
	}
	phs, known := pl.lx.phrases[pred]
	for _, ph := range phs {
		try(ph)
	}
	if ph, ok := newPhrase(strings.ReplaceAll(pred, "_", " ")); ok && !known {
		try(ph)
	}
	if best == 0 && hint != nil {
		return 0, hint, true
	}
	return best, bestUsed, false
}

// Scores of a path's hops (PathWeights). A path has at most one hop that
// no word names fully: hinted by a kind word ("the database behind X"; it
// must reach an entity of that kind) or unnamed (it may not end the
// path). An unnamed hop costs a little, so that of two paths named alike
// the one without it wins.
//
// Every hop costs HopCost, so that a longer path must explain more; a
// hop against a fact's direction counts less than one along it; a path
// whose first hop uses the word written closest to its anchor gains
// NearBonus.

// partial is a path being walked.
type partial struct {
	facts   []entity.Fact
	inverse []bool
	at      string // the entity reached ("" after a value)
	left    map[string]int
	first   []string // the words the first hop used, and its entity's kind
	score   float64
	bridged bool   // a hop no word names fully
	hint    string // the kind the last hop, hinted, must reach
	// lastUnnamed: the last hop is named by no word; the path does not
	// answer. unnamed counts such hops.
	lastUnnamed bool
	unnamed     int
}

// extend is p followed by fact f, a hop worth score less its cost.
func (p *partial) extend(f entity.Fact, inverse bool, to string, used []string, score, cost float64) *partial {
	n := &partial{facts: append(slices.Clip(p.facts), f), inverse: append(slices.Clip(p.inverse), inverse), at: to,
		left: maps.Clone(p.left), score: p.score + score - cost, bridged: p.bridged, first: p.first, unnamed: p.unnamed}
	if len(p.facts) == 0 {
		n.first = used
	}
	for _, w := range used {
		if n.left[w]--; n.left[w] <= 0 {
			delete(n.left, w)
		}
	}
	return n
}

// arrive uses up the kind words the type of the entity reached names;
// it reports false when the last hop was hinted at another kind.
func (p *partial) arrive(pl *plan, typ string) bool {
	if p.hint != "" && p.hint != typ {
		return false
	}
	for w, k := range pl.kinds {
		if k == typ && p.left[w] > 0 {
			if p.left[w]--; p.left[w] == 0 {
				delete(p.left, w)
			}
			if len(p.facts) == 1 {
				p.first = append(slices.Clip(p.first), w)
			}
			if p.lastUnnamed && p.unnamed > 0 {
				p.unnamed-- // a bridge the question describes ("the services X changes")
			}
			break
		}
	}
	return true
}

// anchor is the entity the path starts from.
func (p *partial) anchor() string {
	if p.inverse[0] {
		return p.facts[0].ObjectID
	}
	return p.facts[0].SubjectID
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

// signature is the walk a path took, whatever entities it passed: paths
// alike fan out from one entity through a many predicate.
func (p *partial) signature() string {
	var b strings.Builder
	for i, f := range p.facts {
		fmt.Fprintf(&b, "%s/%v ", f.Predicate, p.inverse[i])
	}
	return b.String()
}

// walked is what the walk found: the best paths (none when the question
// asks for no more than one fact of its anchor; several alike when a
// many predicate fans out) and, when they are broken, the predicate
// missing.
type walked struct {
	paths   []*partial
	missing string
}

// walkPlan walks pl through the store at the plan's time, as p sees
// facts: per level, one read of the types of the entities reached and one
// of the facts around them.
func walkPlan(tx graph.Tx, pl *plan, p *params) (walked, error) {
	if len(pl.anchors) == 0 || len(pl.words) < 2 {
		return walked{}, nil // one word names one hop: no path to walk
	}
	all := map[string]int{}
	for _, w := range pl.words {
		all[w]++
	}
	level := make([]*partial, 0, len(pl.anchors))
	for _, a := range pl.anchors {
		level = append(level, &partial{at: a.ID, left: maps.Clone(all)})
	}
	var ends []*partial // paths whose last hop is named or hinted
	for hop := 0; hop <= pathHops && len(level) > 0; hop++ {
		ids := make([]string, 0, len(level))
		for _, pa := range level {
			if !slices.Contains(ids, pa.at) {
				ids = append(ids, pa.at)
			}
		}
		types, err := graph.EntitiesByID(tx, ids)
		if err != nil {
			return walked{}, err
		}
		arrived := level[:0]
		for _, pa := range level {
			if pa.arrive(pl, types[pa.at].Type) {
				pa.hint = ""
				arrived = append(arrived, pa)
				if len(pa.facts) > 0 && !pa.bridgedLast() && pl.answers(types[pa.at].Type) {
					ends = append(ends, pa)
				}
			}
		}
		if hop == pathHops {
			break
		}
		around, err := tx.FactsAround(ids, p.pointAround(pathRead))
		if err != nil {
			return walked{}, err
		}
		var next []*partial
		for _, pa := range arrived {
			if len(pa.left) == 0 {
				continue
			}
			for _, f := range around[pa.at] {
				if np := pl.step(pa, f, p, hop); np != nil {
					if np.at == "" {
						ends = append(ends, np) // a value: the path ends
					} else {
						next = append(next, np)
					}
				}
			}
		}
		sort.SliceStable(next, func(i, j int) bool { return next[i].score > next[j].score })
		level = next[:min(len(next), pathBeam)]
	}
	return pl.choose(ends), nil
}

// bridgedLast reports whether the path's last hop was unnamed: such a
// path does not answer.
func (p *partial) bridgedLast() bool { return p.lastUnnamed }

// step extends pa by fact f, or returns nil when f does not fit the plan.
func (pl *plan) step(pa *partial, f entity.Fact, p *params, hop int) *partial {
	f, ok := p.visibleAt(f)
	if !ok {
		return nil
	}
	inverse, to := false, f.ObjectID
	if f.SubjectID != pa.at {
		inverse, to = true, f.SubjectID
	}
	if to != "" && pa.visits(to) {
		return nil
	}
	// Back along the predicate just followed reaches the entity's
	// siblings ("the other services of its team"), which no question here
	// asks for.
	if n := len(pa.facts); n > 0 && inverse != pa.inverse[n-1] && f.Predicate == pa.facts[n-1].Predicate {
		return nil
	}
	s, used, hinted := pl.names(f.Predicate, pa.left)
	if inverse {
		s *= pl.w.Inverse
	}
	bridge := to != "" && !pa.bridged && hop+1 < pathHops
	switch {
	case s >= pl.w.Named:
		return pa.extend(f, inverse, to, used, s, pl.w.HopCost)
	case hinted && to != "" && !pa.bridged:
		np := pa.extend(f, inverse, to, used, pl.w.Hinted, pl.w.HopCost)
		np.bridged, np.hint = true, pl.kinds[used[0]]
		return np
	case bridge:
		np := pa.extend(f, inverse, to, nil, -pl.w.Unnamed, pl.w.HopCost)
		np.bridged, np.lastUnnamed = true, true
		np.unnamed++
		return np
	}
	return nil
}

// choose picks the best of the paths that end named: it answers when it
// crosses an entity, explaining more of the question than any one fact
// of the anchor; paths alike (a many predicate's fan-out) come with it.
// A path that leaves words naming a predicate is broken there.
func (pl *plan) choose(ends []*partial) walked {
	for _, pa := range ends {
		if w := pl.nearest[pa.anchor()]; w != "" && slices.Contains(pa.first, w) {
			pa.score += pl.w.NearBonus
		}
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
	for _, pa := range ends {
		if len(pa.facts) == 1 && better(pa, single) {
			single = pa
		}
		// Two hops at least must be the question's: a path that only one
		// word leads is a guess.
		if len(pa.facts) > 1 && len(pa.facts)-pa.unnamed >= 2 && better(pa, best) {
			best = pa
		}
	}
	if best != nil && (single == nil || best.score > single.score) {
		return walked{paths: alike(best, ends), missing: pl.missing(best)}
	}
	if single != nil && single.at != "" {
		if m := pl.missing(single); m != "" {
			return walked{paths: []*partial{single}, missing: m}
		}
	}
	return walked{}
}

// alike is best and, up to pathFanOut in all, the paths of ends that
// walked as it did from its anchor with its score: a many predicate's
// fan-out ("the services Project Nova changes").
func alike(best *partial, ends []*partial) []*partial {
	out := []*partial{best}
	sig := best.signature()
	for _, pa := range ends {
		if len(out) == pathFanOut {
			break
		}
		if pa != best && pa.signature() == sig && math.Abs(pa.score-best.score) < 1e-9 && pa.anchor() == best.anchor() {
			out = append(out, pa)
		}
	}
	return out
}

// missing is the predicate the words a path left name best, when they
// name one fully: what the path lacks.
func (pl *plan) missing(pa *partial) string {
	named := false
	for w := range pa.left {
		// Beyond the first hop, a Chinese word left is more often a
		// particle of the wording than a hop not found.
		named = named || pl.kinds[w] == "" && (len(pa.facts) == 1 || !strings.HasPrefix(w, "cjk:"))
	}
	if !named || pa.at == "" {
		return ""
	}
	best, name := 0.0, ""
	for _, pred := range slices.Sorted(maps.Keys(pl.lx.phrases)) {
		if s, _, _ := pl.names(pred, pa.left); s > best {
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

// describe is a walked path as the answer shows it.
func describe(pa *partial, missing string, p *params) Path {
	out := Path{Complete: missing == "", Missing: missing, Hops: []PathHop{}}
	var parts []string
	for i, f := range pa.facts {
		h := PathHop{Predicate: f.Predicate, Inverse: pa.inverse[i], FactID: f.ID, Status: f.StatusAt(p.asOf, p.now)}
		if h.Inverse {
			h.Entity, h.EntityID, h.To, h.ToID = f.ObjectText(), f.ObjectID, f.Subject, f.SubjectID
		} else {
			h.Entity, h.EntityID, h.To, h.ToID = f.Subject, f.SubjectID, f.ObjectText(), f.ObjectID
		}
		out.Hops = append(out.Hops, h)
		parts = append(parts, fmt.Sprintf("%s %s %s", f.Subject, f.Predicate, f.ObjectText()))
	}
	out.Text = strings.Join(parts, " → ")
	if missing != "" {
		out.Text += fmt.Sprintf(" → memory holds no %s for %s", missing, out.Hops[len(out.Hops)-1].To)
	}
	return out
}

// pathBlock is the block of walked paths: for each, a line showing the
// chain, then every fact of the path not shown yet, in walk order, the
// answer last; for a broken path, where it broke. It ranks above every
// other fact block.
func (b *builder) pathBlock(w walked, paths []Path, lead *Explanation) *block {
	top := lead.Value
	bl := &block{priority: top, lead: true}
	shown := map[string]bool{}
	for k, pa := range w.paths {
		path := paths[k]
		chain := line{Kind: "path", Text: flatten(path.Text)}
		for i, f := range pa.facts {
			chain.hops = append(chain.hops, pathLineHop{subject: flatten(f.Subject), predicate: f.Predicate, object: flatten(f.ObjectText())})
			if i == len(pa.facts)-1 && path.Missing != "" {
				chain.missing, chain.missingAt = path.Missing, flatten(path.Hops[i].To)
			}
		}
		bl.lines = append(bl.lines, chain)
		for i := range pa.facts {
			f := &pa.facts[i]
			if shown[f.ID] {
				continue
			}
			shown[f.ID] = true
			l := b.factLine("fact", f)
			l.nested = true
			bl.lines = append(bl.lines, l)
			bl.facts = append(bl.facts, ContextFact{Fact: boundedFact(*f), Status: l.Status, Role: "path", Score: round(top), Explanation: lead})
		}
	}
	return bl
}

// pathLineHop is one fact of a path line, rendered with its names
// quoted.
type pathLineHop struct{ subject, predicate, object string }

// walk adds the block of the question's paths, if it crosses entities,
// and returns them for the answer. The facts of the paths leave the
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
	pl := makePlan(b.p.a, lexiconOf(b.e.ontology()), b.e.ontology(), anchors, b.p.asOf, &b.c.w.Path)
	w, err := walkPlan(tx, pl, b.p)
	if err != nil || len(w.paths) == 0 {
		return []Path{}, err
	}
	paths := make([]Path, len(w.paths))
	in := map[string]bool{}
	for i, pa := range w.paths {
		paths[i] = describe(pa, w.missing, b.p)
		for _, f := range pa.facts {
			in[f.ID] = true
		}
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
	var n nodes
	lead := n.product("path", n.leaf("best_block", top), n.leaf("lead", pathLead))
	b.blocks = append([]*block{b.pathBlock(w, paths, lead)}, kept...)
	return paths, nil
}
