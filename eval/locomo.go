package eval

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/bolt"
	"github.com/graphmem/graphmem/recall"
	"github.com/graphmem/graphmem/search"
)

// Options configure LoCoMo.
type Options struct {
	// DataDir holds the conversation files (*.json).
	DataDir string
	// Ks are the cut-offs of recall@k (default 5, 10, 20).
	Ks []int
	// WorkDir receives the store and the index; a temporary folder,
	// removed afterwards, when empty.
	WorkDir string
	// Progress, when set, is called after each conversation is loaded and
	// after each question.
	Progress func(done, total int)
}

// Categories of LoCoMo questions scored here (5, adversarial, has no
// evidence and is left out).
var Categories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

// Scores maps "r@k" to recall@k.
type Scores map[string]float64

// Result is recall@k overall and per category.
type Result struct {
	Overall    Scores            `json:"overall"`
	ByCategory map[string]Scores `json:"by_category"`
}

// Report is the outcome of a LoCoMo run.
type Report struct {
	Result
	Questions int `json:"questions"`
	// PerCategory counts questions per category.
	PerCategory   map[string]int `json:"questions_by_category"`
	Baseline      Result         `json:"baseline"`
	Conversations int            `json:"conversations"`
	Turns         int            `json:"turns"`
	Ks            []int          `json:"ks"`
	// SearchP50Ms and SearchP95Ms are the latencies of recall.Engine.Search.
	SearchP50Ms float64 `json:"search_p50_ms"`
	SearchP95Ms float64 `json:"search_p95_ms"`
}

// turn is one line of a conversation.
type turn struct {
	DiaID   string `json:"dia_id"`
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
	Caption string `json:"blip_caption"`
	session int
	date    time.Time
}

type question struct {
	Question string          `json:"question"`
	Evidence []string        `json:"evidence"`
	Category int             `json:"category"`
	Answer   json.RawMessage `json:"answer"`
}

type conversation struct {
	name      string
	turns     []turn
	questions []question
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// loadConversation reads one LoCoMo file.
func loadConversation(path string) (conversation, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return conversation{}, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return conversation{}, fmt.Errorf("%s: %w", path, err)
	}
	c := conversation{name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))}
	var sessions []int
	for k := range raw {
		if m := sessionKey.FindStringSubmatch(k); m != nil {
			n, _ := strconv.Atoi(m[1])
			sessions = append(sessions, n)
		}
	}
	slices.Sort(sessions)
	for _, n := range sessions {
		var ts []turn
		if err := json.Unmarshal(raw[fmt.Sprintf("session_%d", n)], &ts); err != nil {
			return c, fmt.Errorf("%s: session %d: %w", path, n, err)
		}
		var when string
		if err := json.Unmarshal(raw[fmt.Sprintf("session_%d_date_time", n)], &when); err != nil {
			return c, fmt.Errorf("%s: session %d has no date: %w", path, n, err)
		}
		date, err := parseSessionDate(when)
		if err != nil {
			return c, fmt.Errorf("%s: session %d: %w", path, n, err)
		}
		for _, t := range ts {
			t.session, t.date = n, date
			c.turns = append(c.turns, t)
		}
	}
	if err := json.Unmarshal(raw["qa"], &c.questions); err != nil {
		return c, fmt.Errorf("%s: qa: %w", path, err)
	}
	return c, nil
}

// parseSessionDate reads "1:56 pm on 8 May, 2023".
func parseSessionDate(s string) (time.Time, error) {
	s = strings.Join(strings.Fields(s), " ")
	for _, layout := range []string{"3:04 pm on 2 January, 2006", "3:04 pm on 2 Jan, 2006", "3:04 PM on 2 January, 2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("unreadable session date %q", s)
}

// evidence splits the evidence ids ("D1:3", or several joined by ";").
func (q *question) evidence() []string {
	var out []string
	for _, e := range q.Evidence {
		for _, p := range strings.Split(e, ";") {
			if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// content is what a turn says, with the caption of an image it shared.
func (t *turn) content() string {
	if t.Caption == "" {
		return t.Text
	}
	return t.Text + " [shares an image: " + t.Caption + "]"
}

// LoCoMo runs the evaluation described in the package documentation.
func LoCoMo(ctx context.Context, o Options) (Report, error) {
	if len(o.Ks) == 0 {
		o.Ks = []int{5, 10, 20}
	}
	ks := slices.Clone(o.Ks)
	slices.Sort(ks)
	maxK := ks[len(ks)-1]
	if maxK > recall.MaxSearchLimit {
		return Report{}, entity.Errorf(entity.EINVALID, "k at most %d", recall.MaxSearchLimit)
	}
	files, err := filepath.Glob(filepath.Join(o.DataDir, "*.json"))
	if err != nil || len(files) == 0 {
		return Report{}, entity.Errorf(entity.ENOTFOUND, "no LoCoMo conversations (*.json) in %s", o.DataDir)
	}
	sort.Strings(files)
	work := o.WorkDir
	if work == "" {
		if work, err = os.MkdirTemp("", "graphmem-locomo-"); err != nil {
			return Report{}, err
		}
		defer os.RemoveAll(work)
	}
	store, err := bolt.Open(filepath.Join(work, "graph.db"))
	if err != nil {
		return Report{}, err
	}
	defer store.Close()
	idx, err := search.Open(filepath.Join(work, "index"))
	if err != nil {
		return Report{}, err
	}
	defer idx.Close()
	eng := &recall.Engine{Store: store, Index: idx}
	defer eng.Close()

	var convs []conversation
	total := 0
	for _, f := range files {
		c, err := loadConversation(f)
		if err != nil {
			return Report{}, err
		}
		convs = append(convs, c)
		for _, q := range c.questions {
			if Categories[q.Category] != "" && len(q.evidence()) > 0 {
				total++
			}
		}
	}
	rep := Report{Ks: ks, Conversations: len(convs), PerCategory: map[string]int{}}
	ours, base := newTally(ks), newTally(ks)
	var lat []float64
	done := 0
	for _, c := range convs {
		scope := "locomo:" + c.name
		turnOf, err := loadEpisodes(ctx, store, scope, c.turns)
		if err != nil {
			return Report{}, err
		}
		if _, err := idx.Sync(ctx, store); err != nil {
			return Report{}, err
		}
		rep.Turns += len(c.turns)
		docs := make([]string, len(c.turns))
		for i, t := range c.turns {
			docs[i] = t.Speaker + ": " + t.Text
		}
		baseline := newBM25(docs)
		for _, q := range c.questions {
			ev := q.evidence()
			if Categories[q.Category] == "" || len(ev) == 0 {
				continue
			}
			start := time.Now()
			res, err := eng.Search(ctx, scope, recall.SearchRequest{Query: q.Question, Limit: maxK})
			if err != nil {
				return Report{}, err
			}
			lat = append(lat, float64(time.Since(start).Microseconds())/1000)
			var got []string
			for _, h := range res.Hits {
				switch {
				case h.Episode != nil:
					got = append(got, turnOf[h.Episode.ID])
				case h.Fact != nil:
					for _, id := range h.Fact.EpisodeIDs {
						got = append(got, turnOf[id])
					}
				}
			}
			ours.add(q.Category, ev, dedupe(got))
			var bl []string
			for _, i := range baseline.rank(q.Question)[:min(maxK, len(c.turns))] {
				bl = append(bl, c.turns[i].DiaID)
			}
			base.add(q.Category, ev, bl)
			rep.PerCategory[strconv.Itoa(q.Category)]++
			done++
			if o.Progress != nil {
				o.Progress(done, total)
			}
		}
	}
	rep.Questions = done
	rep.Result, rep.Baseline = ours.result(), base.result()
	rep.SearchP50Ms, rep.SearchP95Ms = percentile(lat, 50), percentile(lat, 95)
	return rep, nil
}

// loadEpisodes writes one episode per turn, in order, and returns the turn
// id of each episode id.
func loadEpisodes(ctx context.Context, store graph.Store, scope string, turns []turn) (map[string]string, error) {
	turnOf := make(map[string]string, len(turns))
	now := time.Now().UTC()
	eps := make([]entity.Episode, len(turns))
	for i, t := range turns {
		id := uuid.Must(uuid.NewV7()).String() // sorts by creation: turn order within a session
		eps[i] = entity.Episode{
			ID: id, Scope: scope, Kind: entity.KindMessage, Content: t.content(), Speaker: t.Speaker,
			Role: entity.RoleUser, ReferenceTime: t.date, RecordedAt: now, SourceKind: entity.UserExplicit,
			Status:   entity.EpisodeDone,
			Metadata: map[string]any{"dia_id": t.DiaID, "session_id": "session_" + strconv.Itoa(t.session)},
		}
		turnOf[id] = t.DiaID
	}
	err := store.Update(ctx, scope, func(tx graph.Tx) error {
		for _, e := range eps {
			if err := tx.PutEpisode(e); err != nil {
				return err
			}
		}
		return nil
	})
	return turnOf, err
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	out := ids[:0]
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// tally accumulates recall@k sums.
type tally struct {
	ks    []int
	sum   map[int][]float64 // category (0: all) → per-k sums
	count map[int]int
}

func newTally(ks []int) *tally {
	return &tally{ks: ks, sum: map[int][]float64{}, count: map[int]int{}}
}

func (t *tally) add(cat int, evidence, retrieved []string) {
	for _, c := range []int{0, cat} {
		if t.sum[c] == nil {
			t.sum[c] = make([]float64, len(t.ks))
		}
		t.count[c]++
		for i, k := range t.ks {
			top := retrieved[:min(k, len(retrieved))]
			n := 0
			for _, e := range evidence {
				if slices.Contains(top, e) {
					n++
				}
			}
			t.sum[c][i] += float64(n) / float64(len(evidence))
		}
	}
}

func (t *tally) scores(cat int) Scores {
	s := Scores{}
	for i, k := range t.ks {
		if t.count[cat] > 0 {
			s[fmt.Sprintf("r@%d", k)] = roundTo(t.sum[cat][i]/float64(t.count[cat]), 3)
		}
	}
	return s
}

func (t *tally) result() Result {
	r := Result{Overall: t.scores(0), ByCategory: map[string]Scores{}}
	for c := range Categories {
		if t.count[c] > 0 {
			r.ByCategory[strconv.Itoa(c)] = t.scores(c)
		}
	}
	return r
}

func roundTo(v float64, digits int) float64 {
	p := 1.0
	for range digits {
		p *= 10
	}
	return float64(int64(v*p+0.5)) / p
}

func percentile(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	i := int(float64(len(s)-1) * p / 100)
	return roundTo(s[i], 2)
}

// JSON is the report as one JSON object.
func (r Report) JSON() ([]byte, error) { return json.Marshal(r) }

// WriteTable prints recall@k of graphmem next to the BM25 baseline,
// overall and per category.
func (r Report) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "LoCoMo evidence recall@k: %d conversations, %d turns, %d questions (× = ratio to BM25 over turns)\n", r.Conversations, r.Turns, r.Questions)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "category\tquestions\t"
	for _, k := range r.Ks {
		head += fmt.Sprintf("R@%d\tBM25 R@%d\t×\t", k, k)
	}
	fmt.Fprintln(tw, head)
	row := func(name string, n int, ours, base Scores) {
		line := fmt.Sprintf("%s\t%d\t", name, n)
		for _, k := range r.Ks {
			key := fmt.Sprintf("r@%d", k)
			ratio := "-"
			if base[key] > 0 {
				ratio = fmt.Sprintf("%.2f", ours[key]/base[key])
			}
			line += fmt.Sprintf("%.3f\t%.3f\t%s\t", ours[key], base[key], ratio)
		}
		fmt.Fprintln(tw, line)
	}
	row("all", r.Questions, r.Overall, r.Baseline.Overall)
	cats := make([]int, 0, len(Categories))
	for c := range Categories {
		cats = append(cats, c)
	}
	slices.SortFunc(cats, cmp.Compare)
	for _, c := range cats {
		key := strconv.Itoa(c)
		if _, ok := r.ByCategory[key]; ok {
			row(fmt.Sprintf("%d %s", c, Categories[c]), r.PerCategory[key], r.ByCategory[key], r.Baseline.ByCategory[key])
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "search latency p50 %.2f ms, p95 %.2f ms\n", r.SearchP50Ms, r.SearchP95Ms)
	return err
}
