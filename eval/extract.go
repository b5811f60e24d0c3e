package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/extract"
	"github.com/graphmem/graphmem/fixtures"
	"github.com/graphmem/graphmem/ontology"
)

// ExtractOptions configures Extract.
type ExtractOptions struct {
	// Model is the endpoint and model to evaluate (extract.Config).
	Model extract.Config
	// Cases is the gold set; nil means the built-in one
	// (fixtures/extract/gold.jsonl).
	Cases []fixtures.ExtractCase
	// Ontology defaults to ontology.Default().
	Ontology *ontology.Ontology
	// BaselineCalls is how many bare calls time the endpoint itself before
	// the gold set (default 3).
	BaselineCalls int
	// Misses, when set, receives each case with a missed or wrong fact, a
	// wrong date or a failed extraction.
	Misses io.Writer
	// Progress, when set, is called after each case.
	Progress func(done, total int)
}

// ExtractScores are precision and recall over a group of cases. A fact is
// correct when it matches a gold fact (required or optional) after
// normalisation; recall counts required gold facts only.
type ExtractScores struct {
	Episodes  int `json:"episodes"`
	Gold      int `json:"gold_facts"`
	Extracted int `json:"extracted_facts"`
	Correct   int `json:"correct_facts"`
	Found     int `json:"found_gold_facts"`
	// Precision is Correct/Extracted, nil when nothing was extracted.
	Precision *float64 `json:"precision"`
	// Recall is Found/Gold, nil when there is no gold fact.
	Recall *float64 `json:"recall"`
}

func (s *ExtractScores) add(gold, extracted, correct, found int) {
	s.Episodes++
	s.Gold += gold
	s.Extracted += extracted
	s.Correct += correct
	s.Found += found
}

func (s *ExtractScores) finish() {
	s.Precision, s.Recall = ratio(s.Correct, s.Extracted), ratio(s.Found, s.Gold)
}

func ratio(a, b int) *float64 {
	if b == 0 {
		return nil
	}
	r := float64(a) / float64(b)
	return &r
}

// ExtractGroup is the scores of the cases of one category or language.
type ExtractGroup struct {
	Name string `json:"name"`
	ExtractScores
}

// ExtractReport is the result of Extract.
type ExtractReport struct {
	Model string `json:"model"`
	// Mode is the response format the endpoint ended up answering in.
	Mode string `json:"mode"`
	ExtractScores
	F1 float64 `json:"f1"`
	// Categories and Languages split the scores.
	Categories []ExtractGroup `json:"categories"`
	Languages  []ExtractGroup `json:"languages"`
	// DatesChecked counts the valid_from / valid_to the gold set gives for
	// matched facts; DatesRight those the model got on the same day.
	DatesChecked int `json:"dates_checked"`
	DatesRight   int `json:"dates_right"`
	// Nothing counts the cases with no gold fact (permissions, chit-chat);
	// NothingEmpty those where no fact was extracted.
	Nothing      int `json:"nothing_to_extract"`
	NothingEmpty int `json:"nothing_extracted_there"`
	// PermissionDropped counts facts of the answers that graphmem dropped as
	// permission-like; Dropped counts the dropped facts by reason
	// (entity.Drop…).
	PermissionDropped int            `json:"permission_facts_dropped"`
	Dropped           map[string]int `json:"dropped"`
	// Proposed counts the facts of the answers, kept or not.
	Proposed int `json:"proposed_facts"`
	// JSONValid is the share of episodes whose first answer was usable
	// JSON of the asked shape; Repaired and Failed count the others.
	JSONValid float64 `json:"json_valid"`
	Repaired  int     `json:"repaired"`
	Failed    int     `json:"failed"`
	// Per episode: model calls, tokens and wall time.
	CallsPerEpisode            float64 `json:"calls_per_episode"`
	PromptTokensPerEpisode     float64 `json:"prompt_tokens_per_episode"`
	CompletionTokensPerEpisode float64 `json:"completion_tokens_per_episode"`
	PromptTokens               int64   `json:"prompt_tokens"`
	CompletionTokens           int64   `json:"completion_tokens"`
	LatencyP50Ms               float64 `json:"latency_p50_ms"`
	LatencyP95Ms               float64 `json:"latency_p95_ms"`
	LatencyMeanMs              float64 `json:"latency_mean_ms"`
	// BaselineCallMs is the median of bare calls to the same endpoint
	// (a one-line prompt, a few tokens back), measured in the same run.
	BaselineCallMs float64 `json:"baseline_bare_call_ms"`
}

// Extract runs every gold case through extract.Extractor against the
// configured endpoint, one at a time, and scores the facts. Facts are
// compared after normalisation: names and values by entity.Normalize, a
// leading article dropped, "I", "me", "user" and "我" read as the speaker,
// known aliases as their names, predicates through the ontology's synonyms;
// a value may carry up to two more words (or CJK characters) than the gold
// one ("port 3307" for "3307"). Dates are compared by day in the reference
// time's zone.
func Extract(ctx context.Context, o ExtractOptions) (ExtractReport, error) {
	cases, err := o.gold()
	if err != nil {
		return ExtractReport{}, err
	}
	onto := o.Ontology
	if onto == nil {
		onto = ontology.Default()
	}
	x, err := extract.New(o.Model, extract.WithOntology(onto))
	if err != nil {
		return ExtractReport{}, err
	}
	rep := ExtractReport{Model: o.Model.Model, Dropped: map[string]int{}}
	n := o.BaselineCalls
	if n <= 0 {
		n = 3
	}
	if rep.BaselineCallMs, err = bareCalls(ctx, x, n); err != nil {
		return rep, fmt.Errorf("eval extract: the endpoint does not answer a bare call: %w", err)
	}
	t := extractTally{cats: map[string]*ExtractScores{}, langs: map[string]*ExtractScores{}}
	for i, c := range cases {
		start := time.Now()
		out, u, err := x.Extract(ctx, extract.Input{Episode: c.Episode, Known: c.Known, Ontology: onto})
		t.lat = append(t.lat, float64(time.Since(start).Microseconds())/1000)
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		rep.countAnswer(out, u, err, &t)
		s := rep.scoreCase(c, out.Facts, onto, &t)
		if o.Misses != nil && (err != nil || len(s.missed) > 0 || len(s.wrong) > 0 || len(s.badDates) > 0) {
			writeMiss(o.Misses, c, err, s)
		}
		if o.Progress != nil {
			o.Progress(i+1, len(cases))
		}
	}
	rep.Mode = x.Mode()
	rep.summarise(t, len(cases))
	return rep, nil
}

// gold is the gold set to run: the options' cases, else the built-in
// one; never empty.
func (o ExtractOptions) gold() ([]fixtures.ExtractCase, error) {
	cases := o.Cases
	if cases == nil {
		var err error
		if cases, err = fixtures.ExtractGold(); err != nil {
			return nil, err
		}
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("eval extract: the gold set is empty")
	}
	return cases, nil
}

// extractTally is what Extract gathers over the cases besides the
// report's own counts: the scores by category and language, each case's
// latency, the model calls and the answers valid at once.
type extractTally struct {
	cats, langs  map[string]*ExtractScores
	lat          []float64
	calls, valid int
}

// countAnswer counts what one answer cost (calls, tokens), whether it was
// valid, repaired or failed, and the facts it proposed and those dropped.
func (r *ExtractReport) countAnswer(out extract.Output, u extract.Usage, err error, t *extractTally) {
	t.calls += u.Calls
	r.PromptTokens += u.PromptTokens
	r.CompletionTokens += u.CompletionTokens
	switch {
	case err != nil:
		r.Failed++
	case out.Repaired:
		r.Repaired++
	default:
		t.valid++
	}
	r.Proposed += out.Proposed
	for _, d := range out.Dropped {
		r.Dropped[d.Reason]++
		if d.Reason == entity.DropPermission {
			r.PermissionDropped++
		}
	}
}

// scoreCase scores one case's kept facts against its gold facts, into the
// report, its category and its language, and returns the case's score.
func (r *ExtractReport) scoreCase(c fixtures.ExtractCase, facts []extract.Fact, onto *ontology.Ontology, t *extractTally) caseScore {
	s := score(c, facts, onto)
	required := 0
	for _, g := range c.Facts {
		if !g.Optional {
			required++
		}
	}
	r.add(required, len(facts), s.correct, s.found)
	group(t.cats, c.Category).add(required, len(facts), s.correct, s.found)
	group(t.langs, c.Lang).add(required, len(facts), s.correct, s.found)
	r.DatesChecked += s.datesChecked
	r.DatesRight += s.datesRight
	if required == 0 {
		r.Nothing++
		if len(facts) == 0 {
			r.NothingEmpty++
		}
	}
	return s
}

// summarise fills the report's ratios, groups and per-episode figures
// from the tally of n episodes.
func (r *ExtractReport) summarise(t extractTally, n int) {
	r.finish()
	if r.Precision != nil && r.Recall != nil && *r.Precision+*r.Recall > 0 {
		r.F1 = 2 * *r.Precision * *r.Recall / (*r.Precision + *r.Recall)
	}
	r.Categories, r.Languages = groups(t.cats), groups(t.langs)
	ep := float64(n)
	r.JSONValid = float64(t.valid) / ep
	r.CallsPerEpisode = float64(t.calls) / ep
	r.PromptTokensPerEpisode = float64(r.PromptTokens) / ep
	r.CompletionTokensPerEpisode = float64(r.CompletionTokens) / ep
	r.LatencyP50Ms, r.LatencyP95Ms = percentileMs(t.lat, 0.50), percentileMs(t.lat, 0.95)
	for _, l := range t.lat {
		r.LatencyMeanMs += l / ep
	}
}

func group(m map[string]*ExtractScores, name string) *ExtractScores {
	if m[name] == nil {
		m[name] = &ExtractScores{}
	}
	return m[name]
}

func groups(m map[string]*ExtractScores) []ExtractGroup {
	out := make([]ExtractGroup, 0, len(m))
	for name, s := range m {
		s.finish()
		out = append(out, ExtractGroup{Name: name, ExtractScores: *s})
	}
	slices.SortFunc(out, func(a, b ExtractGroup) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// percentileMs is the nearest-rank percentile of ms.
func percentileMs(ms []float64, p float64) float64 {
	if len(ms) == 0 {
		return 0
	}
	s := slices.Clone(ms)
	slices.Sort(s)
	i := int(p*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// bareCalls times n bare calls to the endpoint and returns the median in
// milliseconds.
func bareCalls(ctx context.Context, x *extract.Extractor, n int) (float64, error) {
	var ms []float64
	for range n {
		start := time.Now()
		if err := x.BareCall(ctx); err != nil {
			return 0, err
		}
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
	}
	return percentileMs(ms, 0.5), nil
}

// caseScore is how one case's answer compares with its gold facts.
type caseScore struct {
	correct, found           int
	datesChecked, datesRight int
	missed                   []fixtures.GoldFact
	wrong                    []extract.Fact
	badDates                 []string
}

// score matches extracted facts to gold facts, each gold fact at most once,
// required ones first.
func score(c fixtures.ExtractCase, facts []extract.Fact, onto *ontology.Ontology) caseScore {
	n := newNames(c)
	order := make([]int, 0, len(c.Facts))
	for i, g := range c.Facts {
		if !g.Optional {
			order = append(order, i)
		}
	}
	for i, g := range c.Facts {
		if g.Optional {
			order = append(order, i)
		}
	}
	used := make([]bool, len(c.Facts))
	var s caseScore
	zone := c.Episode.ReferenceTime.Location()
	for _, f := range facts {
		hit := -1
		for _, i := range order {
			if !used[i] && n.matches(c.Facts[i], f, onto) {
				hit = i
				break
			}
		}
		if hit < 0 {
			s.wrong = append(s.wrong, f)
			continue
		}
		used[hit] = true
		s.correct++
		g := c.Facts[hit]
		if !g.Optional {
			s.found++
		}
		for _, d := range []struct {
			name, want string
			got        *time.Time
		}{{"valid_from", g.ValidFrom, f.ValidFrom}, {"valid_to", g.ValidTo, f.ValidTo}} {
			if d.want == "" {
				continue
			}
			s.datesChecked++
			got := "null"
			if d.got != nil {
				got = d.got.In(zone).Format(time.DateOnly)
			}
			if got == d.want {
				s.datesRight++
			} else {
				s.badDates = append(s.badDates, fmt.Sprintf("%s %s %s: %s is %s, want %s", g.Subject, g.Predicate, g.Target(), d.name, got, d.want))
			}
		}
	}
	for i, g := range c.Facts {
		if !used[i] && !g.Optional {
			s.missed = append(s.missed, g)
		}
	}
	return s
}

// names normalises the names of one case: the speaker and the known
// entities' aliases.
type names struct {
	speaker string
	alias   map[string]string
}

func newNames(c fixtures.ExtractCase) names {
	n := names{speaker: entity.Normalize(c.Episode.Speaker), alias: map[string]string{}}
	for _, k := range c.Known {
		for _, a := range k.Aliases {
			n.alias[entity.Normalize(a)] = entity.Normalize(k.Name)
		}
	}
	return n
}

// firstPerson are the ways a model names the speaker against the rules.
var firstPerson = map[string]bool{"i": true, "me": true, "myself": true, "user": true, "the user": true, "speaker": true, "我": true}

func (n names) norm(s string) string {
	s = entity.Normalize(s)
	if firstPerson[s] && n.speaker != "" {
		return n.speaker
	}
	for _, art := range []string{"the ", "a ", "an "} {
		s = strings.TrimPrefix(s, art)
	}
	if a, ok := n.alias[s]; ok {
		return a
	}
	return s
}

func (n names) matches(g fixtures.GoldFact, f extract.Fact, onto *ontology.Ontology) bool {
	subj := n.norm(f.Subject)
	if !slices.ContainsFunc(append([]string{g.Subject}, g.SubjectAlso...), func(s string) bool { return n.norm(s) == subj }) {
		return false
	}
	pred := onto.Canonical(f.Predicate)
	if !slices.ContainsFunc(append([]string{g.Predicate}, g.Also...), func(p string) bool { return onto.Canonical(p) == pred }) {
		return false
	}
	got := f.Object
	if got == "" {
		got = f.Value
	}
	got = n.norm(got)
	return slices.ContainsFunc(append([]string{g.Target()}, g.Accept...), func(t string) bool { return near(got, n.norm(t)) })
}

// near reports whether two normalised values are the same, or one is the
// other with at most two more words (CJK characters count as words).
func near(a, b string) bool {
	if a == b {
		return true
	}
	if a == "" || b == "" {
		return false
	}
	long, short := a, b
	if len(short) > len(long) {
		long, short = short, long
	}
	if !strings.Contains(" "+long+" ", " "+short+" ") && !(hasCJK(long) && strings.Contains(long, short)) {
		return false
	}
	return words(long)-words(short) <= 2
}

func hasCJK(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
}

// words counts space-separated words, each CJK character as one.
func words(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		cjk := 0
		for _, r := range w {
			if unicode.Is(unicode.Han, r) {
				cjk++
			}
		}
		if cjk > 0 && cjk == len([]rune(w)) {
			n += cjk
		} else {
			n += 1 + cjk
		}
	}
	return n
}

func writeMiss(w io.Writer, c fixtures.ExtractCase, err error, s caseScore) {
	fmt.Fprintf(w, "%s [%s] %s\n", c.ID, c.Category, oneLine(c.Episode.Content))
	if err != nil {
		fmt.Fprintf(w, "  failed: %v\n", err)
	}
	for _, g := range s.missed {
		fmt.Fprintf(w, "  missed: %s %s %s\n", g.Subject, g.Predicate, g.Target())
	}
	for _, f := range s.wrong {
		t := f.Object
		if t == "" {
			t = f.Value
		}
		fmt.Fprintf(w, "  wrong:  %s %s %s\n", f.Subject, f.Predicate, t)
	}
	for _, d := range s.badDates {
		fmt.Fprintf(w, "  date:   %s\n", d)
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// WriteTable prints the scores per category and language, then the rest.
func (r ExtractReport) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "extraction on %d episodes, model %s, response format %s\n", r.Episodes, r.Model, r.Mode)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tepisodes\tgold facts\textracted\tcorrect\tprecision\trecall\t")
	row := func(name string, s ExtractScores) {
		fmt.Fprintf(tw, "%-16s\t%d\t%d\t%d\t%d\t%s\t%s\t\n", name, s.Episodes, s.Gold, s.Extracted, s.Correct, share(s.Precision), share(s.Recall))
	}
	row("all", r.ExtractScores)
	for _, g := range r.Categories {
		row("  "+g.Name, g.ExtractScores)
	}
	for _, g := range r.Languages {
		row("  "+g.Name, g.ExtractScores)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	ep := float64(r.Episodes)
	fmt.Fprintf(w, "F1 %.3f; dates right %d of %d; nothing extracted where there is nothing: %d of %d; permission-like facts dropped by graphmem: %d\n",
		r.F1, r.DatesRight, r.DatesChecked, r.NothingEmpty, r.Nothing, r.PermissionDropped)
	fmt.Fprintf(w, "JSON usable at the first answer %.3f (%d repaired, %d failed); calls per episode %.2f\n",
		r.JSONValid, r.Repaired, r.Failed, r.CallsPerEpisode)
	fmt.Fprintf(w, "tokens per episode: prompt %.0f, completion %.0f (%d and %d in all)\n",
		float64(r.PromptTokens)/ep, float64(r.CompletionTokens)/ep, r.PromptTokens, r.CompletionTokens)
	_, err := fmt.Fprintf(w, "latency per episode: p50 %.0f ms, p95 %.0f ms, mean %.0f ms; baseline: a bare call %.0f ms (same endpoint, same run)\n",
		r.LatencyP50Ms, r.LatencyP95Ms, r.LatencyMeanMs, r.BaselineCallMs)
	return err
}

func share(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *p)
}

// JSON is the report as one JSON object.
func (r ExtractReport) JSON() ([]byte, error) { return json.Marshal(r) }

// ExtractRun is one row of ExtractComparison: a name (the recorded
// answers, or a prompt style) and its report.
type ExtractRun struct {
	Name string `json:"name"`
	ExtractReport
}

// ExtractComparison is several runs of Extract on the same gold set, side
// by side: the recorded answers as the baseline, then each prompt style
// against the model.
type ExtractComparison struct {
	Runs []ExtractRun `json:"runs"`
}

// WriteTable prints one line per run, precision of the kept facts first:
// grounding must keep junk out before recall counts.
func (c ExtractComparison) WriteTable(w io.Writer) error {
	if len(c.Runs) > 0 {
		fmt.Fprintf(w, "extraction on %d episodes of the gold set; precision of kept facts, then recall\n", c.Runs[0].Episodes)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\tmodel\tformat\tprecision\trecall\tF1\tdates\tkept\tproposed\tnot grounded\tcalls/ep\tprompt tok/ep\tcompletion tok/ep\tp50 ms\t")
	for _, r := range c.Runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.3f\t%d/%d\t%d\t%d\t%d\t%.2f\t%.0f\t%.0f\t%.0f\t\n", r.Name, r.Model, r.Mode,
			share(r.Precision), share(r.Recall), r.F1, r.DatesRight, r.DatesChecked, r.Extracted, r.Proposed,
			r.Dropped[entity.DropNotGrounded], r.CallsPerEpisode, r.PromptTokensPerEpisode, r.CompletionTokensPerEpisode, r.LatencyP50Ms)
	}
	return tw.Flush()
}

// JSON is the comparison as one JSON object.
func (c ExtractComparison) JSON() ([]byte, error) { return json.Marshal(c) }
