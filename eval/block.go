package eval

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/recall"
)

// Evidence recall inside the context block: search's recall@k says what
// a ranked list holds, but an agent's prompt holds the block POST
// /v1/context packs into max_tokens. For each question the block is
// built at each of BlockBudgets, and its recall is the share of the
// question's evidence turns quoted in it (or the source of a fact in it).

// BlockBudgets are the max_tokens the block is measured at.
var BlockBudgets = []int{500, 1000, 2000}

// BlockRecall is evidence recall inside the block at one budget.
type BlockRecall struct {
	MaxTokens int `json:"max_tokens"`
	// Recall is the mean over the questions of the share of their
	// evidence turns in the block; ByCategory the same per category.
	Recall     float64            `json:"recall"`
	ByCategory map[string]float64 `json:"by_category"`
	// Tokens is the blocks' mean estimated size.
	Tokens float64 `json:"mean_tokens"`
	// Questions whose evidence spans several sessions: how many, their
	// block recall, the share whose block holds an evidence turn of each
	// of their sessions, and search's R@10 over them (the same at every
	// budget).
	SeveralSessions     int     `json:"several_sessions"`
	SeveralRecall       float64 `json:"several_sessions_recall"`
	EachSession         float64 `json:"each_session"`
	SeveralSearchRecall float64 `json:"several_sessions_search_r@10"`
}

// blockTally accumulates block recall per budget and category (0: all),
// and over the questions whose evidence spans several sessions.
type blockTally struct {
	sum    [][]float64 // budget → category → summed recall
	count  []int       // category → questions
	tokens []int       // budget → summed tokens
	// several: questions of several sessions; severalSum and each their
	// summed recall and blocks with a turn of each session, by budget;
	// severalSearch their summed search R@10.
	several       int
	severalSum    []float64
	each          []int
	severalSearch float64
}

func newBlockTally() *blockTally {
	t := &blockTally{count: make([]int, len(Categories)+1), tokens: make([]int, len(BlockBudgets)),
		severalSum: make([]float64, len(BlockBudgets)), each: make([]int, len(BlockBudgets))}
	for range BlockBudgets {
		t.sum = append(t.sum, make([]float64, len(Categories)+1))
	}
	return t
}

// ask builds q's block at every budget through eng and tallies the share
// of its evidence turns (ev) in it; turnOf maps episode ids to turns,
// sessionOf turns to their sessions.
func (t *blockTally) ask(ctx context.Context, eng *recall.Engine, scope entity.Scope, q string, cat int, ev []string,
	turnOf map[string]string, sessionOf map[string]int) error {
	for _, c := range []int{0, cat} {
		t.count[c]++
	}
	sessions := evidenceSessions(ev, ev, sessionOf)
	if sessions > 1 {
		t.several++
		res, err := eng.Search(ctx, scope, recall.SearchRequest{Query: q, Limit: 10})
		if err != nil {
			return err
		}
		t.severalSearch += evidenceShare(retrievedTurns(res, turnOf), ev)
	}
	for i, budget := range BlockBudgets {
		res, err := eng.Context(ctx, scope, recall.ContextRequest{Query: q, MaxTokens: budget})
		if err != nil {
			return err
		}
		in := blockTurns(res, turnOf)
		sh := evidenceShare(in, ev)
		for _, c := range []int{0, cat} {
			t.sum[i][c] += sh
		}
		t.tokens[i] += res.Tokens
		if sessions > 1 {
			t.severalSum[i] += sh
			if evidenceSessions(in, ev, sessionOf) == sessions {
				t.each[i]++
			}
		}
	}
	return nil
}

// evidenceSessions counts the sessions of the evidence turns (ev) among
// turns.
func evidenceSessions(turns, ev []string, sessionOf map[string]int) int {
	seen := map[int]bool{}
	for _, id := range turns {
		if slices.Contains(ev, id) {
			seen[sessionOf[id]] = true
		}
	}
	return len(seen)
}

// evidenceShare is the share of the evidence turns among turns.
func evidenceShare(turns, ev []string) float64 {
	n := 0
	for _, id := range ev {
		if slices.Contains(turns, id) {
			n++
		}
	}
	return float64(n) / float64(len(ev))
}

// blockTurns are the turns a block holds: quoted episodes, and the
// source episodes of its facts.
func blockTurns(res recall.ContextResult, turnOf map[string]string) []string {
	var in []string
	for _, e := range res.Episodes {
		in = append(in, turnOf[e.Episode.ID])
	}
	for _, f := range res.Facts {
		for _, id := range f.Fact.EpisodeIDs {
			in = append(in, turnOf[id])
		}
	}
	return dedupe(in)
}

// blockRecall builds the block of every scored question of the corpus
// through eng, at every budget.
func (c *corpus) blockRecall(ctx context.Context, eng *recall.Engine) ([]BlockRecall, error) {
	t := newBlockTally()
	for ci := range c.convs {
		cv := &c.convs[ci]
		sessionOf := make(map[string]int, len(cv.turns))
		for _, tn := range cv.turns {
			sessionOf[tn.DiaID] = tn.session
		}
		for _, q := range cv.questions {
			if !q.scored() {
				continue
			}
			if err := t.ask(ctx, eng, entity.Scope(cv.scope), q.Question, q.Category, q.evidence(), cv.turnOf, sessionOf); err != nil {
				return nil, err
			}
		}
	}
	return t.result(), nil
}

func (t *blockTally) result() []BlockRecall {
	out := make([]BlockRecall, len(BlockBudgets))
	for i, budget := range BlockBudgets {
		r := BlockRecall{MaxTokens: budget, ByCategory: map[string]float64{}}
		if t.count[0] > 0 {
			r.Recall = roundTo(t.sum[i][0]/float64(t.count[0]), 3)
			r.Tokens = roundTo(float64(t.tokens[i])/float64(t.count[0]), 1)
		}
		for c := range Categories {
			if t.count[c] > 0 {
				r.ByCategory[strconv.Itoa(c)] = roundTo(t.sum[i][c]/float64(t.count[c]), 3)
			}
		}
		if r.SeveralSessions = t.several; t.several > 0 {
			n := float64(t.several)
			r.SeveralRecall = roundTo(t.severalSum[i]/n, 3)
			r.EachSession = roundTo(float64(t.each[i])/n, 3)
			r.SeveralSearchRecall = roundTo(t.severalSearch/n, 3)
		}
		out[i] = r
	}
	return out
}

// writeBlock prints block recall per budget, with and without vectors
// and with BM25 alone, next to search's R@10 of the same configuration;
// then the same over the questions whose evidence spans several
// sessions, with the share of their blocks that hold an evidence turn of
// each session.
func writeBlock(w io.Writer, r Report) error {
	if len(r.Block) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nevidence recall inside the context block (POST /v1/context at max_tokens; search R@10 of the same engine beside it):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	cats := slices.Sorted(func(yield func(int) bool) {
		for c := range Categories {
			if !yield(c) {
				return
			}
		}
	})
	head := "configuration\tmax_tokens\tmean tokens\tblock recall\t"
	for _, c := range cats {
		head += Categories[c] + "\t"
	}
	fmt.Fprintln(tw, head+"search R@10\t")
	type config struct {
		name   string
		block  []BlockRecall
		search Result
	}
	configs := []config{{"graphmem", r.Block, r.Result}}
	if r.Vectors != nil && len(r.BlockVectors) > 0 {
		configs = append(configs, config{"graphmem + vectors", r.BlockVectors, *r.Vectors})
	}
	if len(r.BlockBM25) > 0 && len(r.Ablation) > 0 {
		configs = append(configs, config{r.Ablation[0].Name, r.BlockBM25, r.Ablation[0].Result})
	}
	for _, cf := range configs {
		for _, b := range cf.block {
			line := fmt.Sprintf("%s\t%d\t%.0f\t%.3f\t", cf.name, b.MaxTokens, b.Tokens, b.Recall)
			for _, c := range cats {
				line += fmt.Sprintf("%.3f\t", b.ByCategory[strconv.Itoa(c)])
			}
			fmt.Fprintln(tw, line+fmt.Sprintf("%.3f\t", cf.search.Overall["r@10"]))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Block[0].SeveralSessions == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nquestions whose evidence spans several sessions (%d): block recall, blocks with an evidence turn of each session, search R@10:\n",
		r.Block[0].SeveralSessions)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "configuration\tmax_tokens\tblock recall\teach session\tsearch R@10\t")
	for _, cf := range configs {
		for _, b := range cf.block {
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t\n", cf.name, b.MaxTokens, b.SeveralRecall, b.EachSession, b.SeveralSearchRecall)
		}
	}
	return tw.Flush()
}
