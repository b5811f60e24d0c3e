package recall

import (
	"slices"
	"testing"
	"time"
)

func d(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestNamedTimes: the times English and Chinese questions name, resolved
// against a question asked on Monday 15 June 2026.
func TestNamedTimes(t *testing.T) {
	anchor := time.Date(2026, 6, 15, 10, 30, 0, 0, time.UTC)
	type want struct {
		from, to     string // the reading used for the answer; "" for an event
		order, event string
		point        bool
	}
	for _, tc := range []struct {
		q    string
		want []want
	}{
		// Dates, months, seasons and years.
		{"What was the port on 2025-03-14?", []want{{from: "2025-03-14", to: "2025-03-15", point: true}}},
		{"port in 2025-03", []want{{from: "2025-03-01", to: "2025-04-01"}}},
		{"What was the port of orders-service in March 2025?", []want{{from: "2025-03-01", to: "2025-04-01"}}},
		{"on 14 March 2025", []want{{from: "2025-03-14", to: "2025-03-15", point: true}}},
		{"on March 14, 2025", []want{{from: "2025-03-14", to: "2025-03-15", point: true}}},
		{"in March", []want{{from: "2026-03-01", to: "2026-04-01"}}},
		{"in September", []want{{from: "2025-09-01", to: "2025-10-01"}}},
		{"what did we use last March?", []want{{from: "2026-03-01", to: "2026-04-01"}}},
		{"last June", []want{{from: "2025-06-01", to: "2025-07-01"}}},
		{"this December", []want{{from: "2026-12-01", to: "2027-01-01"}}},
		{"last May", []want{{from: "2026-05-01", to: "2026-06-01"}}},
		{"you may use it", nil},
		{"on May 3", []want{{from: "2026-05-03", to: "2026-05-04", point: true}}},
		{"last summer", []want{{from: "2025-06-01", to: "2025-09-01"}}},
		{"in spring 2024", []want{{from: "2024-03-01", to: "2024-06-01"}}},
		{"this winter", []want{{from: "2026-12-01", to: "2027-03-01"}}},
		{"did the server fall over?", nil},
		{"in 2024", []want{{from: "2024-01-01", to: "2025-01-01"}}},
		// Relative times.
		{"yesterday", []want{{from: "2026-06-14", to: "2026-06-15", point: true}}},
		{"the day before yesterday", []want{{from: "2026-06-13", to: "2026-06-14", point: true}}},
		{"last month", []want{{from: "2026-05-01", to: "2026-06-01"}}},
		{"this year", []want{{from: "2026-01-01", to: "2027-01-01"}}},
		{"last year", []want{{from: "2025-01-01", to: "2026-01-01"}}},
		{"two years ago", []want{{from: "2024-01-01", to: "2025-01-01"}}},
		{"3 months ago", []want{{from: "2026-03-01", to: "2026-04-01"}}},
		{"a week ago", []want{{from: "2026-06-05", to: "2026-06-12"}}},
		{"10 days ago", []want{{from: "2026-06-05", to: "2026-06-06", point: true}}},
		// Chinese.
		{"2025年3月订单服务的端口是多少？", []want{{from: "2025-03-01", to: "2025-04-01"}}},
		{"2025年3月14日", []want{{from: "2025-03-14", to: "2025-03-15", point: true}}},
		{"3月14号发生了什么", []want{{from: "2026-03-14", to: "2026-03-15", point: true}}},
		{"去年用的是什么？", []want{{from: "2025-01-01", to: "2026-01-01"}}},
		{"前年", []want{{from: "2024-01-01", to: "2025-01-01"}}},
		{"三月份的端口", []want{{from: "2026-03-01", to: "2026-04-01"}}},
		{"十二月份", []want{{from: "2025-12-01", to: "2026-01-01"}}},
		{"去年三月", []want{{from: "2025-03-01", to: "2025-04-01"}}},
		{"去年春天", []want{{from: "2025-03-01", to: "2025-06-01"}}},
		{"2024年", []want{{from: "2024-01-01", to: "2025-01-01"}}},
		{"三年前", []want{{from: "2023-01-01", to: "2024-01-01"}}},
		{"两个月前", []want{{from: "2026-04-01", to: "2026-05-01"}}},
		{"昨天", []want{{from: "2026-06-14", to: "2026-06-15", point: true}}},
		{"上个月", []want{{from: "2026-05-01", to: "2026-06-01"}}},
		{"几月份搬的家？", nil},
		// Order against an event or a date.
		{"Who was Sam's manager before Bob?", []want{{order: "before", event: "Bob", point: true}}},
		{"what database did we use after the migration", []want{{order: "after", event: "the migration"}}},
		{"what port did the api use before?", nil},
		{"before March 2025", []want{{from: "2025-03-01", to: "2025-04-01", order: "before", point: true}}},
		{"since 2024, what changed?", []want{{from: "2024-01-01", to: "2025-01-01", order: "after"}}},
		{"在迁移之前用的是什么数据库？", []want{{order: "before", event: "迁移", point: true}}},
		{"在2025年3月之后", []want{{from: "2025-03-01", to: "2025-04-01", order: "after"}}},
		// Nothing.
		{"Who is Sam's manager?", nil},
		{"port 8080 of orders-service", nil},
	} {
		refs := namedTimes(tc.q, anchor)
		var got []want
		for _, r := range refs {
			w := want{order: r.order, event: r.event, point: r.point()}
			if r.event == "" {
				w.from, w.to = r.from.Format(time.DateOnly), r.to.Format(time.DateOnly)
			}
			got = append(got, w)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %+v, want %+v", tc.q, got, tc.want)
		}
	}
}

// TestNamedTimes_Alternatives: a month without a year is read in the
// latest year first; the year before is an alternative for episodes.
func TestNamedTimes_Alternatives(t *testing.T) {
	refs := namedTimes("what happened in March?", d("2026-06-15"))
	if len(refs) != 1 || len(periodsOf(refs)) != 2 || periodsOf(refs)[1].from != d("2025-03-01") {
		t.Fatalf("%+v", refs)
	}
}

func TestDetectIntent(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want Intent
	}{
		{"When did Alice join Acme?", Intent{When: true}},
		{"how long ago did we move?", Intent{When: true}},
		{"What port did the api use before?", Intent{Change: true}},
		{"Why did trip-miniapp switch from pnpm to npm?", Intent{Change: true, Why: true}},
		{"what was the reason for dropping MongoDB", Intent{Why: true}},
		{"Who is Sam's manager?", Intent{}},
		{"王芳什么时候搬到杭州的？", Intent{When: true}},
		{"我们为什么不用 MongoDB 了", Intent{Why: true}},
		{"之前用的是什么包管理器？", Intent{Change: true}},
	} {
		if got := detectIntent(tc.q); got != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.q, got, tc.want)
		}
	}
	if !(Intent{Why: true}).History() || (Intent{}).History() {
		t.Error("History")
	}
}

func TestNgrams(t *testing.T) {
	for _, tc := range []struct {
		q       string
		has     []string
		hasNot  []string
		maxSize int
	}{
		{"Who is Sam's manager?", []string{"sam", "manager", "sam manager"}, []string{"who", "is"}, 0},
		{"What port does orders-service use?", []string{"orders service", "port"}, []string{"what", "does"}, 0},
		{"王芳住在哪里？", []string{"王芳", "王芳住在哪里", "住在"}, []string{"哪里"}, 0},
		{"Alice Chen at Acme", []string{"alice chen", "alice chen at", "acme"}, []string{"at"}, 0},
		{"a b c d e f g h i j k l m n o p q r s t u v w x y z aa bb cc dd ee ff gg", nil, nil, maxGrams},
	} {
		got := ngrams(tc.q)
		for _, g := range tc.has {
			if !slices.Contains(got, g) {
				t.Errorf("%q: no %q in %q", tc.q, g, got)
			}
		}
		for _, g := range tc.hasNot {
			if slices.Contains(got, g) {
				t.Errorf("%q: %q in %q", tc.q, g, got)
			}
		}
		if tc.maxSize > 0 && len(got) > tc.maxSize {
			t.Errorf("%q: %d n-grams", tc.q, len(got))
		}
	}
}
