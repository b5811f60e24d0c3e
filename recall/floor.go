package recall

import (
	"maps"
	"slices"
	"strings"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/search"
)

// The relevance floor: a block (or a fact in search) stays only if it
// bears on the question. A question is about concepts — the entities it
// names, and its content words (a run of CJK text counts as one word)
// without the names, the times it names and words that only say what kind
// of answer is wanted ("why", "change", "use"). A block covers an entity
// when one of its facts has it as subject or object (an episode or an
// entity card: when its text holds the name); a word when its text holds
// it, or when its predicate is what the question asks for (predicate
// linking). Then:
//
//   - a block that covers nothing, or less than FloorWeights.Share of what
//     the best block covers, is left out;
//   - when some block covers an entity the question names exactly or by
//     alias, blocks that cover none of those entities are left out.
//
// A question of nothing but generic words ("what should I know?") has no
// concepts, and one whose concepts no block covers has nothing to measure
// by: no floor then. Pinned constraints and preferences always stay.

// genericWords say what kind of answer a question wants, not what it is
// about (analysed like the index analyses text).
var genericWords = map[string]bool{}

// genericCJK are CJK words of the same kind, and question words.
var genericCJK = []string{"什么", "为什么", "为何", "哪里", "在哪", "哪个", "多少", "是多", "时候", "怎么", "如何", "原因",
	"之前", "以前", "之后", "以后", "现在", "当时", "我们", "你们", "他们", "用的", "是什", "么时"}

func init() {
	for _, t := range search.Analyze(`why reason reasons how come made make motivated motivation when time date year years month day
		long ago before after since until previous previously former formerly earlier originally history change changed
		switch switched move moved moving replace replaced migrate migrated longer anymore still use used using uses have has had
		get got do did does know tell happen happened current currently now right want need go went decide decided
		what which who whom whose where there here this that these those it its our we us you your i me my they them their`) {
		genericWords[t] = true
	}
}

// topic is what a question is about.
type topic struct {
	// entities the question names: id → names and aliases, normalised;
	// strong are those named exactly or by an alias.
	entities map[string][]string
	strong   map[string]bool
	terms    []string // content terms (analysed)
	cjk      []cjkRun
	lx       *lexicon
}

// cjkRun is a run of CJK text of a question and its non-generic bigrams.
type cjkRun struct {
	text  string
	grams []string
}

func (t *topic) concepts() int { return len(t.entities) + len(t.terms) + len(t.cjk) }

// topic reads what the question of c is about.
func (c *candidates) topic() *topic {
	t := &topic{entities: map[string][]string{}, strong: map[string]bool{}}
	if c.q != nil {
		t.lx = c.q.lx
	}
	text := c.p.a.text
	for _, r := range c.p.a.times {
		text = strings.ReplaceAll(text, r.text, " ")
	}
	norm := " " + entity.Normalize(text) + " "
	// In a fixed order: one name may hold another.
	for _, id := range slices.Sorted(maps.Keys(c.linked)) {
		kind := c.linked[id]
		it := c.entities[id]
		if it == nil {
			continue
		}
		names := []string{entity.Normalize(it.entity.Name)}
		for _, a := range it.entity.Aliases {
			names = append(names, entity.Normalize(a))
		}
		t.entities[id] = names
		if kind != entity.MatchFuzzy {
			t.strong[id] = true
		}
		for _, n := range names {
			if n != "" {
				norm = strings.ReplaceAll(norm, n, " ")
			}
		}
	}
	for _, f := range c.p.focus {
		norm = strings.ReplaceAll(norm, entity.Normalize(f), " ")
	}
	for _, term := range search.Analyze(norm) {
		if !isCJKTerm(term) && !genericWords[term] && !isNumber(term) {
			t.terms = append(t.terms, term)
		}
	}
	for _, run := range cjkRuns(norm) {
		var grams []string
		rs := []rune(run)
		for i := 0; i+2 <= len(rs); i++ {
			g := string(rs[i : i+2])
			if !isGenericCJK(g) {
				grams = append(grams, g)
			}
		}
		if len(grams) > 0 {
			t.cjk = append(t.cjk, cjkRun{run, grams})
		}
	}
	return t
}

func isNumber(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func isGenericCJK(g string) bool {
	for _, w := range genericCJK {
		if strings.Contains(w, g) || strings.Contains(g, w) {
			return true
		}
	}
	return false
}

// cjkRuns returns the runs of CJK characters of s.
func cjkRuns(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		switch {
		case isCJK(r) && start < 0:
			start = i
		case !isCJK(r) && start >= 0:
			out = append(out, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// coverage is what a block covers of the topic: the count of concepts, and
// whether it covers an entity named exactly or by alias.
type coverage struct {
	n      int
	entity bool // covers an entity the question names
	strong bool // … named exactly or by alias
}

// cover measures a piece of memory: the entities its facts touch, its
// text, and the predicates of its facts.
func (t *topic) cover(touches []string, text string, preds []string) coverage {
	var cv coverage
	norm := " " + entity.Normalize(text) + " "
	for id, names := range t.entities {
		hit := false
		for _, e := range touches {
			if e == id {
				hit = true
			}
		}
		for _, n := range names {
			if !hit && n != "" && strings.Contains(norm, " "+n+" ") {
				hit = true
			}
		}
		if hit {
			cv.n++
			cv.entity = true
			cv.strong = cv.strong || t.strong[id]
		}
	}
	terms := map[string]bool{}
	for _, term := range search.Analyze(text) {
		terms[term] = true
	}
	// A word the text does not hold is covered by a predicate whose name,
	// synonyms or property words hold it ("manager" → reports_to).
	for _, term := range t.terms {
		if terms[term] || t.named(preds, func(ph phrase) bool { return slices.Contains(ph.terms, term) }) {
			cv.n++
		}
	}
	for _, run := range t.cjk {
		found := t.named(preds, func(ph phrase) bool { return ph.cjk != "" && strings.Contains(run.text, ph.cjk) })
		for _, g := range run.grams {
			found = found || strings.Contains(norm, g)
		}
		if found {
			cv.n++
		}
	}
	return cv
}

// named reports whether a phrase naming one of preds (its name, synonyms
// or property words, not its description) satisfies ok.
func (t *topic) named(preds []string, ok func(phrase) bool) bool {
	for _, p := range preds {
		if own, has := newPhrase(strings.ReplaceAll(p, "_", " ")); has && ok(own) {
			return true
		}
		if t.lx == nil {
			continue
		}
		for _, ph := range t.lx.phrases[p] {
			if !ph.desc && ok(ph) {
				return true
			}
		}
	}
	return false
}

// piece is what the floor reads of a block or a search item: the
// entities its facts touch, its text and its facts' predicates.
type piece struct {
	touches []string
	text    string
	preds   []string
	always  bool // pinned: never left out, nor measured
	lead    bool // never left out, measured (keep.go)
}

func blockPiece(bl *block) piece {
	p := piece{always: bl.pinned, lead: bl.lead}
	var sb strings.Builder
	for _, f := range bl.facts {
		p.touches = append(p.touches, f.Fact.SubjectID)
		if f.Fact.ObjectID != "" {
			p.touches = append(p.touches, f.Fact.ObjectID)
		}
		p.preds = append(p.preds, f.Fact.Predicate)
		sb.WriteString(factWords(&f.Fact))
	}
	if bl.entity != nil {
		p.touches = append(p.touches, bl.entity.ID)
	}
	for _, l := range bl.lines {
		sb.WriteString(l.Text + " " + l.Reason + " ")
		if l.Kind == "episode" {
			sb.WriteString(l.Speaker + " ")
		}
	}
	p.text = sb.String()
	return p
}

func factPiece(f *entity.Fact) piece {
	p := piece{touches: []string{f.SubjectID}, preds: []string{f.Predicate},
		text: factSentence(f) + factWords(f) + attrText(f.Attributes["reason"])}
	if f.ObjectID != "" {
		p.touches = append(p.touches, f.ObjectID)
	}
	return p
}

// factWords are the words of a fact beyond its sentence: subject,
// predicate, object or value.
func factWords(f *entity.Fact) string {
	return " " + f.Subject + " " + strings.ReplaceAll(f.Predicate, "_", " ") + " " + f.ObjectText() + " "
}

// keepPieces applies the floor: which pieces bear on the question. A
// piece that covers no entity the question names but touches an entity
// of a piece that covers one (Mia works at Acme; Acme is in Lyon) counts
// as covering one, so the walk's neighbours of a single named entity stay.
// share is the share of the best piece's coverage a piece needs.
func (t *topic) keepPieces(ps []piece, share float64) []bool {
	keep := make([]bool, len(ps))
	if t.concepts() == 0 {
		for i := range keep {
			keep[i] = true
		}
		return keep
	}
	cov := make([]coverage, len(ps))
	near := map[string]bool{}
	for i, p := range ps {
		cov[i] = t.cover(p.touches, p.text, p.preds)
		if cov[i].strong {
			for _, id := range p.touches {
				near[id] = true
			}
		}
	}
	best, strong := 0, false
	for i, p := range ps {
		if !cov[i].entity {
			for _, id := range p.touches {
				if near[id] {
					cov[i].n++
					cov[i].strong = true
					break
				}
			}
		}
		if !p.always {
			best = max(best, cov[i].n)
			strong = strong || cov[i].strong
		}
	}
	for i, p := range ps {
		cv := cov[i]
		// When nothing covers any concept, the question's words are not in
		// memory's words at all: no floor rather than an empty block.
		keep[i] = p.always || p.lead || best == 0 ||
			cv.n > 0 && float64(cv.n) >= share*float64(best) && (cv.strong || !strong)
	}
	return keep
}

// floor keeps the blocks of a context that bear on the question. With
// spares, the quotes of episodes it would leave out stay, as spares:
// search returns them, and they go into the room the blocks that bear on
// the question leave, where they are more likely to hold what the
// question needs than nothing at all. A fact or an entity card it leaves
// out is gone.
func floor(t *topic, blocks []*block, share float64, spares bool) []*block {
	ps := make([]piece, len(blocks))
	for i, bl := range blocks {
		ps[i] = blockPiece(bl)
	}
	keep := t.keepPieces(ps, share)
	out := blocks[:0:0]
	for i, bl := range blocks {
		if !keep[i] && spares && bl.quote() {
			bl.spare = true
		}
		if keep[i] || bl.spare {
			out = append(out, bl)
		}
	}
	return out
}

// quote reports whether a block only quotes an episode.
func (bl *block) quote() bool { return len(bl.facts) == 0 && bl.entity == nil && len(bl.episodes) > 0 }

// floorFacts drops the fact items of a search that do not bear on the
// question; entity and episode items are matches by construction. Only
// the first window facts are measured; later ones are dropped.
func (c *candidates) floorFacts(items []*item, window int) []*item {
	t := c.topic()
	var ps []piece
	var at []int
	for i, it := range items {
		if it.typ == search.TypeFact && len(ps) < window {
			ps = append(ps, factPiece(it.fact))
			at = append(at, i)
		}
	}
	keep := t.keepPieces(ps, c.w.Floor.Share)
	out := items[:0:0]
	j := 0
	for _, it := range items {
		if it.typ == search.TypeFact {
			if j >= len(keep) {
				if t.concepts() > 0 {
					continue // beyond the window
				}
			} else if j++; !keep[j-1] {
				continue
			}
		}
		out = append(out, it)
	}
	return out
}
