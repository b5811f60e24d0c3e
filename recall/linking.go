package recall

import (
	"context"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/search"
)

// "Not known" is an answer. Linking (retrieve.go) finds the entities the
// question's n-grams name; this file decides, for each name the question
// mentions, whether it resolved to one entity, to several (ambiguous) or
// to none (unknown), and keeps an unknown name from being answered with
// another entity's facts.
//
// A name is mentioned when the question holds something shaped like one,
// whether or not memory knows it (and so is every name of the request's
// focus list):
//
//   - a run of capitalised words ("Bob Marley", "Team Albatross"), not a
//     lone word opening the sentence, not a time ("March"), not acronyms
//     alone ("SLA", "CPU": words of a property more often than names);
//   - an identifier with a hyphen or underscore ("zebra-gateway");
//   - a quoted phrase ("\"Night Owls\"");
//   - a qualifier before the head of a known entity's name: "staging
//     database" when memory knows "production database" (same number of
//     words, same last word, no question or property word);
//   - in a question written in lower case, which has no shapes, two words
//     that may name someone or something (lowerNames): next to a word of
//     a known name, before or after the question's verb ("bob marley" in
//     "where does bob marley work" and "who employs bob marley" when
//     memory knows "Bob", "zebra gateway" when it knows gateway-service);
//     both words of known names ("payments api" when it knows payments-db
//     and cart-api); or a kind word — one that begins or ends the names of
//     several things, "team" of Team Kite, "db" of orders-db — with a word
//     on the side the kind's names have their own ("team albatross",
//     "audit db"). Words of a name of several words that linked are no
//     part of another.
//
// A name shaped like one word that is a stored name with a few letters
// more or less ("Postgres", "PostgreSQL") is that name (isVariantOf); a
// name written joined or apart is the stored name of the same letters
// ("Bookingservice" and "booking service" for booking-service, link in
// retrieve.go).
//
// Such a name is unknown when no entity resolves it (exactly, by alias, or
// fuzzily for a typing error, entity.Lookup) and no record of the scope —
// entity, fact or episode — holds it as words in a row: memory holds
// nothing about it. Token overlap is not identity: "zebra-gateway" shares
// a word with "gateway-service" and denotes something else.
//
// For an unknown name:
//
//   - an entity linked only through a word inside it ("Bob", an alias of
//     Bob Lindqvist, in "Bob Marley") is unlinked;
//   - when no entity of the question resolved, no fact and no entity card
//     is returned (episodes still are: they are what was said, quoted, and
//     none holds the name); when some did, the facts touching none of them
//     whose predicate the question asks for are dropped;
//   - the context block says in one line that memory holds nothing about
//     it, with the closest known names as "did you mean" (never as facts),
//     and Search and Context list it as unresolved.

// NameLink is a name a question mentions that did not resolve to exactly
// one entity. For an unresolved name, Candidates are the closest known
// names (did you mean), none of which was used; for an ambiguous one, the
// entities it may denote, all of which were used.
type NameLink struct {
	Name       string   `json:"name"`
	Candidates []string `json:"candidates"`
}

// mention is a name-shaped span of a question.
type mention struct {
	text string // as written
	key  string // entity.Normalize(text)
}

var (
	slugRE   = regexp.MustCompile(`[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)+`)
	quotedRE = regexp.MustCompile("\"([^\"\\n]{2,80})\"|“([^”\\n]{2,80})”|`([^`\\n]{2,80})`|(?:^|\\s)'([^'\\n]{2,80})'(?:[\\s?.!,;:]|$)")
)

// abbreviationRE finds the titles whose dot ends no sentence ("Dr. Seuss").
var abbreviationRE = regexp.MustCompile(`\b(Dr|Mr|Mrs|Ms|Mx|Prof|St|Jr|Sr|Mt)\.`)

// compoundHeads end hyphenated words of everyday English, not identifiers
// ("transgender-specific", "family-friendly").
var compoundHeads = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`specific based related friendly free like style oriented aware wide long term
		time made owned sized scale class known old year years day week month minded up off in out on over themed
		inspired focused driven centered led level lasting loving`) {
		compoundHeads[w] = true
	}
}

// Bounds of a mention.
const (
	mentionWords = 5   // a longer capitalised run is a title or shouting
	suggestions  = 3   // closest names offered for an unknown one
	holdingScan  = 200 // records read to find a name's words in a row
)

// mentions returns the name-shaped spans of q (see above), in order,
// without the time phrases times: quoted phrases, identifiers, then the
// runs of capitalised words of each sentence.
func mentions(q string, times []timeRef) []mention {
	l := newMentionList(times)
	for _, m := range quotedRE.FindAllStringSubmatch(q, -1) {
		for _, g := range m[1:] {
			if g != "" {
				l.add(g)
			}
		}
	}
	for _, s := range slugRE.FindAllString(q, -1) {
		if strings.IndexFunc(s, unicode.IsLetter) >= 0 && !compoundWord(s) {
			l.add(s)
		}
	}
	for _, sentence := range entity.Sentences(abbreviationRE.ReplaceAllString(q, "$1")) {
		l.capitalisedRuns(sentence)
	}
	return l.out
}

// mentionList gathers the mentions of a question, each name once.
type mentionList struct {
	timeText string // the normalised time phrases, each between spaces
	seen     map[string]bool
	out      []mention
}

func newMentionList(times []timeRef) *mentionList {
	l := &mentionList{timeText: " ", seen: map[string]bool{}}
	for _, t := range times {
		l.timeText += entity.Normalize(t.text) + " "
	}
	return l
}

// isTime reports whether the normalised words key are a time phrase of
// the question, or stand inside one.
func (l *mentionList) isTime(key string) bool { return strings.Contains(l.timeText, " "+key+" ") }

// add records text as a mention, without a possessive or a leading
// question word (an article: "The Four Seasons" is "Four Seasons"),
// unless it is seen already, too long, a time, or only question words.
func (l *mentionList) add(text string) {
	text = strings.TrimSpace(possessiveRE.ReplaceAllString(text, "$1"))
	for {
		first, rest, ok := strings.Cut(text, " ")
		if !ok || !questionWords[strings.ToLower(first)] {
			break
		}
		text = strings.TrimSpace(rest)
	}
	k := entity.Normalize(text)
	if k == "" || l.seen[k] || len(strings.Fields(k)) > mentionWords || l.isTime(k) {
		return
	}
	if slices.ContainsFunc(strings.Fields(k), func(w string) bool { return !questionWords[w] }) {
		l.seen[k] = true
		l.out = append(l.out, mention{text: text, key: k})
	}
}

// capitalisedRuns adds the runs of capitalised words of a sentence: a
// mark before or after a word ends a run, and so does a word that is not
// capitalised, a question word or a time; a lone capitalised word opening
// the sentence is no name.
func (l *mentionList) capitalisedRuns(sentence string) {
	var run capitalRun
	words := latinWords(sentence)
	for i, raw := range words {
		if markBefore(raw, "(\"“'`") {
			run.flush(l)
		}
		w := strings.TrimFunc(raw, func(r rune) bool { return !isWordRune(r) })
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		switch {
		case l.endsRun(w):
			run.flush(l)
		case i == 0 && (len(words) == 1 || !capitalised(words[1])):
		default:
			run.push(w)
		}
		if markAfter(raw, ",;:)\"”'`") {
			run.flush(l)
		}
	}
	run.flush(l)
}

// endsRun reports whether the word w is no part of a capitalised name:
// empty, not capitalised, a question word or a time.
func (l *mentionList) endsRun(w string) bool {
	rs := []rune(w)
	return len(rs) == 0 || !unicode.IsUpper(rs[0]) || questionWords[strings.ToLower(w)] || l.isTime(entity.Normalize(w))
}

// capitalRun is a run of capitalised words being read, and how many of
// them are acronyms.
type capitalRun struct {
	words    []string
	acronyms int
}

func (r *capitalRun) push(w string) {
	r.words = append(r.words, w)
	if strings.ToUpper(w) == w {
		r.acronyms++
	}
}

// flush ends the run: it is a mention unless it is only acronyms or
// longer than a name.
func (r *capitalRun) flush(l *mentionList) {
	if len(r.words) > r.acronyms && len(r.words) <= mentionWords {
		l.add(strings.Join(r.words, " "))
	}
	r.words, r.acronyms = r.words[:0], 0
}

// latinWords are the words of a sentence with its CJK runs taken out: a
// CJK run is no part of a Latin name ("Team Kite的负责人是谁").
func latinWords(sentence string) []string {
	return strings.Fields(strings.Map(func(r rune) rune {
		if isCJK(r) {
			return ' '
		}
		return r
	}, sentence))
}

// markBefore reports whether one of marks stands before the first letter
// or digit of raw.
func markBefore(raw, marks string) bool {
	j := strings.IndexFunc(raw, isWordRune)
	return j > 0 && strings.ContainsAny(raw[:j], marks)
}

// markAfter reports whether one of marks stands after the last letter or
// digit of raw.
func markAfter(raw, marks string) bool {
	j := strings.LastIndexFunc(raw, isWordRune)
	return j >= 0 && strings.ContainsAny(raw[j:], marks)
}

// compoundWord reports whether a hyphenated word is one of everyday
// English: it ends with a compoundHeads word ("family-friendly"), or
// begins with a prefix of one or two letters and holds no digit ("e-mail",
// "re-run"; "eu-west-1" is an identifier).
func compoundWord(s string) bool {
	s = strings.ToLower(s)
	first, _, _ := strings.Cut(s, "-")
	last := s[strings.LastIndexAny(s, "-_")+1:]
	return compoundHeads[last] || len(first) <= 2 && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz-") == ""
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func capitalised(raw string) bool {
	for _, r := range raw {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.IsUpper(r)
		}
	}
	return false
}

// within reports whether the normalised name inner stands inside outer as
// whole words, and is shorter.
func within(inner, outer string) bool {
	return inner != outer && strings.Contains(" "+outer+" ", " "+inner+" ")
}

// resolveNames classifies the question's mentions after linking: those a
// gram linked are resolved; the others are unknown unless some record
// holds them. Entities linked only through words inside an unknown name
// are unlinked.
func (c *candidates) resolveNames(ctx context.Context, tx graph.Tx, e *Engine) error {
	if e.NoUnknownNames {
		return nil
	}
	idx := e.Index
	names := slices.Clone(c.p.a.names)
	for _, f := range c.p.focus { // names the request says the answer is about
		names = append(names, mention{text: f, key: entity.Normalize(f)})
	}
	for _, m := range names {
		if err := c.judge(ctx, tx, idx, m, ""); err != nil {
			return err
		}
	}
	return nil
}

// findAmbiguous lists the names of the question that linked several
// entities, once every name is judged.
func (c *candidates) findAmbiguous(e *Engine) {
	if e.NoUnknownNames {
		return
	}
	grams := slices.Sorted(maps.Keys(c.gramLinks))
	for _, g := range grams {
		ids := c.gramLinks[g]
		if len(ids) < 2 || slices.ContainsFunc(grams, func(o string) bool { return within(g, o) }) {
			continue
		}
		nl := NameLink{Name: g}
		for _, m := range c.p.a.names {
			if m.key == g {
				nl.Name = m.text
			}
		}
		for _, id := range ids {
			if it := c.entities[id]; it != nil {
				nl.Candidates = append(nl.Candidates, it.entity.Name)
			}
		}
		c.ambiguous = append(c.ambiguous, nl)
	}
}

// judge decides whether mention m is unknown, and if so records it and
// unlinks what only words inside it linked. like is a known name it was
// found next to ("production database" for "staging database").
func (c *candidates) judge(ctx context.Context, tx graph.Tx, idx *search.Index, m mention, like string) error {
	if len(c.gramLinks[m.key]) > 0 || slices.ContainsFunc(c.unknown, func(u unknownName) bool { return u.key == m.key }) {
		return nil
	}
	for g := range c.gramLinks {
		if within(m.key, g) {
			return nil // part of a name that resolved ("Falcon" of "Falcon squad")
		}
	}
	held, err := c.holds(ctx, tx, idx, m.key)
	if err != nil || held {
		return err
	}
	u := unknownName{mention: m}
	if like != "" {
		u.near = append(u.near, like)
	}
	// Links made only by words inside the name go.
	outside := map[string]bool{}
	for g, ids := range c.gramLinks {
		if !within(g, m.key) {
			for _, id := range ids {
				outside[id] = true
			}
		}
	}
	for g, ids := range c.gramLinks {
		if !within(g, m.key) {
			continue
		}
		for _, id := range ids {
			if it := c.entities[id]; it != nil && !outside[id] {
				u.near = append(u.near, it.entity.Name)
				delete(c.linked, id)
				delete(c.entities, id)
			}
		}
		delete(c.gramLinks, g)
	}
	c.unknown = append(c.unknown, u)
	return nil
}

// unknownName is a mention that resolved to nothing; near are known names
// found close to it.
type unknownName struct {
	mention
	near []string
}

// holds reports whether some record of the scope holds the normalised
// name key as words in a row. A name of no indexed word (only stop words)
// is taken as held: nothing can tell.
func (c *candidates) holds(ctx context.Context, tx graph.Tx, idx *search.Index, key string) (bool, error) {
	if len(search.Analyze(key)) == 0 {
		return true, nil
	}
	hits, err := idx.Holding(ctx, c.p.scope, key, holdingScan)
	if err != nil || len(hits) == 0 {
		return false, err
	}
	if len(search.Analyze(key)) == 1 && !strings.Contains(key, " ") {
		return true, nil
	}
	var factIDs, entityIDs, episodeIDs []string
	for _, h := range hits {
		switch h.Type {
		case search.TypeFact:
			factIDs = append(factIDs, h.ID)
		case search.TypeEntity:
			entityIDs = append(entityIDs, h.ID)
		case search.TypeEpisode:
			episodeIDs = append(episodeIDs, h.ID)
		}
	}
	facts, ents, err := graph.FactsAndEntitiesByID(tx, factIDs, entityIDs, true) // only their text is read
	if err != nil {
		return false, err
	}
	eps, err := graph.EpisodesByID(tx, episodeIDs)
	if err != nil {
		return false, err
	}
	// In a row as written, or as the index reads the words (stemmed: a
	// plural is no other name, "carts-api" / "cart-api").
	terms := search.Analyze(key)
	has := func(text string) bool {
		return strings.Contains(" "+entity.Normalize(text)+" ", " "+key+" ") || inRow(search.Analyze(text), terms)
	}
	for _, f := range facts {
		if has(search.FactText(&f)) {
			return true, nil
		}
	}
	for _, en := range ents {
		if en.ForgottenAt == nil && has(strings.Join(append([]string{en.Name, en.Summary}, en.Aliases...), "\n")) {
			return true, nil
		}
	}
	for _, ep := range eps {
		if has(ep.Said()) {
			return true, nil
		}
	}
	// Beyond the records read, some other may hold it: no claim then.
	return len(hits) >= holdingScan, nil
}

// inRow reports whether terms stand one after another in ts.
func inRow(ts, terms []string) bool {
	for i := 0; i+len(terms) <= len(ts); i++ {
		if slices.Equal(ts[i:i+len(terms)], terms) {
			return true
		}
	}
	return false
}

// qualified finds qualifier variants of known names among the question's
// n-grams once the search has found entities: "staging database" when
// "production database" is known (the same number of words, the same last
// word, written in lower case: a common noun), none of whose words is a
// question word or a word of a property.
func (c *candidates) qualified(ctx context.Context, tx graph.Tx, e *Engine) error {
	if e.NoUnknownNames {
		return nil
	}
	idx := e.Index
	var known []string
	for _, it := range c.entities {
		// The head is a common noun ("database"), not a name ("Team
		// Egret": "reach Egret" qualifies nothing).
		// Its words are written apart: an identifier ("orders-db") has
		// variants of its own shape, found as such.
		fs := strings.Fields(it.entity.Name)
		if n := entity.Normalize(it.entity.Name); len(fs) > 1 && len(strings.Fields(n)) == len(fs) && !capitalised(fs[len(fs)-1]) {
			known = append(known, n)
		}
	}
	sort.Strings(known)
	for _, m := range c.lowerNames(lexiconOf(e.ontology())) {
		if err := c.judge(ctx, tx, idx, m, ""); err != nil {
			return err
		}
	}
	for _, name := range known {
		words := strings.Fields(name)
		for _, g := range c.p.a.grams {
			gw := strings.Fields(g)
			if len(gw) != len(words) || g == name || gw[len(gw)-1] != words[len(words)-1] || !c.qualifier(gw[:len(gw)-1]) {
				continue
			}
			if err := c.judge(ctx, tx, idx, mention{text: g, key: g}, c.nameOf(name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// qualifier reports whether words may qualify a name: none is a question
// word, a number or a word naming a property.
func (c *candidates) qualifier(words []string) bool {
	for _, w := range words {
		if questionWords[w] || isNumber(w) {
			return false
		}
		for _, t := range search.Analyze(w) {
			if genericWords[t] || (c.q != nil && c.q.lx.spread[t] > 0) {
				return false
			}
		}
	}
	return true
}

// nameOf returns the name as stored of the candidate entity whose
// normalised name is n.
func (c *candidates) nameOf(n string) string {
	for _, it := range c.entities {
		if entity.Normalize(it.entity.Name) == n {
			return it.entity.Name
		}
	}
	return n
}

// withoutOthers keeps an unknown name from being answered with another
// entity's facts (see above). It runs after scoring.
func (c *candidates) withoutOthers() {
	if len(c.unknown) == 0 {
		return
	}
	c.suggest()
	resolved := len(c.linked) > 0
	for id, it := range c.facts {
		f := it.fact
		if _, ok := c.linked[f.SubjectID]; ok {
			continue
		}
		if _, ok := c.linked[f.ObjectID]; ok && f.ObjectID != "" {
			continue
		}
		if !resolved || c.q.match(f.Predicate) >= c.w.Predicate.Answer {
			delete(c.facts, id)
		}
	}
	if !resolved {
		clear(c.entities)
	}
	c.order = nil
}

// suggest fills the unresolved names with the closest known names: those
// linked through words inside them or that they qualify, and the entities
// the search found that share a word with them or differ by little.
func (c *candidates) suggest() {
	for _, u := range c.unknown {
		type cand struct {
			name string
			sim  float64
		}
		seen := map[string]bool{}
		var cs []cand
		consider := func(name string, always bool) {
			n := entity.Normalize(name)
			if seen[n] {
				return
			}
			sim := entity.Similarity(u.key, n)
			if !always && sim < c.w.Limits.NearSimilarity && !sharesWord(u.key, n) {
				return
			}
			seen[n] = true
			cs = append(cs, cand{name, sim})
		}
		for _, n := range u.near {
			consider(n, true)
		}
		for _, it := range c.entities {
			if it.hit.Score > 0 {
				consider(it.entity.Name, false)
			}
		}
		sort.SliceStable(cs, func(i, j int) bool {
			if cs[i].sim != cs[j].sim {
				return cs[i].sim > cs[j].sim
			}
			return cs[i].name < cs[j].name
		})
		nl := NameLink{Name: u.text, Candidates: []string{}}
		for _, x := range cs[:min(len(cs), suggestions)] {
			nl.Candidates = append(nl.Candidates, x.name)
		}
		c.unresolved = append(c.unresolved, nl)
	}
}

func sharesWord(a, b string) bool {
	bw := strings.Fields(b)
	for _, w := range strings.Fields(a) {
		if !questionWords[w] && slices.Contains(bw, w) {
			return true
		}
	}
	return false
}

// unknownLine is the line of the block saying memory holds nothing about
// an unresolved name.
func unknownLine(n NameLink) line {
	l := line{Kind: "unknown", Text: flatten(clip(n.Name, 80))}
	for _, c := range n.Candidates {
		l.Candidates = append(l.Candidates, flatten(c))
	}
	return l
}

// unknownBlocks are the lines saying memory holds nothing about the
// unresolved names: pinned, so that packing puts them first and the floor
// keeps them.
func unknownBlocks(ns []NameLink) []*block {
	out := make([]*block, 0, len(ns))
	for _, n := range ns {
		out = append(out, &block{pinned: true, lines: []line{unknownLine(n)}})
	}
	return out
}

func nonNil(ns []NameLink) []NameLink {
	if ns == nil {
		return []NameLink{}
	}
	return ns
}

// A name the question writes as a longer or shorter form of a stored one-
// word name of a thing is that thing: "Postgres" for "PostgreSQL",
// "MongoDB" for "Mongo" — one of them the other with 1 to variantRunes
// more letters, the shorter at least variantMinRunes long. Only for
// name-shaped mentions (a lower-case "works" is no form of "Workshop"),
// never for people ("Chris" is not "Christa") or names with digits
// (versions tell things apart). Words are not forms of one another:
// "zebra-gateway" is no variant of "gateway-service".
const (
	variantMinRunes = 5
	variantRunes    = 3
	variantScan     = 20 // stored names read that begin with a mention
)

// variantShaped reports whether the normalised name key may have variants:
// one word of letters, long enough.
func variantShaped(key string) bool {
	n := 0
	for _, r := range key {
		if !unicode.IsLetter(r) || isCJK(r) {
			return false
		}
		n++
	}
	return n >= variantMinRunes
}

// shorterForms are key without its last 1 to variantRunes runes, each
// still long enough to be a variant.
func shorterForms(key string) []string {
	rs := []rune(key)
	var out []string
	for n := 1; n <= variantRunes && len(rs)-n >= variantMinRunes; n++ {
		out = append(out, string(rs[:len(rs)-n]))
	}
	return out
}

// isVariantOf reports whether the normalised name key is a variant of a
// name or alias of en (see above).
func isVariantOf(key string, en entity.Entity) bool {
	if en.Type == "person" {
		return false
	}
	for _, k := range en.Keys() {
		short, long := key, k
		if len(short) > len(long) {
			short, long = long, short
		}
		if d := utf8.RuneCountInString(long) - utf8.RuneCountInString(short); d >= 1 && d <= variantRunes &&
			variantShaped(short) && variantShaped(long) && strings.HasPrefix(long, short) {
			return true
		}
	}
	return false
}

// lowerNames finds names a question writes in lower case, which have no
// shape to tell them, once the search has found entities: two words in a
// row, between words that may name nothing, each of which may name
// someone or something — neither a question word, a word of a property,
// a number, an adverb, a preposition or a verb that follows a subject
// ("does bob still work", "does sam think") — and
//
//   - both words of names memory holds: "hiro chen" in "which team is
//     hiro chen on" when Hiro Sato and Mia Chen are known, "payments api"
//     when payments-db and cart-api are;
//   - or one, and the question's verb (a word of a property, or a generic
//     one: "work", "live", "use") comes right after them or right before
//     them at the end of the question, or they are written with a
//     possessive: "bob marley" in "where does bob marley work", "who
//     employs bob marley" and "bob marley's manager" when Bob Lindqvist's
//     alias is "Bob" ("is bob happy" names no one), "zebra gateway" in
//     "which database does zebra gateway use" when gateway-service is
//     known;
//   - or a word of a kind of thing and another word on the side where the
//     kind's names have their own word: a kind word is one that begins
//     ("team" of Team Kite and Team Egret) or ends ("api" of cart-api and
//     search-api, "db" of orders-db and audit-db) the names of at least
//     two things found, even when it also names a property; so "team
//     albatross", "zebra gateway" and "audit db" when memory holds such
//     names and not these.
//
// judge then decides whether memory holds the two words in a row. Only in
// a question that capitalises nothing but its first word: one that
// capitalises names shows them by their shape.
func (c *candidates) lowerNames(lx *lexicon) []mention {
	ws, ok := lowerWords(c.p.a.text)
	if !ok {
		return nil
	}
	q := &lowerQuestion{ws: ws, lx: lx, names: c.nameWords(), covered: c.coveredWords(ws)}
	var out []mention
	for i := 0; i+1 < len(ws); i++ {
		a, b := ws[i], ws[i+1]
		if a.possessive || a.punctuation || q.covered[i] || q.covered[i+1] {
			continue
		}
		key := a.key + " " + b.key
		if len(c.gramLinks[key]) == 0 && (q.kindPair(i) || q.namedPair(i)) {
			out = append(out, mention{text: key, key: key})
		}
	}
	return out
}

// lowerWord is a word of a question as lowerNames reads it.
type lowerWord struct {
	key         string
	lower       bool // written without capitals
	possessive  bool // "marley's"
	punctuation bool // a mark after it ends the phrase
}

// lowerWords reads the words of a question; an identifier or a mark is a
// word of punctuation, no part of a name. ok is false when a word after
// the first is capitalised: the question shows its names by their shape.
func lowerWords(text string) (ws []lowerWord, ok bool) {
	for i, raw := range strings.Fields(text) {
		w := strings.TrimFunc(raw, func(r rune) bool { return !isWordRune(r) && r != '\'' && r != '’' })
		poss := strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s")
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		key := entity.Normalize(w)
		if i > 0 && capitalised(w) {
			return nil, false
		}
		if key == "" || strings.Contains(key, " ") {
			ws = append(ws, lowerWord{punctuation: true})
			continue
		}
		ws = append(ws, lowerWord{key: key, lower: strings.ToLower(w) == w, possessive: poss,
			punctuation: markAfter(raw, ",;:.!?)\"”")})
	}
	return ws, true
}

// nameWords are the words of the names (and aliases) of the entities
// linked and found, and how many names of things each word begins
// (first) or ends (last): a kind word does so for several.
type nameWords struct {
	words       map[string]bool
	first, last map[string]int
}

func (c *candidates) nameWords() nameWords {
	nw := nameWords{words: map[string]bool{}, first: map[string]int{}, last: map[string]int{}}
	for _, it := range c.entities {
		for _, n := range append([]string{it.entity.Name}, it.entity.Aliases...) {
			fs := strings.Fields(entity.Normalize(n))
			for _, w := range fs {
				nw.words[w] = true
			}
			if len(fs) > 1 && it.entity.Type != entity.PersonType {
				nw.first[fs[0]]++
				nw.last[fs[len(fs)-1]]++
			}
		}
	}
	return nw
}

// coveredWords marks the words of a name of two or three words that
// linked: they are no part of another ("billing db backed up").
func (c *candidates) coveredWords(ws []lowerWord) []bool {
	covered := make([]bool, len(ws))
	for i := range ws {
		for n := 2; n <= 3 && i+n <= len(ws); n++ {
			var g []string
			for _, w := range ws[i : i+n] {
				g = append(g, w.key)
			}
			if len(c.gramLinks[strings.Join(g, " ")]) > 0 {
				for j := i; j < i+n; j++ {
					covered[j] = true
				}
			}
		}
	}
	return covered
}

// lowerQuestion is a question in lower case as lowerNames weighs its
// pairs of words: its words, the words of the names found, the lexicon
// telling the words of properties, and the words of names that linked.
type lowerQuestion struct {
	ws      []lowerWord
	lx      *lexicon
	names   nameWords
	covered []bool
}

// in reports whether i is the position of a word.
func (q *lowerQuestion) in(i int) bool { return i >= 0 && i < len(q.ws) }

// verb reports whether w may be the question's verb: a word of a
// property, a generic word, or do.
func (q *lowerQuestion) verb(w string) bool {
	for _, t := range search.Analyze(w) {
		if genericWords[t] || q.lx.spread[t] > 0 {
			return true
		}
	}
	return w == "do" || w == "does" || w == "did"
}

// plain reports whether the i-th word may be part of a name: written in
// lower case, and no question word, number, adverb in -ly or one of
// notNames.
func (q *lowerQuestion) plain(i int) bool {
	w := q.ws[i]
	return w.lower && w.key != "" && !questionWords[w.key] && !isNumber(w.key) && !strings.HasSuffix(w.key, "ly") &&
		!notNames[w.key]
}

// nameable reports whether the i-th word is a plain word and no verb.
func (q *lowerQuestion) nameable(i int) bool { return q.in(i) && q.plain(i) && !q.verb(q.ws[i].key) }

// kind reports whether the i-th word is a plain word that begins (edge:
// first) or ends (last) the names of several things.
func (q *lowerQuestion) kind(i int, edge map[string]int) bool {
	return q.in(i) && q.plain(i) && edge[q.ws[i].key] >= kindNames
}

// apart reports whether the i-th word, next to a name, is no part of it:
// no word at all, not a word of a known name, or a kind word, which
// begins or ends a name of its own.
func (q *lowerQuestion) apart(i int) bool {
	return !q.in(i) || !q.names.words[q.ws[i].key] || q.kind(i, q.names.first) || q.kind(i, q.names.last)
}

// modifier reports whether the i-th word, before a kind word that ends
// names, may name a property ("reports db") rather than say what the
// question wants ("what db").
func (q *lowerQuestion) modifier(i int) bool {
	if !q.plain(i) {
		return false
	}
	for _, t := range search.Analyze(q.ws[i].key) {
		if genericWords[t] {
			return false
		}
	}
	return true
}

// kindPair reports whether the words i and i+1 are a kind word with a
// word of its own, on the side the kind's names have theirs ("team
// albatross", "zebra gateway", "reports db"), between words apart.
func (q *lowerQuestion) kindPair(i int) bool {
	first, last := q.names.first, q.names.last
	return q.apart(i-1) && q.apart(i+2) && (q.kind(i, first) && (q.nameable(i+1) || q.kind(i+1, last)) ||
		q.kind(i+1, last) && (q.modifier(i) || q.kind(i, first)))
}

// namedPair reports whether the words i and i+1, both nameable, are a
// name: both words of known names, or one and the question's verb next to
// them (or a possessive), between words that may name nothing.
func (q *lowerQuestion) namedPair(i int) bool {
	if !q.nameable(i) || !q.nameable(i+1) {
		return false
	}
	known := 0
	for _, w := range q.ws[i : i+2] {
		if q.names.words[w.key] {
			known++
		}
	}
	if !q.alone(i-1, known) || !q.alone(i+2, known) {
		return false
	}
	return known == 2 || known == 1 && q.inContext(i)
}

// alone reports whether the j-th word, next to a pair with known words of
// known names, leaves the pair a name of its own: it may name nothing,
// or, for two known words, it is no word of a name ("what position does
// farah rossi hold").
func (q *lowerQuestion) alone(j, known int) bool {
	return !q.nameable(j) || known == 2 && q.in(j) && !q.names.words[q.ws[j].key]
}

// inContext reports whether the pair at i is written as a name one of
// whose words memory knows would be: with a possessive, before the
// question's verb, or at the end of the question right after it.
func (q *lowerQuestion) inContext(i int) bool {
	b := q.ws[i+1]
	end := b.punctuation || i+2 >= len(q.ws)
	return b.possessive || !b.punctuation && i+2 < len(q.ws) && q.verb(q.ws[i+2].key) ||
		end && i > 0 && q.plain(i-1) && q.verb(q.ws[i-1].key)
}

// kindNames is how many names of things a word must begin or end to be a
// word of a kind of thing (lowerNames).
const kindNames = 2

// notNames are words that follow a subject and begin no surname: adverbs
// without -ly and verbs of thought and wish ("does bob ever", "does sam
// think"); prepositions; and adjectives that qualify a kind without
// naming a thing of it ("deploy a new service").
var notNames = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`ever never also already always just even once first last again too
		behind across within without between among near inside outside onto upon via per toward towards
		new old main another next different whole entire default primary secondary internal external public private
		shared big small large every certain various several single separate typical usual
		think thinks thought feel feels felt want wants wanted wish hope hopes plan plans planned prefer prefers
		enjoy enjoys enjoyed love loves loved hate hates mean means meant need needs needed`) {
		notNames[w] = true
	}
}

// properName reports whether an entity the n-gram g linked stores g (as
// its name or an alias) with capitals: a proper name, which a question
// written in lower case may continue.
func (c *candidates) properName(g string) bool {
	for _, id := range c.gramLinks[g] {
		it := c.entities[id]
		if it == nil {
			continue
		}
		for _, n := range append([]string{it.entity.Name}, it.entity.Aliases...) {
			if entity.Normalize(n) == g && strings.ToLower(n) != n {
				return true
			}
		}
	}
	return false
}
