package extract

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/graphmem/graphmem/entity"
)

// grounding decides whether a name or value a model wrote is there in the
// episode. Small models invent: given "our prod-db listens on port 3307"
// they answer "100s is_staffed_by_me", well formed and made up. A kept
// fact's subject and its object or value must each be named by the
// episode's content, its speaker or a known entity it was given.
type grounding struct {
	content string          // normalised content, padded with spaces
	cjk     bool            // content has CJK text, which has no spaces between words
	words   map[string]bool // its words
	names   map[string]bool // speaker, known entities' names and aliases
	// groups maps each name or alias of the answer's entities to all of
	// them: "prod db" is grounded when its entity's name is.
	groups map[string][]string
}

// firstPerson are the words a model uses for the speaker; the speaker is
// part of the episode.
var firstPerson = map[string]bool{"i": true, "me": true, "my": true, "myself": true, "we": true, "us": true, "our": true,
	"user": true, "the user": true, "speaker": true, "我": true, "我们": true}

// stopWords are left out when every word of a name must be found.
var stopWords = map[string]bool{"a": true, "an": true, "the": true, "of": true, "and": true, "or": true, "to": true,
	"in": true, "on": true, "at": true, "for": true, "with": true, "by": true, "from": true, "is": true, "my": true, "our": true}

func newGrounding(ep entity.Episode, known []entity.Entity, ents []Entity) grounding {
	c := entity.Normalize(ep.Content)
	g := grounding{content: " " + c + " ", cjk: hasHan(c), words: map[string]bool{}, names: map[string]bool{}, groups: map[string][]string{}}
	for _, w := range strings.Fields(c) {
		g.words[w] = true
	}
	if s := entity.Normalize(ep.Speaker); s != "" {
		g.names[s] = true
	}
	for _, k := range known {
		g.names[entity.Normalize(k.Name)] = true
		for _, a := range k.Aliases {
			g.names[entity.Normalize(a)] = true
		}
	}
	for _, e := range ents {
		all := []string{entity.Normalize(e.Name)}
		for _, a := range e.Aliases {
			all = append(all, entity.Normalize(a))
		}
		for _, n := range all {
			g.groups[n] = append(g.groups[n], all...)
		}
	}
	return g
}

// name reports whether a subject or object is grounded, directly or
// through another name of the same answer entity.
func (g grounding) name(s string) bool {
	n := entity.Normalize(s)
	if g.direct(n) {
		return true
	}
	for _, o := range g.groups[n] {
		if o != n && g.direct(o) {
			return true
		}
	}
	return false
}

// value reports whether a literal is grounded. A date is: the model
// resolves "next Friday" to one, as it is asked to.
func (g grounding) value(s string) bool {
	if isDate(s) {
		return true
	}
	return g.direct(entity.Normalize(s))
}

// direct: n is the speaker or a known name, occurs in the content as a
// phrase, or each of its words does (a word also matches one sharing its
// first five letters: "databases", "moving"); CJK text matches when at
// least half its characters occur in the content. In CJK content, where
// words are not spaced, a Latin name or number may occur inside a run.
func (g grounding) direct(n string) bool {
	if n == "" {
		return false
	}
	if firstPerson[n] || g.names[n] || strings.Contains(g.content, " "+n+" ") || g.cjk && strings.Contains(g.content, n) {
		return true
	}
	if hasHan(n) {
		han, found := 0, 0
		for _, r := range n {
			if unicode.Is(unicode.Han, r) {
				han++
				if strings.ContainsRune(g.content, r) {
					found++
				}
			}
		}
		return 2*found >= han && found > 0
	}
	any := false
	for _, w := range strings.Fields(n) {
		if stopWords[w] {
			continue
		}
		any = true
		if !g.word(w) {
			return false
		}
	}
	return any
}

func (g grounding) word(w string) bool {
	if g.words[w] || g.cjk && strings.Contains(g.content, w) {
		return true
	}
	const stem = 5
	if utf8.RuneCountInString(w) < stem || w[0] >= '0' && w[0] <= '9' {
		return false
	}
	p := string([]rune(w)[:stem])
	for c := range g.words {
		if strings.HasPrefix(c, p) {
			return true
		}
	}
	return false
}

func hasHan(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
}

func isDate(s string) bool {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", time.DateOnly} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}
