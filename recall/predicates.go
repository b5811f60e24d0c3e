package recall

import (
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/search"
)

// Predicate linking: the words of a question are linked to predicates as
// its n-grams are linked to entities. A predicate is named by
//
//   - its own name, split into words and stemmed ("owns" → owned_by,
//     "memory limit" → memory_limit);
//   - its synonyms in the ontology, the same way (operators extend the
//     linking through the ontology file);
//   - the built-in lexicon of property words (propertyWords);
//   - the content words of its description in the ontology, weakly.
//
// A phrase counts in proportion to the weight of its words the question
// holds, a word weighing 1/n when the phrases of n predicates hold it
// ("limit" says less than "memory"). A predicate's match is its best
// phrase's, times 0.75 + 0.25·(the share of the question's words its
// phrases hold), so that of two predicates named equally well, the one
// that explains more of the question wins (PredicateWeights).

// phrase is one way of naming a predicate: stemmed terms, or a CJK word
// matched as a substring of the normalised question. A description's
// words name it weakly (PredicateWeights.Description), others fully
// (PredicateWeights.Name).
type phrase struct {
	terms []string
	cjk   string
	desc  bool
}

// lexicon holds the phrases of the ontology's predicates and of the
// built-in property words, by canonical predicate name, and how many
// predicates' phrases hold each term.
type lexicon struct {
	phrases map[string][]phrase
	spread  map[string]int
	// named are the terms of the phrases naming predicates other than by
	// description, made once (termsNamed).
	once  sync.Once
	named map[string]bool
}

// weight is what a term of a phrase weighs: 1/n when n predicates' phrases
// hold it; 1 for a term the lexicon does not know.
func (lx *lexicon) weight(t string) float64 {
	if n := lx.spread[t]; n > 1 {
		return 1 / float64(n)
	}
	return 1
}

var lexicons sync.Map // *ontology.Ontology → *lexicon

// lexiconOf returns the lexicon of an ontology, built once.
func lexiconOf(o *ontology.Ontology) *lexicon {
	if lx, ok := lexicons.Load(o); ok {
		return lx.(*lexicon)
	}
	lx := &lexicon{phrases: map[string][]phrase{}}
	for _, p := range o.Predicates {
		lx.add(p.Name, strings.ReplaceAll(p.Name, "_", " "))
		for _, s := range p.Synonyms {
			lx.add(p.Name, strings.ReplaceAll(entity.CanonicalPredicate(s), "_", " "))
		}
		for _, t := range search.Analyze(p.Description) {
			if !descriptionFiller[t] && !isCJKTerm(t) {
				lx.phrases[p.Name] = append(lx.phrases[p.Name], phrase{terms: []string{t}, desc: true})
			}
		}
	}
	for pred, words := range propertyWords {
		name := o.Canonical(pred)
		if _, ok := o.Predicate(name); !ok {
			lx.add(name, strings.ReplaceAll(name, "_", " "))
		}
		for _, w := range words {
			lx.add(name, w)
		}
	}
	lx.spread = map[string]int{}
	for _, phs := range lx.phrases {
		seen := map[string]bool{}
		for _, ph := range phs {
			for _, t := range ph.terms {
				if !ph.desc && !seen[t] {
					seen[t] = true
					lx.spread[t]++
				}
			}
		}
	}
	v, _ := lexicons.LoadOrStore(o, lx)
	return v.(*lexicon)
}

func (lx *lexicon) add(pred, words string) {
	if ph, ok := newPhrase(words); ok {
		lx.phrases[pred] = append(lx.phrases[pred], ph)
	}
}

// newPhrase is a phrase naming a predicate by its words.
func newPhrase(words string) (phrase, bool) {
	for _, r := range words {
		if isCJK(r) {
			return phrase{cjk: entity.Normalize(words)}, true
		}
	}
	terms := search.Analyze(words)
	return phrase{terms: terms}, len(terms) > 0
}

// descriptionFiller are stemmed words of predicate descriptions, and
// questionFiller words of questions, that say nothing about which property
// a question asks for.
var descriptionFiller, questionFiller = map[string]bool{}, map[string]bool{}

func init() {
	for _, w := range search.Analyze(`subject object value entity thing something anything e.g. i.e. one several current
		primary main other kind type person people given whose which record records fact facts may might`) {
		descriptionFiller[w] = true
	}
	for _, w := range search.Analyze(`how much many can could get gets got current currently now today tell me please show
		give know want need find look up what which who whom whose where when why right exactly`) {
		questionFiller[w] = true
	}
}

func isCJKTerm(t string) bool {
	for _, r := range t {
		if isCJK(r) {
			return true
		}
	}
	return false
}

// question is what predicate linking reads of a query: its stemmed terms
// without the words that name linked entities, and its normalised text
// for CJK phrases.
type question struct {
	terms map[string]bool
	latin int // terms not in a CJK script
	norm  string
	full  string // the normalised question, names included
	// scores caches the match of each predicate.
	scores map[string]float64
	lx     *lexicon
	w      *PredicateWeights
	// near is how close in meaning the question is to each predicate the
	// linked entities' facts have, in [0, 1] (nearPredicates; nil without
	// embeddings).
	near map[string]float64
}

func newQuestion(lx *lexicon, w *PredicateWeights, text string, names []string) *question {
	q := &question{terms: map[string]bool{}, norm: entity.Normalize(text), scores: map[string]float64{}, lx: lx, w: w}
	q.full = q.norm
	for _, t := range search.Analyze(text) {
		if !questionFiller[t] {
			q.terms[t] = true
		}
	}
	for _, n := range names {
		for _, t := range search.Analyze(n) {
			delete(q.terms, t)
		}
		q.norm = strings.ReplaceAll(q.norm, entity.Normalize(n), " ")
	}
	for t := range q.terms {
		if !isCJKTerm(t) {
			q.latin++
		}
	}
	return q
}

// match is how well the question names the predicate, in [0, 1].
func (q *question) match(pred string) float64 {
	if s, ok := q.scores[pred]; ok {
		return s
	}
	best := 0.0
	explained := map[string]bool{}
	try := func(ph phrase) {
		var cov float64
		if ph.cjk != "" {
			if strings.Contains(q.norm, ph.cjk) {
				cov = 1
			}
		} else {
			var got, all float64
			for _, t := range ph.terms {
				w := q.lx.weight(t)
				all += w
				if q.terms[t] {
					got += w
					explained[t] = true
				}
			}
			cov = got / all
		}
		pw := q.w.Name
		if ph.desc {
			pw = q.w.Description
		}
		best = max(best, cov*pw)
	}
	phs, known := q.lx.phrases[pred]
	for _, ph := range phs {
		try(ph)
	}
	// A predicate neither the ontology nor the lexicon knows is named by
	// its own words.
	if ph, ok := newPhrase(strings.ReplaceAll(pred, "_", " ")); ok && !known {
		try(ph)
	}
	// Chinese words are matched as phrases, not terms: the share counts
	// the other words only.
	score := best
	if q.latin > 0 {
		score = best * ((1 - q.w.Explained) + q.w.Explained*float64(len(explained))/float64(q.latin))
	}
	// Meaning names a predicate too, less surely than its words.
	score = max(score, q.w.Near*q.near[pred])
	q.scores[pred] = score
	return score
}

// Limits of linked facts.
const (
	linkedFactsScan = 150 // facts read per entity the query names, current and newest first (400 and 150 answer the tune seed alike)
	linkedEntities  = 4   // entities whose facts are read
)

// linkedFacts are the visible facts of the entities the query names,
// with the terms of each (as the index sees them).
type linkedFacts struct {
	facts []entity.Fact
	terms [][]string
	// df counts the facts holding each term; n is len(facts).
	df map[string]int
}

// readLinked reads the facts of the entities the query names (the
// exactly or alias-linked ones first) and returns the query terms that
// tell them apart: a term found in some of those facts but not all must
// never be dropped as common across the index.
func (c *candidates) readLinked(tx graph.Tx) (keep, of []string, err error) {
	var ids []string
	for id, k := range c.linked {
		if k != entity.MatchFuzzy {
			ids = append(ids, id)
		}
	}
	fuzzy := 0
	for id, k := range c.linked {
		if k == entity.MatchFuzzy {
			ids = append(ids, id)
			fuzzy++
		}
	}
	slices.Sort(ids[:len(ids)-fuzzy])
	slices.Sort(ids[len(ids)-fuzzy:])
	if len(ids) > linkedEntities {
		ids = ids[:linkedEntities]
	}
	if len(ids) == 0 {
		return nil, nil, nil
	}
	factsOf, err := tx.FactsAround(ids, c.p.around(linkedFactsScan))
	if err != nil {
		return nil, nil, err
	}
	// The walk starts from these entities: it takes what was read here.
	c.around = make(map[string][]entity.Fact, len(ids))
	for _, id := range ids {
		c.around[id] = factsOf[id]
	}
	lf := &linkedFacts{df: map[string]int{}}
	seen := map[string]bool{}
	var names []string
	for _, id := range ids {
		if it := c.entities[id]; it != nil {
			names = append(names, it.entity.Name)
			names = append(names, it.entity.Aliases...)
		}
		for _, f := range factsOf[id] {
			if seen[f.ID] {
				continue
			}
			seen[f.ID] = true
			f, ok := c.p.visible(f)
			if !ok {
				continue
			}
			ts := search.Analyze(search.FactText(&f))
			for _, t := range ts {
				lf.df[t]++
			}
			lf.facts = append(lf.facts, f)
			lf.terms = append(lf.terms, ts)
		}
	}
	c.linkedFacts = lf
	c.linkedNames = names
	for _, t := range search.Analyze(c.p.a.text) {
		if n := lf.df[t]; n > 0 && n < len(lf.facts) {
			keep = append(keep, t)
		}
	}
	return keep, ids, nil
}

// addLinkedFacts makes candidates of the facts readLinked read, reached
// at one hop from the named entity, with Local: the share of the
// question's distinguishing words, weighed by their rarity among the
// entity's facts, the fact holds.
func (c *candidates) addLinkedFacts(q *question) {
	lf := c.linkedFacts
	if lf == nil {
		return
	}
	n := float64(len(lf.facts))
	idf := func(t string) float64 { return math.Log(1 + n/float64(lf.df[t])) }
	var total float64
	for t := range q.terms {
		if lf.df[t] > 0 {
			total += idf(t)
		}
	}
	for i := range lf.facts {
		f := &lf.facts[i]
		it, ok := c.facts[f.ID]
		if !ok {
			it = &item{typ: search.TypeFact, id: f.ID, fact: f}
			c.facts[f.ID] = it
		}
		// It touches an entity the query names: one hop, as the walk
		// would weigh it had its fan-out cap not left it out.
		for _, id := range []string{f.SubjectID, f.ObjectID} {
			if k, ok := c.linked[id]; ok {
				it.ff.Reach.add(1, seedOf(k))
			}
		}
		if total > 0 {
			var s float64
			for _, t := range lf.terms[i] {
				if q.terms[t] {
					s += idf(t)
				}
			}
			if s > 0 {
				it.ff.Local = s / total
			}
		}
	}
}

// namedAfter reports whether the question names the entity right after
// the predicate's own words ("reports to Mia Berg", "owned by Team
// Falcon"): predicates read subject → object, so the entity is then the
// object of the facts asked for.
func (c *candidates) namedAfter(q *question, pred, id string) bool {
	it := c.entities[id]
	if it == nil {
		return false
	}
	words := entity.Normalize(strings.ReplaceAll(pred, "_", " "))
	for _, n := range append([]string{it.entity.Name}, it.entity.Aliases...) {
		if n := entity.Normalize(n); n != "" && strings.Contains(q.full, words+" "+n) {
			return true
		}
	}
	return false
}

// settle enforces two orderings on the fused scores:
//
//   - a version of a fact that is not valid at as_of never ranks above
//     the version that is, when both are candidates;
//   - when the question names an entity and a predicate, the entity's
//     fact valid at as_of that answers it ranks above the entity's card
//     ("who is Hiro's manager" answers with the reports_to fact first).
func (c *candidates) settle() {
	below := c.w.Limits.Below
	for _, it := range c.facts {
		if it.fact.ValidAt(c.p.asOf) {
			continue
		}
		cur := c.validVersion(it.fact)
		if cur != nil && it.score >= below*cur.score {
			it.setBelow("below_current", "current", below, cur)
		}
	}
	if !c.p.wants(search.TypeFact) {
		return // entities only: the card is the answer
	}
	var answer *item
	for _, it := range c.facts {
		if !it.ff.answers(c.w) {
			continue
		}
		if answer == nil || it.score > answer.score {
			answer = it
		}
	}
	if answer == nil {
		return
	}
	for id := range c.linked {
		if en := c.entities[id]; en != nil && en.score >= answer.score {
			en.setBelow("below_answer", "answer", below, answer)
		}
	}
}

// setBelow sets the item's score to share × the score of the item it
// must rank under: its explanation is then that product, of the share
// and the other's explanation (named as), and the one it had is kept as
// Was.
func (it *item) setBelow(name, as string, share float64, above *item) {
	var n nodes
	other := n.leaf(as, above.score)
	if above.explain != nil {
		c := *above.explain
		c.Name = as
		other = &c
	}
	x := n.product(name, n.leaf("limits.below", share), other)
	x.Was = it.explain
	it.score, it.explain = x.Value, x
}

// validVersion follows the supersession links of f through the candidates
// to the version valid at as_of; nil when it is not a candidate.
func (c *candidates) validVersion(f *entity.Fact) *item {
	seen := map[string]bool{f.ID: true}
	for next := f; ; {
		id := next.SupersededBy
		if next.ValidFrom.After(c.p.asOf) {
			id = next.Supersedes
		}
		it, ok := c.facts[id]
		if id == "" || !ok || seen[id] {
			return nil
		}
		if it.fact.ValidAt(c.p.asOf) {
			return it
		}
		seen[id] = true
		next = it.fact
	}
}
