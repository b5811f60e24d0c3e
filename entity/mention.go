package entity

import (
	"strings"
	"unicode"
)

// Mentions returns the keys (Normalize) of what a text mentions, found
// without a model: capitalised names ("Grand Canyon", "Sweden"), and words
// and identifiers that may name a thing ("pottery", "payments-db") as
// candidate entities. A known entity is mentioned when its name or one of
// its aliases has one of these keys (Entity.Keys); so is an entity created
// later under that name, which is how facts extracted afterwards attach to
// the entities an episode mentions. Keys are distinct, in text order.
func Mentions(text string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(words []string) {
		if len(words) == 0 {
			return
		}
		k := Normalize(strings.Join(words, " "))
		if k != "" && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, sentence := range Sentences(text) {
		words := strings.Fields(sentence)
		var name []string // the capitalised run being read
		flush := func() {
			if len(name) <= maxNameWords {
				add(name)
			}
			name = name[:0]
		}
		for i, raw := range words {
			w := strings.TrimFunc(raw, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
			w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
			lower := strings.ToLower(w)
			r := []rune(w)
			switch {
			case len(r) == 0:
				flush()
			case unicode.IsUpper(r[0]) && !(i == 0 && commonWords[lower]) && lower != "i":
				// A capitalised word opening a sentence is a name only
				// if it is no common word ("The", "Thanks", "Wow");
				// within a sentence it is ("Big Blue", "New York").
				name = append(name, w)
			default:
				flush()
				if !commonWords[lower] && candidateWord(r) {
					add([]string{singular(lower)})
				}
			}
			if strings.ContainsAny(raw, ",;:()\"") && i < len(words)-1 {
				flush() // punctuation ends a name
			}
		}
		flush()
	}
	return out
}

// maxNameWords bounds a capitalised run taken as one name; a longer one is
// a title or shouting, not a name.
const maxNameWords = 4

// Sentences splits text where a sentence ends (., !, ?, a line break, and
// their CJK forms).
func Sentences(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool {
		switch r {
		case '.', '!', '?', '\n', '。', '！', '？':
			return true
		}
		return false
	})
}

// candidateWord: a lower-case word long enough to name a thing, or an
// identifier with a digit or a hyphen.
func candidateWord(r []rune) bool {
	if len(r) >= 4 {
		return true
	}
	for _, c := range r {
		if unicode.IsDigit(c) || c == '-' {
			return len(r) > 1
		}
	}
	return false
}

// singular strips an English plural ending, so "kids" and "kid" meet.
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "xes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") &&
		!strings.HasSuffix(w, "is") && len(w) > 3:
		return w[:len(w)-1]
	}
	return w
}

// commonWords are English words that name nothing: function words, and the
// verbs, adverbs and interjections of everyday talk.
var commonWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a about above after again against all also always am an and any anyone anything
	are as at awesome be because been before being below between both but by can could did do does doing done down
	during each even ever every everything few for from further get gets getting got great had has have having he
	her here hers herself him himself his how i if in into is it its itself just know let like lot lots made make
	makes making many maybe me more most much must my myself never new no nor not now of off oh ok okay on once one
	only or other our ours ourselves out over own really right same said say says she should so some something
	still such sure than thank thanks that the their theirs them themselves then there these they thing things
	think this those though through to too totally very want wanted was way we well went were what when where which
	while who whom why will with would wow yeah yes yet you your yours yourself yourselves hey hi hello sounds
	sound good glad love loved amazing nice cool feel feeling felt time times really pretty kind keep going gonna
	come came take took give gave tell told look looks looking looked see saw seen seems need needs wish hope
	hoping hopefully definitely absolutely actually especially usually often sometimes since until next last
	first much better best bit little big lot day days year years week weeks month months today yesterday tomorrow
	recently lately ago already soon again always another around back can't don't i'm it's that's you're i've
	we're they're what's let's isn't wasn't didn't doesn't couldn't wouldn't shouldn't`) {
		commonWords[w] = true
	}
}

// NameMatch is a name a request mentions and what it resolved to: one
// entity (Entity, EntityID), or none or several (Candidates: for a name
// memory does not know, the closest known names, none of them used; for an
// ambiguous one, the entities it may denote).
type NameMatch struct {
	Name       string   `json:"name"`
	Entity     string   `json:"entity,omitempty"`
	EntityID   string   `json:"entity_id,omitempty"`
	Candidates []string `json:"candidates,omitempty"`
}

// Selection is what a query selects for a destructive operation (forget,
// purge): the facts, best first, and how each name it mentions resolved.
// An operation acts on it only when Unresolved and Ambiguous are empty.
type Selection struct {
	FactIDs    []string
	Resolved   []NameMatch
	Unresolved []NameMatch
	Ambiguous  []NameMatch
}
