package recall

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/graphmem/graphmem/entity"
)

// Intent is what a question asks about time and causes.
type Intent struct {
	// When: the question asks when something happened or how long ago.
	When bool
	// Change: it asks about a change, a former state or an order in time
	// ("before", "used to", "changed", "之前", "换成").
	Change bool
	// Why: it asks for a reason ("why", "reason", "为什么").
	Why bool
}

// History reports whether the answer needs the supersession chain.
func (i Intent) History() bool { return i.When || i.Change || i.Why }

// analysis is what the context builder learns from a query before
// searching: its intent, the times it names and its n-grams.
type analysis struct {
	text   string
	intent Intent
	// times are the times the query names; periods all their readings.
	times   []timeRef
	periods []period
	// grams are the normalised word n-grams (1–3 words; 2–4 characters of
	// CJK runs) that may name an entity, and the keys of names.
	grams []string
	// names are the spans shaped like names (linking.go).
	names []mention
}

var (
	whenRE   = regexp.MustCompile(`(?i)^\s*(?:when|how long|what (?:year|month|day|date|time))\b|\b(?:when did|when was|when is|when will|how long ago|what year|which year|what date)\b|什么时候|何时|哪一?年|几月|哪天|多久|多长时间`)
	changeRE = regexp.MustCompile(`(?i)\b(?:before|after|since|until|used to|previous(?:ly)?|formerly|former|earlier|originally|history|histor(?:y|ical)|chang(?:e|ed|es|ing)|switch(?:ed|ing)?|mov(?:e|ed|ing) (?:from|off|away)|replac(?:e|ed|ing)|migrat(?:e|ed|ing)|no longer|anymore|any more|still)\b|之前|以前|原来|曾经|过去|改成|换成|变成|改为|换了|改了|变了|更换|变化|迁移|不再|还在`)
	whyRE    = regexp.MustCompile(`(?i)\b(?:why|reason|reasons|how come|what made|motivat(?:e|ed|ion))\b|为什么|为何|原因|理由|怎么会|为啥`)
)

// detectIntent classifies a query; it works on English and Chinese.
func detectIntent(q string) Intent {
	return Intent{When: whenRE.MatchString(q), Change: changeRE.MatchString(q), Why: whyRE.MatchString(q)}
}

// isCJK reports whether r is written without spaces between words.
func isCJK(r rune) bool {
	if r < 0x1100 { // below Hangul Jamo, the first of these scripts
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// questionWords are words that never name an entity on their own.
var questionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a about after again all am an and any are as at be been before being both but by can could did do does doing during each few for from further had has have having he her here hers herself him himself his how i if in into is it its itself just me more most my no nor not now of off on once only or other our ours out over own same she should so some such than that the their theirs them then there these they this those through to too under until up very was we were what when where which while who whom why will with would you your yours
kind type name tell say said like likely still ever much many
什么 怎么 为什么 哪 哪里 哪个 谁 吗 呢 的 了 是 在 有 我 你 他 她 它 我们 你们 他们`) {
		questionWords[w] = true
	}
}

// ngrams returns the normalised n-grams of q that may name an entity:
// runs of 1–3 words, and for CJK text every substring of 2–4 characters
// (CJK names are not separated by spaces). Lone question and stop words
// are left out.
func ngrams(q string) []string {
	var words []string
	var cjkRuns [][]rune
	var cur []rune
	var run []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = nil
		}
		if len(run) > 0 {
			cjkRuns = append(cjkRuns, run)
			words = append(words, string(run))
			run = nil
		}
	}
	for _, r := range entity.Normalize(possessiveRE.ReplaceAllString(q, "$1")) {
		switch {
		case isCJK(r):
			if len(cur) > 0 {
				words = append(words, string(cur))
				cur = nil
			}
			run = append(run, r)
		case r == ' ':
			flush()
		default:
			if len(run) > 0 {
				cjkRuns = append(cjkRuns, run)
				words = append(words, string(run))
				run = nil
			}
			cur = append(cur, r)
		}
	}
	flush()
	seen := map[string]bool{}
	var out []string
	add := func(g string) {
		if g != "" && !seen[g] && !questionWords[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	for n := 3; n >= 1; n-- {
		for i := 0; i+n <= len(words); i++ {
			add(strings.Join(words[i:i+n], " "))
		}
	}
	for _, r := range cjkRuns {
		for n := min(4, len(r)); n >= 2; n-- {
			for i := 0; i+n <= len(r); i++ {
				add(string(r[i : i+n]))
			}
		}
	}
	if len(out) > maxGrams {
		out = out[:maxGrams]
	}
	return out
}

// possessiveRE finds "Sam's", so that the n-grams name Sam.
var possessiveRE = regexp.MustCompile(`(\pL)['’]s\b`)

// maxGrams bounds the entity lookups one query makes.
const maxGrams = 64

func analyze(q string, anchor time.Time) analysis {
	times := namedTimes(q, anchor)
	a := analysis{text: q, intent: detectIntent(q), times: times, periods: periodsOf(times), grams: ngrams(q),
		names: mentions(q, times)}
	for _, m := range a.names {
		if !slices.Contains(a.grams, m.key) {
			a.grams = append(a.grams, m.key)
		}
	}
	return a
}
