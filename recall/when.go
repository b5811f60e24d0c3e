package recall

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/search"
)

// Time named in a question. A question may name a date ("2025-03-14",
// "14 March 2025"), a month ("March 2025", "last March", "2025年3月",
// "三月份"), a season ("last summer", "去年春天"), a year ("in 2024",
// "去年"), a relative time ("yesterday", "two years ago", "三年前") or an
// order against an event ("before Bob", "after the migration",
// "在迁移之前"). Dates, months and seasons without a year are the latest
// at or before the reference time ("last March": the latest before the
// current month).

// period is a half-open time interval a query refers to.
type period struct{ from, to time.Time }

func (p period) contains(t time.Time, slack time.Duration) bool {
	return !t.Before(p.from) && t.Before(p.to.Add(slack))
}

// timeRef is one time a question names.
type timeRef struct {
	period
	// text is the phrase that named it, as written.
	text string
	// alts are other readings of the phrase (a month without a year: the
	// year before as well); they only re-rank episodes.
	alts []period
	// order is "before" or "after" for a time relative to an event or a
	// date, with event the phrase naming the event when it is not a date.
	order string
	event string
}

// point reports whether the reference is one instant for an answer: a day
// or less, or the moment before an event or a date (after one, it is the
// range from then to the reference time).
func (r timeRef) point() bool {
	switch r.order {
	case orderBefore:
		return true
	case orderAfter:
		return false
	}
	return r.to.Sub(r.from) <= 24*time.Hour
}

const (
	orderBefore = "before"
	orderAfter  = "after"
)

// timeRule reads one kind of phrase: re finds it, read turns a match
// (the submatches as strings, "" when absent) into periods — the first is
// the reading used for the answer, the others alternatives.
type timeRule struct {
	re   *regexp.Regexp
	read func(m []string, anchor time.Time) []period
}

var (
	monthNames = `january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec`
	months     = map[string]time.Month{
		"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
		"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
		"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
		"oct": 10, "nov": 11, "dec": 12,
	}
	// seasons start in these months (meteorological, northern hemisphere);
	// each lasts three months.
	seasons = map[string]time.Month{
		"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12,
		"春天": 3, "春季": 3, "夏天": 6, "夏季": 6, "秋天": 9, "秋季": 9, "冬天": 12, "冬季": 12,
	}
	zhDigits     = map[rune]int{'一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9, '十': 10}
	smallNumbers = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
		"seven": 7, "eight": 8, "nine": 9, "ten": 10}
	zhYears = map[string]int{"今年": 0, "去年": -1, "前年": -2}
)

const (
	zhNum     = `(\d{1,2}|[一二两三四五六七八九十]{1,3})`
	enNum     = `(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten)`
	yearGroup = `((?:19|20)\d\d)`
)

// timeRules are tried in order; a later rule never reads text an earlier
// one has read.
var timeRules = []timeRule{
	{ // 2025-03-14, 2025-03
		re: regexp.MustCompile(`\b` + yearGroup + `-(\d\d)(?:-(\d\d))?\b`),
		read: func(m []string, _ time.Time) []period {
			return one(dayOrMonth(atoi(m[1]), atoi(m[2]), atoi(m[3])))
		},
	},
	{ // 14 March 2025, March 14, 2025, March 2025, last March, in May 2024
		re: regexp.MustCompile(`(?i)\b(?:(last|this|past)\s+)?(?:(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?)?(` + monthNames +
			`)\b\.?(?:\s+(\d{1,2})(?:st|nd|rd|th)?\b)?(?:,?\s*` + yearGroup + `\b)?`),
		read: func(m []string, anchor time.Time) []period {
			mod, name, year := strings.ToLower(m[1]), strings.ToLower(m[3]), atoi(m[5])
			d := atoi(m[2])
			if d == 0 {
				d = atoi(m[4])
			}
			// "may" alone is more often a verb than a month.
			if name == "may" && mod == "" && d == 0 && year == 0 {
				return nil
			}
			return inYear(anchor, mod, year, months[name], func(y int) (period, bool) { return dayOrMonth(y, int(months[name]), d) })
		},
	},
	{ // last summer, spring 2024, this winter
		re: regexp.MustCompile(`(?i)\b(?:(last|this|past)\s+)?(spring|summer|autumn|fall|winter)\b(?:\s+(?:of\s+)?` + yearGroup + `\b)?`),
		read: func(m []string, anchor time.Time) []period {
			mod, name, year := strings.ToLower(m[1]), strings.ToLower(m[2]), atoi(m[3])
			if name == "fall" && mod == "" && year == 0 {
				return nil // "fall" alone is more often a verb
			}
			return inYear(anchor, mod, year, seasons[name], func(y int) (period, bool) { return season(y, seasons[name]), true })
		},
	},
	{ // 2025年3月14日, 2025年3月, 去年三月, 三月份, 3月14号, 2025年, 去年春天, 去年
		re: regexp.MustCompile(`(?:` + yearGroup + `\s*年|(今年|去年|前年))?\s*(?:` + zhNum + `\s*月份?\s*(?:(\d{1,2})\s*[日号])?|(春天|春季|夏天|夏季|秋天|秋季|冬天|冬季))?`),
		read: func(m []string, anchor time.Time) []period {
			year, rel, mon, d, sea := atoi(m[1]), m[2], zhNumber(m[3]), atoi(m[4]), m[5]
			if rel != "" {
				year = anchor.Year() + zhYears[rel]
			}
			switch {
			case mon >= 1 && mon <= 12:
				return inYear(anchor, "", year, time.Month(mon), func(y int) (period, bool) { return dayOrMonth(y, mon, d) })
			case sea != "":
				return inYear(anchor, "", year, seasons[sea], func(y int) (period, bool) { return season(y, seasons[sea]), true })
			case year != 0:
				return one(yearPeriod(year), true)
			}
			return nil
		},
	},
	{ // in 2024
		re:   regexp.MustCompile(`\b` + yearGroup + `\b`),
		read: func(m []string, _ time.Time) []period { return one(yearPeriod(atoi(m[1])), true) },
	},
	{ // yesterday, today, last week, this month, two years ago, a week ago
		re: regexp.MustCompile(`(?i)\b(?:(the day before yesterday|yesterday|today)|(last|this|past) (week|weekend|month|year)|` +
			enNum + ` (day|week|month|year)s? ago)\b`),
		read: func(m []string, anchor time.Time) []period {
			a := midnight(anchor)
			switch strings.ToLower(m[1]) {
			case "yesterday":
				return one(period{a.AddDate(0, 0, -1), a}, true)
			case "the day before yesterday":
				return one(period{a.AddDate(0, 0, -2), a.AddDate(0, 0, -1)}, true)
			case "today":
				return one(period{a, a.AddDate(0, 0, 1)}, true)
			}
			if m[3] != "" {
				return one(lastOrThis(a, strings.ToLower(m[2]) == "this", strings.ToLower(m[3])), true)
			}
			n, ok := smallNumbers[strings.ToLower(m[4])]
			if !ok {
				n = atoi(m[4])
			}
			return one(ago(a, n, strings.ToLower(m[5])), true)
		},
	},
	{ // 昨天, 前天, 今天, 上周, 这个月, 三年前, 两个月前, 5天前
		re: regexp.MustCompile(`(昨天|前天|今天)|(上周|上个?星期|这周|本周|这个?星期|上个?月|这个月|本月)|` + zhNum + `\s*(天|周|个?星期|个?月|年)前`),
		read: func(m []string, anchor time.Time) []period {
			a := midnight(anchor)
			switch m[1] {
			case "昨天":
				return one(period{a.AddDate(0, 0, -1), a}, true)
			case "前天":
				return one(period{a.AddDate(0, 0, -2), a.AddDate(0, 0, -1)}, true)
			case "今天":
				return one(period{a, a.AddDate(0, 0, 1)}, true)
			}
			if w := m[2]; w != "" {
				unit := "week"
				if strings.HasSuffix(w, "月") {
					unit = "month"
				}
				return one(lastOrThis(a, !strings.HasPrefix(w, "上"), unit), true)
			}
			unit := map[string]string{"天": "day", "周": "week", "星期": "week", "个星期": "week", "月": "month", "个月": "month", "年": "year"}[m[4]]
			return one(ago(a, zhNumber(m[3]), unit), true)
		},
	},
}

// orderRules find "before X" and "after X": a date X has been read by the
// time rules; another X names an event, resolved against memory.
// word and object are the numbers of the submatches holding the ordering
// word and its object.
var orderRules = []struct {
	re           *regexp.Regexp
	word, object int
}{
	{regexp.MustCompile(`(?i)\b(before|prior to|until|till|after|since)\s+((?:[\p{L}\p{N}][\p{L}\p{N}'’\-]*\s*){1,5}?)(?:[?？,.!;:]|$|\s+(?:and|or|when|did|do|does|was|were|is|are|we|i|you|they)\b)`), 1, 2},
	{regexp.MustCompile(`在\s*([^\s，。？！,?]{1,16}?)\s*(之前|以前|之后|以后)`), 2, 1},
}

func orderOf(word string) string {
	switch strings.ToLower(word) {
	case "before", "prior to", "until", "till", "之前", "以前":
		return orderBefore
	}
	return orderAfter
}

// namedTimes finds the times a question names, in the order they appear,
// resolved against anchor (the time the question is asked).
func namedTimes(q string, anchor time.Time) []timeRef {
	var refs []timeRef
	var starts []int
	covered := make([]bool, len(q)+1)
	for _, r := range timeRules {
		for _, loc := range r.re.FindAllStringSubmatchIndex(q, -1) {
			if loc[0] == loc[1] || covered[loc[0]] {
				continue
			}
			ps := r.read(submatches(q, loc), anchor)
			if len(ps) == 0 {
				continue
			}
			for i := loc[0]; i < loc[1]; i++ {
				covered[i] = true
			}
			refs = append(refs, timeRef{period: ps[0], alts: ps[1:], text: strings.TrimSpace(q[loc[0]:loc[1]])})
			starts = append(starts, loc[0])
		}
	}
	for _, r := range orderRules {
		for _, loc := range r.re.FindAllStringSubmatchIndex(q, -1) {
			w, o := loc[2*r.word], loc[2*r.object]
			if covered[w] {
				continue // "the day before yesterday"
			}
			order := orderOf(q[w:loc[2*r.word+1]])
			// A date right after the ordering word: before or after it.
			if i := refAt(starts, o, q); i >= 0 {
				refs[i].order = order
				refs[i].text = q[w:loc[2*r.word+1]] + " " + refs[i].text
				continue
			}
			event := strings.TrimSpace(q[o:loc[2*r.object+1]])
			if !eventWords(event) {
				continue
			}
			refs = append(refs, timeRef{order: order, event: event, text: strings.TrimRight(q[loc[0]:loc[1]], "?？,.!;: ")})
			starts = append(starts, loc[0])
		}
	}
	return refs
}

// refAt returns the index of the time reference that starts at pos, after
// optional spaces and "the".
func refAt(starts []int, pos int, q string) int {
	rest := strings.TrimLeft(q[pos:], " ")
	rest = strings.TrimPrefix(rest, "the ")
	at := len(q) - len(rest)
	for i, s := range starts {
		if s == at || s == pos {
			return i
		}
	}
	return -1
}

// eventWords reports whether a phrase after "before" or "after" can name
// an event: it holds a word that is not a question or stop word.
func eventWords(s string) bool {
	for _, g := range ngrams(s) {
		if !strings.Contains(g, " ") {
			return true
		}
	}
	return false
}

// periods are every period the references name, alternatives included.
func periodsOf(refs []timeRef) []period {
	var out []period
	for _, r := range refs {
		if r.event == "" && r.order == "" {
			out = append(out, r.period)
			out = append(out, r.alts...)
		}
	}
	return out
}

func submatches(q string, loc []int) []string {
	m := make([]string, len(loc)/2)
	for i := range m {
		if loc[2*i] >= 0 {
			m[i] = q[loc[2*i]:loc[2*i+1]]
		}
	}
	return m
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// zhNumber reads 1–99 in digits or Chinese numerals (三, 十二, 二十).
func zhNumber(s string) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	n, cur := 0, 0
	for _, r := range s {
		d, ok := zhDigits[r]
		switch {
		case !ok:
			return 0
		case d == 10:
			n += max(cur, 1) * 10
			cur = 0
		default:
			cur = d
		}
	}
	return n + cur
}

func one(p period, ok bool) []period {
	if !ok {
		return nil
	}
	return []period{p}
}

func midnight(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// dayOrMonth is the day d of month m of year y, or the whole month when d
// is 0; false for an impossible date.
func dayOrMonth(y, m, d int) (period, bool) {
	if m < 1 || m > 12 || d < 0 || d > 31 {
		return period{}, false
	}
	from := time.Date(y, time.Month(m), max(d, 1), 0, 0, 0, 0, time.UTC)
	if d == 0 {
		return period{from, from.AddDate(0, 1, 0)}, true
	}
	if from.Month() != time.Month(m) {
		return period{}, false // 31 April
	}
	return period{from, from.AddDate(0, 0, 1)}, true
}

func yearPeriod(y int) period {
	from := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	return period{from, from.AddDate(1, 0, 0)}
}

func season(y int, start time.Month) period {
	from := time.Date(y, start, 1, 0, 0, 0, 0, time.UTC)
	return period{from, from.AddDate(0, 3, 0)}
}

// inYear places a month (or a season starting in it) in a year: the given
// one; else for "this" the anchor's; else the latest at or before the
// anchor — strictly before its month for "last" and "past". The readings
// in the anchor's year and the year before are alternatives.
func inYear(anchor time.Time, mod string, year int, m time.Month, at func(y int) (period, bool)) []period {
	if year != 0 {
		return one(at(year))
	}
	y := anchor.Year()
	switch {
	case mod == "this":
	case mod != "" && m >= anchor.Month():
		y--
	case m > anchor.Month():
		y--
	}
	var out []period
	for _, yy := range []int{y, anchor.Year(), anchor.Year() - 1} {
		if p, ok := at(yy); ok && !containsPeriod(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func containsPeriod(ps []period, p period) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// lastOrThis is the week, weekend, month or year before a (last) or
// holding it (this). A week is the seven days up to the anchor; last week
// the fourteen, as people say "last week" of the days just past.
func lastOrThis(a time.Time, this bool, unit string) period {
	switch unit {
	case "week", "weekend":
		if this {
			return period{a.AddDate(0, 0, -7), a.AddDate(0, 0, 1)}
		}
		return period{a.AddDate(0, 0, -14), a}
	case "month":
		if this {
			return period{time.Date(a.Year(), a.Month(), 1, 0, 0, 0, 0, time.UTC), time.Date(a.Year(), a.Month()+1, 1, 0, 0, 0, 0, time.UTC)}
		}
		return period{time.Date(a.Year(), a.Month()-1, 1, 0, 0, 0, 0, time.UTC), time.Date(a.Year(), a.Month(), 1, 0, 0, 0, 0, time.UTC)}
	}
	if this {
		return yearPeriod(a.Year())
	}
	return yearPeriod(a.Year() - 1)
}

// ago is the day, the week around, the month or the year n units before a.
func ago(a time.Time, n int, unit string) period {
	switch unit {
	case "day":
		from := a.AddDate(0, 0, -n)
		return period{from, from.AddDate(0, 0, 1)}
	case "week":
		from := a.AddDate(0, 0, -7*n)
		return period{from.AddDate(0, 0, -3), from.AddDate(0, 0, 4)}
	case "month":
		from := a.AddDate(0, -n, 0)
		return period{time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC), time.Date(from.Year(), from.Month()+1, 1, 0, 0, 0, 0, time.UTC)}
	}
	return yearPeriod(a.Year() - n)
}

// Period is a time range a context answers for.
type Period struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// answerTime is the time a context answers for.
type answerTime struct {
	asOf time.Time
	// during is the range the question names, nil for a point.
	during *period
	// named is the phrase of the question that named the time ("" when
	// the question named none, or as_of was given).
	named string
}

// answerTime picks the time a context answers for: the explicit as_of;
// else, in mode auto, the first time the question names — a point becomes
// as_of (the end of a day; the instant before "before X"), a range a
// period whose facts are all shown, with status at its end; else the
// reference time. An event ("after the migration") is placed by the best
// matching fact (its valid_from) or episode (its reference time); one that
// matches nothing leaves the answer at the reference time.
func (e *Engine) answerTime(ctx context.Context, scope entity.Scope, req *ContextRequest, a analysis, ref, now time.Time) (answerTime, error) {
	at := answerTime{asOf: ref}
	if !req.AsOf.IsZero() || req.Mode != ModeAuto || len(a.times) == 0 {
		return at, nil
	}
	r := a.times[0]
	if r.event != "" {
		hits, err := e.Index.Search(ctx, search.Query{Scope: scope, Text: r.event, Limit: 5, Now: now, KnownAt: req.KnownAt,
			IncludeHistory: true, Types: []string{search.TypeFact, search.TypeEpisode}, FactTimes: true})
		if err != nil {
			return at, err
		}
		var t time.Time
		for _, h := range hits {
			if !h.Time.IsZero() {
				t = h.Time
				break
			}
		}
		if t.IsZero() || t.After(ref) {
			return at, nil
		}
		r.period = period{t, t}
	}
	at.named = r.text
	switch {
	case r.order == orderBefore:
		at.asOf = r.from.Add(-time.Nanosecond)
	case r.order == orderAfter:
		from := r.to
		if r.event != "" {
			from = r.from
		}
		at.during = &period{from, ref}
	case r.point():
		at.asOf = r.to.Add(-time.Nanosecond)
	default:
		at.during = &r.period
	}
	if at.during != nil {
		if at.during.to.After(ref) {
			at.during.to = ref
		}
		at.asOf = at.during.to.Add(-time.Nanosecond)
		if !at.during.from.Before(at.during.to) {
			return answerTime{asOf: ref}, nil
		}
	}
	if at.asOf.After(ref) {
		at.asOf = ref
	}
	return at, nil
}

// overlaps reports whether f was valid at some time in p.
func (p period) overlaps(f *entity.Fact) bool {
	return (f.ValidFrom.IsZero() || f.ValidFrom.Before(p.to)) && (f.ValidTo == nil || f.ValidTo.After(p.from))
}
