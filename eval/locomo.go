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
	"github.com/graphmem/graphmem/recall"
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
	// Store, when set, holds the conversations instead of an embedded
	// store in WorkDir (their scopes must be empty).
	Store graph.Store
	// Progress, when set, is called after each question.
	Progress func(done, total int)
	// Part is PartDev, PartTest (the default) or PartAll.
	Part string
	// Weights replace recall.DefaultEpisodeWeights (for tuning on the dev
	// part).
	Weights *recall.EpisodeWeights
	// VectorWeights replace recall.DefaultVectorWeights in the
	// configuration with vectors (for tuning on the dev part).
	VectorWeights *recall.VectorWeights
	// NoAblation measures only the reported configuration.
	NoAblation bool
	// NoBlock leaves out evidence recall inside the context block
	// (block.go).
	NoBlock bool
	// Embeddings, when set, adds the reported configuration with the
	// vector list (episodes embedded as the follower would).
	Embeddings *Embeddings
	// Misses, when set, receives each question of the reported
	// configuration (with vectors when Embeddings is set) that left an
	// evidence turn out of its first MissK results, with the evidence
	// and the turns found instead. Read it on the dev part only.
	Misses io.Writer
	// MissK is the cut-off of Misses (default 10).
	MissK int
}

// Parts of the LoCoMo conversations: weights are tuned on the dev part
// only, and figures are reported on the test part.
const (
	PartDev  = "dev"
	PartTest = "test"
	PartAll  = "all" // every conversation in the folder
)

// Parts names the conversations of each part.
var Parts = map[string][]string{
	PartDev:  {"26", "30", "41"},
	PartTest: {"42", "43", "44", "47"},
}

// Categories of LoCoMo questions scored here (5, adversarial, has no
// evidence and is left out).
var Categories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

// Scores maps "r@k" to recall@k and "p@k" to precision@k (the share of
// the first k results that are evidence turns).
type Scores map[string]float64

// Result is recall@k overall and per category.
type Result struct {
	Overall    Scores            `json:"overall"`
	ByCategory map[string]Scores `json:"by_category"`
}

// Report is the outcome of a LoCoMo run.
type Report struct {
	Result
	Part              string   `json:"part"`
	ConversationNames []string `json:"conversation_names"`
	// Weights are the episode weights of the reported configuration.
	Weights recall.EpisodeWeights `json:"weights"`
	// Ablation is recall@k with groups of signals turned off; its last row
	// is Result.
	Ablation  []AblationRow `json:"ablation"`
	Questions int           `json:"questions"`
	// PerCategory counts questions per category.
	PerCategory   map[string]int `json:"questions_by_category"`
	Baseline      Result         `json:"baseline"`
	Conversations int            `json:"conversations"`
	Turns         int            `json:"turns"`
	Ks            []int          `json:"ks"`
	// SearchP50Ms and SearchP95Ms are the latencies of recall.Engine.Search.
	SearchP50Ms float64 `json:"search_p50_ms"`
	SearchP95Ms float64 `json:"search_p95_ms"`
	// Vectors is the reported configuration with embeddings (the vector
	// list fused in), its search latency and what embedding cost.
	Vectors            *Result `json:"vectors,omitempty"`
	VectorsSearchP50Ms float64 `json:"vectors_search_p50_ms,omitempty"`
	VectorsSearchP95Ms float64 `json:"vectors_search_p95_ms,omitempty"`
	// VectorsMissed counts the questions answered without the vector
	// list all the same (their embedding failed): the row with vectors
	// holds only if it is 0.
	VectorsMissed uint64     `json:"vectors_missed,omitempty"`
	Embedding     *EmbedCost `json:"embedding,omitempty"`
	// Block and BlockVectors are evidence recall inside the context block
	// of the reported configuration, without and with vectors (block.go).
	Block        []BlockRecall `json:"block,omitempty"`
	BlockVectors []BlockRecall `json:"block_vectors,omitempty"`
	// BlockBM25 is the same with the ablation's first configuration,
	// BM25 alone: the block of a search without episode signals.
	BlockBM25 []BlockRecall `json:"block_bm25,omitempty"`
}

// AblationRow is recall@k of one configuration.
type AblationRow struct {
	Name string `json:"name"`
	Result
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

// partsFile, in a folder of conversations, names the conversations of
// each part ({"dev": ["26", …], "test": […]}); a folder without one is
// LoCoMo's, split as Parts says.
const partsFile = "parts.json"

// partFiles returns the conversation files of a part of the folder dir,
// in name order.
func partFiles(dir, part string) ([]string, error) {
	parts := Parts
	if b, err := os.ReadFile(filepath.Join(dir, partsFile)); err == nil {
		parts = nil
		if err := json.Unmarshal(b, &parts); err != nil {
			return nil, entity.Errorf(entity.EINVALID, "%s: %v", filepath.Join(dir, partsFile), err)
		}
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	names, ok := parts[part]
	if !ok && part != PartAll {
		return nil, entity.Errorf(entity.EINVALID, "part must be dev, test or all, not %q", part)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	files = slices.DeleteFunc(files, func(f string) bool { return filepath.Base(f) == partsFile })
	if err != nil || len(files) == 0 {
		return nil, entity.Errorf(entity.ENOTFOUND, "no conversations (*.json) in %s", dir)
	}
	sort.Strings(files)
	if names == nil {
		return files, nil
	}
	files = slices.DeleteFunc(files, func(f string) bool {
		return !slices.Contains(names, strings.TrimSuffix(filepath.Base(f), ".json"))
	})
	if len(files) != len(names) {
		return nil, entity.Errorf(entity.ENOTFOUND, "the %s part needs conversations %v in %s", part, names, dir)
	}
	return files, nil
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
	if ks[len(ks)-1] > entity.MaxSearchLimit {
		return Report{}, entity.Errorf(entity.EINVALID, "k at most %d", entity.MaxSearchLimit)
	}
	if o.Part == "" {
		o.Part = PartTest
	}
	weights := recall.DefaultEpisodeWeights
	if o.Weights != nil {
		weights = *o.Weights
	}
	// The ablation: the same engine with groups of signals turned off.
	// The last configuration is the reported one.
	configs := ablation(weights)
	if o.NoAblation {
		configs = configs[len(configs)-1:]
	}
	c, err := loadCorpus(ctx, o.DataDir, o.Part, o.WorkDir, o.Store, o.Embeddings)
	if err != nil {
		return Report{}, err
	}
	defer c.close()
	var engines []*recall.Engine
	for i := range configs {
		engines = append(engines, &recall.Engine{Store: c.w.store, Index: c.w.index, Weights: weightsWith(configs[i].weights, nil)})
	}
	// With embeddings: the reported configuration once more, with the
	// vector list.
	var engV *recall.Engine
	if c.vec != nil {
		engV = &recall.Engine{Store: c.w.store, Index: c.w.index, Weights: weightsWith(weights, o.VectorWeights), Vectors: c.vec.Index,
			VectorWait: vectorWait, VectorTimeout: vectorWait}
		engines = append(engines, engV)
	}
	defer func() {
		for _, e := range engines {
			e.Close()
		}
	}()
	res, err := c.ask(ctx, engines, ks, askOptions{misses: o.Misses, missK: o.MissK, progress: o.Progress})
	if err != nil {
		return Report{}, err
	}
	rep := Report{Ks: ks, Part: o.Part, Conversations: len(c.convs), PerCategory: c.perCategory(), Weights: weights,
		Questions: c.questions(), Turns: c.turns()}
	for _, cv := range c.convs {
		rep.ConversationNames = append(rep.ConversationNames, cv.name)
	}
	rep.Baseline = c.baseline(ks).result()
	for i, cfg := range configs {
		rep.Ablation = append(rep.Ablation, AblationRow{Name: cfg.name, Result: res[i].result()})
	}
	last := res[len(configs)-1]
	rep.Result = last.result()
	rep.SearchP50Ms, rep.SearchP95Ms = percentile(last.latency, 50), percentile(last.latency, 95)
	if !o.NoBlock {
		if rep.Block, err = c.blockRecall(ctx, engines[len(configs)-1]); err != nil {
			return Report{}, err
		}
		if len(configs) > 1 {
			if rep.BlockBM25, err = c.blockRecall(ctx, engines[0]); err != nil {
				return Report{}, err
			}
		}
		if engV != nil {
			if rep.BlockVectors, err = c.blockRecall(ctx, engV); err != nil {
				return Report{}, err
			}
		}
	}
	if engV != nil {
		tv := res[len(res)-1]
		r := tv.result()
		rep.Vectors = &r
		rep.VectorsSearchP50Ms, rep.VectorsSearchP95Ms = percentile(tv.latency, 50), percentile(tv.latency, 95)
		_, rep.VectorsMissed = engV.VectorUse()
		cost, err := c.vec.cost()
		if err != nil {
			return Report{}, err
		}
		rep.Embedding = &cost
	}
	return rep, nil
}

// corpus is a part of a folder of conversations loaded into a workspace,
// each conversation in its own scope, ready to be asked.
type corpus struct {
	w     *workspace
	vec   *vectors // nil without embeddings
	convs []loadedConversation
}

type loadedConversation struct {
	conversation
	scope  string
	turnOf map[string]string // episode id → dia_id
}

// loadCorpus reads the conversations of a part of dir and writes them as
// episodes into a workspace (in workDir; a temporary one when empty; into
// store when set), embedding them too when emb is set.
func loadCorpus(ctx context.Context, dir, part, workDir string, store graph.Store, emb *Embeddings) (*corpus, error) {
	files, err := partFiles(dir, part)
	if err != nil {
		return nil, err
	}
	w, err := openWorkspace(workDir, "graphmem-locomo-", store)
	if err != nil {
		return nil, err
	}
	c := &corpus{w: w}
	if emb != nil {
		if c.vec, err = newVectors(*emb, w.dir); err != nil {
			c.close()
			return nil, err
		}
	}
	for _, f := range files {
		cv, err := loadConversation(f)
		if err != nil {
			c.close()
			return nil, err
		}
		l := loadedConversation{conversation: cv, scope: "locomo:" + cv.name}
		if l.turnOf, err = loadEpisodes(ctx, w.store, l.scope, cv.turns); err != nil {
			c.close()
			return nil, err
		}
		if _, err := w.index.Sync(ctx, w.store); err != nil {
			c.close()
			return nil, err
		}
		if c.vec != nil {
			if err := c.vec.catchUp(ctx, w.store); err != nil {
				c.close()
				return nil, err
			}
		}
		c.convs = append(c.convs, l)
	}
	return c, nil
}

func (c *corpus) close() {
	if c.vec != nil {
		c.vec.Close()
	}
	c.w.close()
}

// scored reports whether q is scored: of categories 1–4, with evidence.
func (q *question) scored() bool { return Categories[q.Category] != "" && len(q.evidence()) > 0 }

func (c *corpus) questions() int {
	n := 0
	for _, cv := range c.convs {
		for _, q := range cv.questions {
			if q.scored() {
				n++
			}
		}
	}
	return n
}

func (c *corpus) perCategory() map[string]int {
	out := map[string]int{}
	for _, cv := range c.convs {
		for _, q := range cv.questions {
			if q.scored() {
				out[strconv.Itoa(q.Category)]++
			}
		}
	}
	return out
}

func (c *corpus) turns() int {
	n := 0
	for _, cv := range c.convs {
		n += len(cv.turns)
	}
	return n
}

// baseline is plain BM25 over the turns of each conversation.
func (c *corpus) baseline(ks []int) *tally {
	t := newTally(ks)
	maxK := ks[len(ks)-1]
	for _, cv := range c.convs {
		docs := make([]string, len(cv.turns))
		for i, tn := range cv.turns {
			docs[i] = tn.Speaker + ": " + tn.content() // the text graphmem indexes
		}
		b := newBM25(docs)
		for _, q := range cv.questions {
			if !q.scored() {
				continue
			}
			var got []string
			for _, i := range b.rank(q.Question)[:min(maxK, len(cv.turns))] {
				got = append(got, cv.turns[i].DiaID)
			}
			t.add(q.Category, q.evidence(), got)
		}
	}
	return t
}

// askOptions: misses of the last engine are written to misses (cut-off
// missK); progress is called after each question.
type askOptions struct {
	misses   io.Writer
	missK    int
	progress func(done, total int)
}

// ask puts every scored question to each engine and tallies recall@k of
// each, with its search latencies.
func (c *corpus) ask(ctx context.Context, engines []*recall.Engine, ks []int, o askOptions) ([]*tally, error) {
	out := make([]*tally, len(engines))
	for i := range out {
		out[i] = newTally(ks)
	}
	maxK, total, done := ks[len(ks)-1], c.questions(), 0
	for ci := range c.convs {
		cv := &c.convs[ci]
		for _, q := range cv.questions {
			if !q.scored() {
				continue
			}
			for i, eng := range engines {
				start := time.Now()
				res, err := eng.Search(ctx, cv.scope, recall.SearchRequest{Query: q.Question, Limit: maxK})
				if err != nil {
					return nil, err
				}
				out[i].latency = append(out[i].latency, float64(time.Since(start).Microseconds())/1000)
				got := retrievedTurns(res, cv.turnOf)
				out[i].add(q.Category, q.evidence(), got)
				if i == len(engines)-1 && o.misses != nil {
					missedTurns(o.misses, &cv.conversation, q, got, o.missK)
				}
			}
			done++
			if o.progress != nil {
				o.progress(done, total)
			}
		}
	}
	return out, nil
}

// missedTurns writes q to w when an evidence turn is not among the first k
// turns retrieved (got): the question, its answer, each evidence turn
// with its rank (or "-"), then the turns found first.
func missedTurns(w io.Writer, c *conversation, q question, got []string, k int) {
	if k <= 0 {
		k = 10
	}
	top := got[:min(k, len(got))]
	ev := q.evidence()
	if !slices.ContainsFunc(ev, func(id string) bool { return !slices.Contains(top, id) }) {
		return
	}
	text := make(map[string]string, len(c.turns))
	for _, t := range c.turns {
		text[t.DiaID] = fmt.Sprintf("%s (%s): %s", t.Speaker, t.date.Format("2006-01-02"), t.content())
	}
	fmt.Fprintf(w, "MISS %s %s %q → %s\n", c.name, Categories[q.Category], q.Question, q.Answer)
	for _, id := range ev {
		rank := "-"
		if i := slices.Index(got, id); i >= 0 {
			rank = strconv.Itoa(i + 1)
		}
		fmt.Fprintf(w, "  want %s rank %s  %s\n", id, rank, text[id])
	}
	for i, id := range top[:min(5, len(top))] {
		if !slices.Contains(ev, id) {
			fmt.Fprintf(w, "  got  %d %s  %s\n", i+1, id, text[id])
		}
	}
}

// retrievedTurns are the distinct turns of a search's hits, in rank order:
// an episode's own, a fact's source turns.
func retrievedTurns(res recall.SearchResult, turnOf map[string]string) []string {
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
	return dedupe(got)
}

// config is one row of the ablation.
type config struct {
	name    string
	weights recall.EpisodeWeights
}

// ablation turns groups of episode signals off: BM25 alone (graphmem's own
// index and analyzer), with the conversation structure (neighbouring turns
// and sessions), with the mention graph, with the turn's form (a question,
// a short turn), and with everything (those three, plus the speaker, dates
// and time words the question names).
func ablation(all recall.EpisodeWeights) []config {
	bm25 := recall.EpisodeWeights{}
	structure := bm25
	structure.Prev, structure.Answer, structure.FollowUp, structure.Next, structure.Session = all.Prev, all.Answer, all.FollowUp, all.Next, all.Session
	mentions := bm25
	mentions.Mention = all.Mention
	form := bm25
	form.Question, form.Length, form.TimeWords, form.Assistant = all.Question, all.Length, all.TimeWords, all.Assistant
	return []config{
		{"BM25 alone", bm25},
		{"+ conversation structure", structure},
		{"+ mention graph", mentions},
		{"+ turn form (question, length, time, role)", form},
		{"+ everything", all},
	}
}

// loadEpisodes writes one episode per turn, in order, and returns the turn
// id of each episode id.
func loadEpisodes(ctx context.Context, store graph.Store, scope string, turns []turn) (map[string]string, error) {
	turnOf := make(map[string]string, len(turns))
	now := time.Now().UTC()
	eps := make([]entity.Episode, len(turns))
	for i, t := range turns {
		id := uuid.Must(uuid.NewV7()).String() // sorts by creation: turn order within a session
		role := entity.RoleUser
		if t.Speaker == entity.RoleAssistant { // a user/assistant conversation, as an agent sends it
			role = entity.RoleAssistant
		}
		eps[i] = entity.Episode{
			ID: id, Scope: scope, Kind: entity.KindMessage, Content: t.content(), Speaker: t.Speaker,
			Role: role, ReferenceTime: t.date, RecordedAt: now, SourceKind: entity.UserExplicit,
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

// tally accumulates recall@k and precision@k sums.
type tally struct {
	ks        []int
	sum, prec map[int][]float64 // category (0: all) → per-k sums
	count     map[int]int
	latency   []float64 // ms of each search
}

func newTally(ks []int) *tally {
	return &tally{ks: ks, sum: map[int][]float64{}, prec: map[int][]float64{}, count: map[int]int{}}
}

func (t *tally) add(cat int, evidence, retrieved []string) {
	for _, c := range []int{0, cat} {
		if t.sum[c] == nil {
			t.sum[c], t.prec[c] = make([]float64, len(t.ks)), make([]float64, len(t.ks))
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
			t.prec[c][i] += float64(n) / float64(k)
		}
	}
}

func (t *tally) scores(cat int) Scores {
	s := Scores{}
	for i, k := range t.ks {
		if t.count[cat] > 0 {
			s[fmt.Sprintf("r@%d", k)] = roundTo(t.sum[cat][i]/float64(t.count[cat]), 3)
			s[fmt.Sprintf("p@%d", k)] = roundTo(t.prec[cat][i]/float64(t.count[cat]), 3)
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
	fmt.Fprintf(w, "LoCoMo evidence recall@k, %s part (conversations %s): %d turns, %d questions (× = ratio to BM25 over turns)\n",
		r.Part, strings.Join(r.ConversationNames, ", "), r.Turns, r.Questions)
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
	// Precision@k in the recall@k columns: the share of the first k
	// results that are evidence turns.
	prec := func(s Scores) Scores {
		out := Scores{}
		for _, k := range r.Ks {
			out[fmt.Sprintf("r@%d", k)] = s[fmt.Sprintf("p@%d", k)]
		}
		return out
	}
	row("all, P@k", r.Questions, prec(r.Overall), prec(r.Baseline.Overall))
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
	if v := r.Vectors; v != nil {
		row("all, with vectors", r.Questions, v.Overall, r.Baseline.Overall)
		for _, c := range cats {
			key := strconv.Itoa(c)
			if _, ok := v.ByCategory[key]; ok {
				row(fmt.Sprintf("%d %s, with vectors", c, Categories[c]), r.PerCategory[key], v.ByCategory[key], r.Baseline.ByCategory[key])
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Ablation) > 0 {
		fmt.Fprintf(w, "\nablation (graphmem's search with groups of episode signals on; R@k overall and multi-hop):\n")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		head := "configuration\t"
		for _, k := range r.Ks {
			head += fmt.Sprintf("R@%d\t", k)
		}
		for _, k := range r.Ks {
			head += fmt.Sprintf("multi-hop R@%d\t", k)
		}
		fmt.Fprintln(tw, head)
		rows := append([]AblationRow{{Name: "plain BM25 over turns (baseline)", Result: r.Baseline}}, r.Ablation...)
		for _, a := range rows {
			line := a.Name + "\t"
			for _, k := range r.Ks {
				line += fmt.Sprintf("%.3f\t", a.Overall[fmt.Sprintf("r@%d", k)])
			}
			for _, k := range r.Ks {
				line += fmt.Sprintf("%.3f\t", a.ByCategory["1"][fmt.Sprintf("r@%d", k)])
			}
			fmt.Fprintln(tw, line)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if err := writeBlock(w, r); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "search latency p50 %.2f ms, p95 %.2f ms\n", r.SearchP50Ms, r.SearchP95Ms)
	if c := r.Embedding; c != nil && err == nil {
		_, err = fmt.Fprintf(w, "with vectors: search p50 %.2f ms, p95 %.2f ms (the question embedded each time); %d vectors, %d texts embedded in %.1f s (%.1f per second), index file %.1f MB; %d questions answered without their vector\n",
			r.VectorsSearchP50Ms, r.VectorsSearchP95Ms, c.Texts, c.Embedded, c.Seconds, c.PerSecond, float64(c.IndexBytes)/1e6, r.VectorsMissed)
	}
	return err
}
