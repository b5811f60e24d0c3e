package recall

import (
	"regexp"
	"strconv"
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
// searching: its intent, the periods it names and its n-grams.
type analysis struct {
	text    string
	intent  Intent
	periods []period
	// grams are the normalised word n-grams (1–3 words; 2–4 characters of
	// CJK runs) that may name an entity.
	grams []string
}

// period is a half-open time interval a query refers to.
type period struct{ from, to time.Time }

func (p period) contains(t time.Time, slack time.Duration) bool {
	return !t.Before(p.from) && t.Before(p.to.Add(slack))
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

var months = map[string]time.Month{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
	"oct": 10, "nov": 11, "dec": 12,
}

var (
	isoDateRE = regexp.MustCompile(`\b((?:19|20)\d\d)-(\d\d)(?:-(\d\d))?\b`)
	// "13 October 2023", "October 13, 2023", "October 2023", "in June".
	monthRE = regexp.MustCompile(`(?i)\b(?:(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?)?(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b\.?(?:\s+(\d{1,2})(?:st|nd|rd|th)?\b)?(?:,?\s*((?:19|20)\d\d)\b)?`)
	yearRE  = regexp.MustCompile(`\b((?:19|20)\d\d)\b`)
	// "2023年10月13日", "2023年10月", "10月13日", "2023年".
	zhDateRE = regexp.MustCompile(`(?:((?:19|20)\d\d)\s*年)?\s*(?:(\d{1,2})\s*月)?\s*(?:(\d{1,2})\s*[日号])?`)
	relRE    = regexp.MustCompile(`(?i)\b(yesterday|today|last (?:week|weekend|month|year)|this (?:week|month|year)|(\d+|a|one|two|three|four|five|six) (day|week|month|year)s? ago)\b|昨天|今天|前天|上周|上个?星期|这周|本周|上个月|这个月|本月|去年|今年|前年`)
)

var smallNumbers = map[string]int{"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}

// periods finds the time periods a query names, in English and Chinese:
// dates, months (of a given year, or of every year near the anchor when
// the year is left out), years, and relative expressions resolved against
// anchor ("last week", "去年").
func periods(q string, anchor time.Time) []period {
	var out []period
	day := func(y int, m time.Month, d int) period {
		from := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		return period{from, from.AddDate(0, 0, 1)}
	}
	month := func(y int, m time.Month) period {
		from := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
		return period{from, from.AddDate(0, 1, 0)}
	}
	year := func(y int) period {
		from := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		return period{from, from.AddDate(1, 0, 0)}
	}
	covered := make([]bool, len(q))
	mark := func(loc []int) {
		for i := loc[0]; i < loc[1]; i++ {
			covered[i] = true
		}
	}
	for _, m := range isoDateRE.FindAllStringSubmatchIndex(q, -1) {
		y, _ := strconv.Atoi(q[m[2]:m[3]])
		mo, _ := strconv.Atoi(q[m[4]:m[5]])
		if mo < 1 || mo > 12 {
			continue
		}
		if m[6] >= 0 {
			d, _ := strconv.Atoi(q[m[6]:m[7]])
			out = append(out, day(y, time.Month(mo), d))
		} else {
			out = append(out, month(y, time.Month(mo)))
		}
		mark(m)
	}
	for _, m := range monthRE.FindAllStringSubmatchIndex(q, -1) {
		if covered[m[0]] {
			continue
		}
		name := strings.ToLower(q[m[4]:m[5]])
		dayS, yearS := "", ""
		if m[2] >= 0 {
			dayS = q[m[2]:m[3]]
		} else if m[6] >= 0 {
			dayS = q[m[6]:m[7]]
		}
		if m[8] >= 0 {
			yearS = q[m[8]:m[9]]
		}
		// "may" alone is more often a verb than a month.
		if name == "may" && dayS == "" && yearS == "" {
			continue
		}
		mo := months[name]
		if yearS == "" {
			// No year: the month in the anchor's year and the year before.
			for _, y := range []int{anchor.Year(), anchor.Year() - 1} {
				if dayS != "" {
					d, _ := strconv.Atoi(dayS)
					out = append(out, day(y, mo, d))
				} else {
					out = append(out, month(y, mo))
				}
			}
			mark(m)
			continue
		}
		y, _ := strconv.Atoi(yearS)
		if dayS != "" {
			d, _ := strconv.Atoi(dayS)
			out = append(out, day(y, mo, d))
		} else {
			out = append(out, month(y, mo))
		}
		mark(m)
	}
	for _, m := range zhDateRE.FindAllStringSubmatchIndex(q, -1) {
		if m[1] == m[0] || covered[m[0]] || (m[2] < 0 && m[4] < 0) {
			continue
		}
		y := anchor.Year()
		if m[2] >= 0 {
			y, _ = strconv.Atoi(q[m[2]:m[3]])
		}
		switch {
		case m[4] >= 0 && m[6] >= 0:
			mo, _ := strconv.Atoi(q[m[4]:m[5]])
			d, _ := strconv.Atoi(q[m[6]:m[7]])
			if mo >= 1 && mo <= 12 {
				out = append(out, day(y, time.Month(mo), d))
			}
		case m[4] >= 0:
			mo, _ := strconv.Atoi(q[m[4]:m[5]])
			if mo >= 1 && mo <= 12 {
				out = append(out, month(y, time.Month(mo)))
			}
		default:
			out = append(out, year(y))
		}
		mark(m)
	}
	for _, m := range yearRE.FindAllStringSubmatchIndex(q, -1) {
		if covered[m[0]] {
			continue
		}
		y, _ := strconv.Atoi(q[m[2]:m[3]])
		out = append(out, year(y))
	}
	a := time.Date(anchor.Year(), anchor.Month(), anchor.Day(), 0, 0, 0, 0, time.UTC)
	for _, m := range relRE.FindAllStringSubmatch(q, -1) {
		switch w := strings.ToLower(m[0]); {
		case w == "yesterday" || w == "昨天":
			out = append(out, period{a.AddDate(0, 0, -1), a})
		case w == "前天":
			out = append(out, period{a.AddDate(0, 0, -2), a.AddDate(0, 0, -1)})
		case w == "today" || w == "今天":
			out = append(out, period{a, a.AddDate(0, 0, 1)})
		case strings.HasPrefix(w, "last week") || w == "上周" || strings.HasPrefix(w, "上星期") || strings.HasPrefix(w, "上个星期"):
			out = append(out, period{a.AddDate(0, 0, -14), a})
		case w == "this week" || w == "这周" || w == "本周":
			out = append(out, period{a.AddDate(0, 0, -7), a.AddDate(0, 0, 1)})
		case w == "last month" || w == "上个月" || w == "上月":
			out = append(out, month(a.AddDate(0, -1, 0).Year(), a.AddDate(0, -1, 0).Month()))
		case w == "this month" || w == "这个月" || w == "本月":
			out = append(out, month(a.Year(), a.Month()))
		case w == "last year" || w == "去年":
			out = append(out, year(a.Year()-1))
		case w == "前年":
			out = append(out, year(a.Year()-2))
		case w == "this year" || w == "今年":
			out = append(out, year(a.Year()))
		case m[2] != "":
			n, ok := smallNumbers[m[2]]
			if !ok {
				n, _ = strconv.Atoi(m[2])
			}
			var from time.Time
			switch m[3] {
			case "day":
				from = a.AddDate(0, 0, -n)
				out = append(out, period{from, from.AddDate(0, 0, 1)})
			case "week":
				from = a.AddDate(0, 0, -7*n)
				out = append(out, period{from.AddDate(0, 0, -3), from.AddDate(0, 0, 4)})
			case "month":
				from = a.AddDate(0, -n, 0)
				out = append(out, month(from.Year(), from.Month()))
			case "year":
				out = append(out, year(a.Year()-n))
			}
		}
	}
	return out
}

// isCJK reports whether r is written without spaces between words.
func isCJK(r rune) bool {
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
	for _, r := range entity.Normalize(q) {
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

// maxGrams bounds the entity lookups one query makes.
const maxGrams = 64

func analyze(q string, anchor time.Time) analysis {
	return analysis{text: q, intent: detectIntent(q), periods: periods(q, anchor), grams: ngrams(q)}
}
