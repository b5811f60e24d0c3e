package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/graphmem/graphmem/recall"
)

// TunedWeights are the weights graphmem eval tune fits, in the shape of
// the episode and vector parts of recall's weights file.
type TunedWeights struct {
	Episode recall.EpisodeWeights `json:"episode"`
	Vector  recall.VectorWeights  `json:"vector"`
}

// ReadWeights reads a weights file as GRAPHMEM_RECALL_WEIGHTS does
// (recall.LoadWeights: unknown fields and out-of-range weights refused);
// a part it leaves out keeps its defaults.
func ReadWeights(path string) (TunedWeights, error) {
	w, err := recall.LoadWeights(path)
	if err != nil {
		return TunedWeights{}, err
	}
	return TunedWeights{Episode: w.Episode, Vector: w.Vector}, nil
}

// TuneOptions configure Tune.
type TuneOptions struct {
	// LoCoMoDir holds LoCoMo's conversations; its dev part is tuned on.
	LoCoMoDir string
	// ConversationsDir holds coding-assistant conversations with a
	// parts.json (WriteConversations); when empty, those of
	// ConversationsDevSeed are generated into a temporary folder.
	ConversationsDir string
	// CatalogQuestions asked of the catalog of TuneSeed (200 when 0).
	CatalogQuestions int
	// Start is where the search starts (the defaults when nil).
	Start *TunedWeights
	// Rounds of coordinate descent (2 when 0).
	Rounds int
	// Embeddings, when set, tunes with the vector list on, the vector
	// weights too.
	Embeddings *Embeddings
	// Log, when set, receives a line per step.
	Log io.Writer
}

// TuneRow is one corpus's dev part: recall of BM25 alone (graphmem's
// index with every episode signal off), of the start weights and of the
// fitted ones. For the catalog, hit@1 of the asked fact in place of R@10
// and hit@5 in place of R@5, plain BM25 over facts as BM25 alone.
type TuneRow struct {
	Corpus    string  `json:"corpus"`
	Questions int     `json:"questions"`
	BM25R10   float64 `json:"bm25_r10"`
	BM25R5    float64 `json:"bm25_r5"`
	StartR10  float64 `json:"start_r10"`
	StartR5   float64 `json:"start_r5"`
	TunedR10  float64 `json:"tuned_r10"`
	TunedR5   float64 `json:"tuned_r5"`
}

// TuneReport is the outcome of Tune.
type TuneReport struct {
	Weights TunedWeights `json:"weights"`
	Rows    []TuneRow    `json:"rows"`
	// Objective of the start and of the fitted weights (see objective).
	StartObjective float64 `json:"start_objective"`
	Objective      float64 `json:"objective"`
	Evaluations    int     `json:"evaluations"`
	Seconds        float64 `json:"seconds"`
}

// coordinate is one weight the search moves, over a grid.
type coordinate struct {
	name string
	grid []float64
	ptr  func(*TunedWeights) *float64
}

func episodeCoordinates() []coordinate {
	c := func(name string, ptr func(*recall.EpisodeWeights) *float64, grid ...float64) coordinate {
		return coordinate{name: "episode." + name, grid: grid, ptr: func(w *TunedWeights) *float64 { return ptr(&w.Episode) }}
	}
	return []coordinate{
		c("time_words", func(w *recall.EpisodeWeights) *float64 { return &w.TimeWords }, 0, 0.15, 0.3, 0.5),
		c("prev", func(w *recall.EpisodeWeights) *float64 { return &w.Prev }, 0, 0.1, 0.2, 0.35),
		c("answer", func(w *recall.EpisodeWeights) *float64 { return &w.Answer }, 0, 0.3, 0.6, 0.9),
		c("follow_up", func(w *recall.EpisodeWeights) *float64 { return &w.FollowUp }, 0, 0.15, 0.3, 0.6),
		c("next", func(w *recall.EpisodeWeights) *float64 { return &w.Next }, 0, 0.05, 0.1, 0.2),
		c("session", func(w *recall.EpisodeWeights) *float64 { return &w.Session }, 0, 0.1, 0.2, 0.4),
		c("speaker", func(w *recall.EpisodeWeights) *float64 { return &w.Speaker }, 0, 1, 2, 3),
		c("date", func(w *recall.EpisodeWeights) *float64 { return &w.Date }, 0, 0.5, 1, 2),
		c("mention", func(w *recall.EpisodeWeights) *float64 { return &w.Mention }, 0, 0.1, 0.25, 0.5),
		c("question", func(w *recall.EpisodeWeights) *float64 { return &w.Question }, 0, 0.15, 0.3, 0.5),
		c("length", func(w *recall.EpisodeWeights) *float64 { return &w.Length }, 0, 0.25, 0.5, 0.75),
		c("assistant", func(w *recall.EpisodeWeights) *float64 { return &w.Assistant }, 0, 0.25, 0.5, 0.75),
	}
}

func vectorCoordinates() []coordinate {
	c := func(name string, ptr func(*recall.VectorWeights) *float64, grid ...float64) coordinate {
		return coordinate{name: "vector." + name, grid: grid, ptr: func(w *TunedWeights) *float64 { return ptr(&w.Vector) }}
	}
	return []coordinate{
		c("episode", func(w *recall.VectorWeights) *float64 { return &w.Episode }, 0.25, 0.5, 1),
		c("fact", func(w *recall.VectorWeights) *float64 { return &w.Fact }, 0.25, 0.5, 1),
		c("entity", func(w *recall.VectorWeights) *float64 { return &w.Entity }, 0.15, 0.3, 0.6),
		c("k", func(w *recall.VectorWeights) *float64 { return &w.K }, 5, 10, 20),
	}
}

// tuneCorpus is one conversation corpus's dev part, loaded once.
type tuneCorpus struct {
	name      string
	c         *corpus
	bm25      Scores // BM25 alone
	ks        []int
	questions int
}

// measure asks the corpus through one engine per weights.
func (t *tuneCorpus) measure(ctx context.Context, ws []TunedWeights) ([]Scores, error) {
	engines := make([]*recall.Engine, len(ws))
	for i := range ws {
		engines[i] = &recall.Engine{Store: t.c.w.store, Index: t.c.w.index, Weights: weightsWith(ws[i].Episode, nil)}
		if t.c.vec != nil {
			engines[i].Vectors, engines[i].VectorWait, engines[i].VectorTimeout = t.c.vec.Index, vectorWait, vectorWait
			engines[i].Weights.Vector = ws[i].Vector
		}
	}
	defer func() {
		for _, e := range engines {
			e.Close()
		}
	}()
	res, err := t.c.ask(ctx, engines, t.ks, askOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]Scores, len(res))
	for i, r := range res {
		out[i] = r.result().Overall
	}
	return out, nil
}

// ratios are R@10 and R@5 relative to BM25 alone.
func ratios(s, bm25 Scores) [2]float64 {
	return [2]float64{s["r@10"] / max(bm25["r@10"], 1e-9), s["r@5"] / max(bm25["r@5"], 1e-9)}
}

// objective of the ratios of every corpus: the mean gain over BM25 alone
// (of R@10 and R@5) when no corpus falls below its BM25-alone row, else
// how far the worst falls below it (negative, below any weights that
// keep every row).
func objective(rs [][2]float64) float64 {
	least, sum := math.Inf(1), 0.0
	for _, r := range rs {
		least = min(least, r[0], r[1])
		sum += (r[0] + r[1]) / 2
	}
	if least < 1 {
		return least - 1
	}
	return sum / float64(len(rs))
}

// Tune fits the episode weights (and with embeddings the vector weights)
// by coordinate descent over a grid on the dev parts of LoCoMo and of the
// coding-assistant conversations, and checks the catalog of TuneSeed
// (which holds no episodes: only the vector weights move it). The
// objective is the mean gain over BM25 alone across the corpora, under
// the constraint that no corpus falls below its BM25-alone row in R@10
// or R@5; a value is taken only if it raises the objective.
func Tune(ctx context.Context, o TuneOptions) (TuneReport, error) {
	start := time.Now()
	t := &tuner{ctx: ctx, o: o, catalog: map[recall.VectorWeights]CatalogReport{}}
	cur := TunedWeights{Episode: recall.DefaultEpisodeWeights, Vector: recall.DefaultVectorWeights}
	if o.Start != nil {
		cur = *o.Start
	}
	first := cur
	convDir, cleanup, err := tuneConversations(o)
	if err != nil {
		return TuneReport{}, err
	}
	defer cleanup()
	t.corpora, err = t.loadCorpora(convDir, cur.Vector)
	defer func() {
		for _, c := range t.corpora {
			c.c.close()
		}
	}()
	if err != nil {
		return TuneReport{}, err
	}
	objs, per, err := t.evaluate([]TunedWeights{cur})
	if err != nil {
		return TuneReport{}, err
	}
	rep := TuneReport{StartObjective: objs[0]}
	startPer := per[0]
	t.logf("start: objective %.4f", objs[0])
	best, bestPer := objs[0], startPer
	if cur, best, bestPer, err = t.descend(cur, best, bestPer); err != nil {
		return TuneReport{}, err
	}
	rep.Weights, rep.Objective = cur, best
	if rep.Rows, err = t.rows(first, startPer, bestPer); err != nil {
		return TuneReport{}, err
	}
	rep.Evaluations = t.evaluations
	rep.Seconds = roundTo(time.Since(start).Seconds(), 1)
	return rep, nil
}

// tuneConversations returns the folder of coding-assistant conversations
// to tune on: the options', else those of ConversationsDevSeed generated
// into a temporary folder, which cleanup removes.
func tuneConversations(o TuneOptions) (dir string, cleanup func(), err error) {
	if o.ConversationsDir != "" {
		return o.ConversationsDir, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "graphmem-tune-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	dir = filepath.Join(tmp, "conversations")
	if err := WriteConversations(dir, ConversationsDevSeed, ConversationsTestSeed, ConversationsPerPart); err != nil {
		cleanup()
		return "", nil, err
	}
	return dir, cleanup, nil
}

// tuner measures weights on the dev corpora and on the catalog of
// TuneSeed, counting the evaluations.
type tuner struct {
	ctx     context.Context
	o       TuneOptions
	corpora []*tuneCorpus
	// catalog is the catalog's report by vector weights (it holds no
	// episodes: only those move it).
	catalog     map[recall.VectorWeights]CatalogReport
	evaluations int
}

// logf writes a line to the options' log, when set.
func (t *tuner) logf(format string, args ...any) {
	if t.o.Log != nil {
		fmt.Fprintf(t.o.Log, format+"\n", args...)
	}
}

// loadCorpora loads the dev parts of LoCoMo and of the conversations in
// convDir, each measured with BM25 alone (every episode signal off, the
// vector weights vw). The corpora loaded are returned on an error too.
func (t *tuner) loadCorpora(convDir string, vw recall.VectorWeights) ([]*tuneCorpus, error) {
	// The cut-offs of graphmem eval locomo: the search limit is the largest,
	// and R@10 at limit 20 is the figure reported (a limit of 10 ranks the
	// first ten differently).
	ks := []int{5, 10, 20}
	var corpora []*tuneCorpus
	for _, src := range []struct{ name, dir string }{{"LoCoMo dev", t.o.LoCoMoDir}, {"coding-assistant dev", convDir}} {
		c, err := loadCorpus(t.ctx, src.dir, PartDev, "", nil, t.o.Embeddings)
		if err != nil {
			return corpora, fmt.Errorf("%s: %w", src.name, err)
		}
		tc := &tuneCorpus{name: src.name, c: c, ks: ks, questions: c.questions()}
		corpora = append(corpora, tc)
		s, err := tc.measure(t.ctx, []TunedWeights{{Vector: vw}})
		if err != nil {
			return corpora, err
		}
		tc.bm25 = s[0]
		t.logf("%s: %d questions, BM25 alone R@10 %.3f R@5 %.3f", tc.name, tc.questions, tc.bm25["r@10"], tc.bm25["r@5"])
	}
	return corpora, nil
}

// catalogOf is the catalog's report with the vector weights vw, measured
// once (every vector waited for: the weights are judged, not the
// embedder).
func (t *tuner) catalogOf(vw recall.VectorWeights) (CatalogReport, error) {
	if r, ok := t.catalog[vw]; ok {
		return r, nil
	}
	r, err := Catalog(t.ctx, CatalogOptions{Seed: TuneSeed, Questions: t.o.CatalogQuestions, Embeddings: t.o.Embeddings, VectorWeights: &vw,
		VectorWait: vectorWait})
	if err != nil {
		return r, fmt.Errorf("catalog: %w", err)
	}
	t.evaluations++
	t.catalog[vw] = r
	return r, nil
}

// catalogScores are the catalog's hit@1 and hit@5, as R@10 and R@5, of
// graphmem (with vectors when on) and of plain BM25.
func catalogScores(r CatalogReport) (ours, base Scores) {
	g := r.Graphmem
	if r.Vectors != nil {
		g = *r.Vectors
	}
	return Scores{"r@10": g.Hit1, "r@5": g.Hit5}, Scores{"r@10": r.Baseline.Hit1, "r@5": r.Baseline.Hit5}
}

// evaluate measures candidates and returns each one's objective and the
// scores per corpus (the catalog last).
func (t *tuner) evaluate(ws []TunedWeights) ([]float64, [][]Scores, error) {
	rs := make([][][2]float64, len(ws))
	per := make([][]Scores, len(ws))
	for _, tc := range t.corpora {
		s, err := tc.measure(t.ctx, ws)
		if err != nil {
			return nil, nil, err
		}
		t.evaluations += len(ws)
		for i := range ws {
			rs[i] = append(rs[i], ratios(s[i], tc.bm25))
			per[i] = append(per[i], s[i])
		}
	}
	obj := make([]float64, len(ws))
	for i, w := range ws {
		r, err := t.catalogOf(w.Vector)
		if err != nil {
			return nil, nil, err
		}
		ours, base := catalogScores(r)
		rs[i] = append(rs[i], ratios(ours, base))
		per[i] = append(per[i], ours)
		obj[i] = objective(rs[i])
	}
	return obj, per, nil
}

// descend runs the coordinate descent from cur (objective best, scores
// bestPer): each round tries every value of each coordinate's grid and
// keeps one that raises the objective; it stops after a round that moved
// nothing, or after the options' rounds (2 when 0).
func (t *tuner) descend(cur TunedWeights, best float64, bestPer []Scores) (TunedWeights, float64, []Scores, error) {
	coords := episodeCoordinates()
	if t.o.Embeddings != nil {
		coords = append(coords, vectorCoordinates()...)
	}
	rounds := t.o.Rounds
	if rounds == 0 {
		rounds = 2
	}
	for round := range rounds {
		moved := false
		for _, c := range coords {
			cands := c.others(cur)
			objs, per, err := t.evaluate(cands)
			if err != nil {
				return cur, best, bestPer, err
			}
			for i, ob := range objs {
				if ob > best+1e-9 {
					best, bestPer, cur, moved = ob, per[i], cands[i], true
				}
			}
			t.logf("round %d %-20s = %-5g objective %.4f", round+1, c.name, *c.ptr(&cur), best)
		}
		if !moved {
			break
		}
	}
	return cur, best, bestPer, nil
}

// others are cur with the coordinate set to each other value of its grid.
func (c coordinate) others(cur TunedWeights) []TunedWeights {
	var out []TunedWeights
	for _, v := range c.grid {
		if v == *c.ptr(&cur) {
			continue
		}
		w := cur
		*c.ptr(&w) = v
		out = append(out, w)
	}
	return out
}

// rows are each corpus's figures: BM25 alone, the start weights (first,
// scores startPer) and the fitted ones (bestPer), the catalog last.
func (t *tuner) rows(first TunedWeights, startPer, bestPer []Scores) ([]TuneRow, error) {
	var rows []TuneRow
	for i, tc := range t.corpora {
		rows = append(rows, TuneRow{Corpus: tc.name, Questions: tc.questions, BM25R10: tc.bm25["r@10"], BM25R5: tc.bm25["r@5"],
			StartR10: startPer[i]["r@10"], StartR5: startPer[i]["r@5"], TunedR10: bestPer[i]["r@10"], TunedR5: bestPer[i]["r@5"]})
	}
	cr, err := t.catalogOf(first.Vector)
	if err != nil {
		return nil, err
	}
	_, base := catalogScores(cr)
	n := len(t.corpora)
	return append(rows, TuneRow{Corpus: fmt.Sprintf("catalog seed %d (hit@1, hit@5)", TuneSeed), Questions: cr.Questions,
		BM25R10: base["r@10"], BM25R5: base["r@5"], StartR10: startPer[n]["r@10"], StartR5: startPer[n]["r@5"],
		TunedR10: bestPer[n]["r@10"], TunedR5: bestPer[n]["r@5"]}), nil
}

// JSON is the report as one JSON object.
func (r TuneReport) JSON() ([]byte, error) { return json.Marshal(r) }

// WriteTable prints each corpus's dev figures: BM25 alone, the start and
// the fitted weights.
func (r TuneReport) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "graphmem eval tune: dev parts only; objective (mean gain over BM25 alone of R@10 and R@5, every row kept) %.4f → %.4f; %d evaluations in %.0f s\n",
		r.StartObjective, r.Objective, r.Evaluations, r.Seconds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "corpus\tquestions\tBM25 alone R@10\tR@5\tstart R@10\tR@5\ttuned R@10\tR@5\t")
	for _, row := range r.Rows {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", row.Corpus, row.Questions, row.BM25R10, row.BM25R5,
			row.StartR10, row.StartR5, row.TunedR10, row.TunedR5)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r.Weights, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "weights:\n%s\n", b)
	return err
}
