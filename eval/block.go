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
}

// blockTally accumulates block recall per budget and category (0: all).
type blockTally struct {
	sum    [][]float64 // budget → category → summed recall
	count  []int       // category → questions
	tokens []int       // budget → summed tokens
}

func newBlockTally() *blockTally {
	t := &blockTally{count: make([]int, len(Categories)+1), tokens: make([]int, len(BlockBudgets))}
	for range BlockBudgets {
		t.sum = append(t.sum, make([]float64, len(Categories)+1))
	}
	return t
}

// ask builds q's block at every budget through eng and tallies the share
// of its evidence turns (ev) in it; turnOf maps episode ids to turns.
func (t *blockTally) ask(ctx context.Context, eng *recall.Engine, scope entity.Scope, q string, cat int, ev []string,
	turnOf map[string]string) error {
	for _, c := range []int{0, cat} {
		t.count[c]++
	}
	for i, budget := range BlockBudgets {
		res, err := eng.Context(ctx, scope, recall.ContextRequest{Query: q, MaxTokens: budget})
		if err != nil {
			return err
		}
		share := blockShare(res, ev, turnOf)
		for _, c := range []int{0, cat} {
			t.sum[i][c] += share
		}
		t.tokens[i] += res.Tokens
	}
	return nil
}

// blockShare is the share of the evidence turns a block holds: quoted
// episodes, and the source episodes of its facts.
func blockShare(res recall.ContextResult, ev []string, turnOf map[string]string) float64 {
	in := map[string]bool{}
	for _, e := range res.Episodes {
		in[turnOf[e.Episode.ID]] = true
	}
	for _, f := range res.Facts {
		for _, id := range f.Fact.EpisodeIDs {
			in[turnOf[id]] = true
		}
	}
	n := 0
	for _, id := range ev {
		if in[id] {
			n++
		}
	}
	return float64(n) / float64(len(ev))
}

// blockRecall builds the block of every scored question of the corpus
// through eng, at every budget.
func (c *corpus) blockRecall(ctx context.Context, eng *recall.Engine) ([]BlockRecall, error) {
	t := newBlockTally()
	for ci := range c.convs {
		cv := &c.convs[ci]
		for _, q := range cv.questions {
			if !q.scored() {
				continue
			}
			if err := t.ask(ctx, eng, entity.Scope(cv.scope), q.Question, q.Category, q.evidence(), cv.turnOf); err != nil {
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
		out[i] = r
	}
	return out
}

// writeBlock prints block recall per budget, with and without vectors,
// next to search's R@10 of the same configuration.
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
	rows := func(name string, block []BlockRecall, search Result) {
		for _, b := range block {
			line := fmt.Sprintf("%s\t%d\t%.0f\t%.3f\t", name, b.MaxTokens, b.Tokens, b.Recall)
			for _, c := range cats {
				line += fmt.Sprintf("%.3f\t", b.ByCategory[strconv.Itoa(c)])
			}
			fmt.Fprintln(tw, line+fmt.Sprintf("%.3f\t", search.Overall["r@10"]))
		}
	}
	rows("graphmem", r.Block, r.Result)
	if r.Vectors != nil && len(r.BlockVectors) > 0 {
		rows("graphmem + vectors", r.BlockVectors, *r.Vectors)
	}
	return tw.Flush()
}
