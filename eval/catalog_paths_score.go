package eval

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/recall"
	"github.com/graphmem/graphmem/search"
)

// Scoring relational questions: a block holds a question's path when it
// holds every fact of it (by fact id), and its answer when every answer's
// name or value is written in its text. Graphmem's block is the context
// builder's answer to the question alone — no as_of, so a dated question's
// time must be read from its text; BM25's is the text of its ten best fact
// hits (history included for dated questions, which BM25 cannot date).

// PathScores are one system's figures on a group of relational questions.
type PathScores struct {
	Questions int `json:"questions"`
	// AllFacts: share of the questions whose block holds every fact of
	// the path; Answer: whose block text holds the answer's value.
	AllFacts float64 `json:"every_fact_in_block"`
	Answer   float64 `json:"answer_in_block"`
	// ByHop[i]: share whose block holds every fact of hop i (over the
	// questions that have that hop).
	ByHop []float64 `json:"hop_in_block"`
	// Tokens is the blocks' mean estimated size (recall.EstimateTokens).
	Tokens float64 `json:"mean_tokens"`
	P50Ms  float64 `json:"p50_ms"`
	P95Ms  float64 `json:"p95_ms"`
}

// PathReport is the relational part of a catalog run: each system's
// figures by group — the shapes (PathShapes), "all", "held-out wording"
// and "zh".
type PathReport struct {
	Questions int                   `json:"questions"`
	Graphmem  map[string]PathScores `json:"graphmem"`
	Baseline  map[string]PathScores `json:"baseline_bm25"`
	// ByChain is graphmem's figures by relation chain, every shape
	// together ("service owned_by led_by").
	ByChain map[string]PathScores `json:"graphmem_by_chain"`
}

// Groups of the relational report besides the shapes.
const (
	pathAll     = "all"
	pathHeldOut = "held-out wording"
	pathZh      = "zh"
)

// pathBlock is what a system puts before the model for one question.
type pathBlock struct {
	text   string
	facts  map[string]bool // ids of the facts it holds
	tokens int
}

// contextBlock is the block of a context result: its text, and the facts
// it lists in any role (history included).
func contextBlock(res recall.ContextResult) pathBlock {
	b := pathBlock{text: res.Context, facts: map[string]bool{}, tokens: res.Tokens}
	for _, f := range res.Facts {
		b.facts[f.Fact.ID] = true
	}
	return b
}

// pathHit is what one block holds of one question.
type pathHit struct {
	all, answer bool
	// hops[i]: every fact of hop i.
	hops []bool
}

// scorePath scores block b for q, whose path facts are stored as ids
// (ids[i] is q.Path[i]).
func scorePath(b pathBlock, q PathQuestion, ids []string) pathHit {
	h := pathHit{all: true, answer: true, hops: make([]bool, len(q.Hops))}
	for i := range h.hops {
		h.hops[i] = true
	}
	for i, f := range q.Path {
		if !b.facts[ids[i]] {
			h.all = false
			h.hops[f.Hop] = false
		}
	}
	for _, a := range q.Answers {
		h.answer = h.answer && containsWords(b.text, a)
	}
	return h
}

// containsWords reports whether s appears in text, ignoring case, not as
// part of a longer word ("Berlin" in "Europe/Berlin" counts, "Go" in
// "Google" does not).
func containsWords(text, s string) bool {
	text, s = strings.ToLower(text), strings.ToLower(s)
	if s == "" {
		return false
	}
	for from := 0; ; {
		i := strings.Index(text[from:], s)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(s)
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if !wordRune(before) && !wordRune(after) {
			return true
		}
		from = i + 1
	}
}

func wordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) && !unicode.Is(unicode.Han, r)
}

// resolvePath finds the stored fact of each path fact of q, valid at q.At:
// same subject, predicate, and object (by normalised name) or value. An
// error means the store does not hold what the generator wrote.
func resolvePath(ctx context.Context, svc *memory.Service, scope entity.Scope, q PathQuestion) ([]string, error) {
	ids := make([]string, len(q.Path))
	for i, p := range q.Path {
		fs, _, err := svc.Facts(ctx, scope, memory.FactQuery{Subject: p.Subject, Predicate: p.Predicate, AsOf: q.At, Limit: 50})
		if err != nil {
			return nil, err
		}
		j := slices.IndexFunc(fs, func(f entity.Fact) bool {
			return entity.Normalize(f.Object) == entity.Normalize(p.Object) && f.Value == p.Value
		})
		if j < 0 {
			return nil, fmt.Errorf("relational question %q: no fact %s %s %s valid at %s", q.Text, p.Subject, p.Predicate,
				p.Target(), q.At.Format(time.DateOnly))
		}
		ids[i] = fs[j].ID
	}
	return ids, nil
}

// pathTally accumulates one system's results by group.
type pathTally map[string]*pathGroup

type pathGroup struct {
	n, all, answer, tokens int
	hopN, hopIn            []int
	ms                     []float64
}

func (t pathTally) add(q PathQuestion, h pathHit, tokens int, took time.Duration) {
	groups := []string{pathAll, q.Shape}
	if q.HeldOut {
		groups = append(groups, pathHeldOut)
	}
	if q.Lang == "zh" {
		groups = append(groups, pathZh)
	}
	for _, name := range groups {
		t.addTo(name, h, tokens, took)
	}
}

// addTo tallies one question's hit in group name.
func (t pathTally) addTo(name string, h pathHit, tokens int, took time.Duration) {
	g := t[name]
	if g == nil {
		g = &pathGroup{}
		t[name] = g
	}
	g.n++
	g.tokens += tokens
	g.ms = append(g.ms, ms(took))
	if h.all {
		g.all++
	}
	if h.answer {
		g.answer++
	}
	for i, in := range h.hops {
		for len(g.hopN) <= i {
			g.hopN, g.hopIn = append(g.hopN, 0), append(g.hopIn, 0)
		}
		g.hopN[i]++
		if in {
			g.hopIn[i]++
		}
	}
}

func (t pathTally) scores() map[string]PathScores {
	out := map[string]PathScores{}
	for name, g := range t {
		f := func(k, n int) float64 { return roundTo(float64(k)/float64(n), 3) }
		s := PathScores{Questions: g.n, AllFacts: f(g.all, g.n), Answer: f(g.answer, g.n),
			Tokens: roundTo(float64(g.tokens)/float64(g.n), 1), P50Ms: percentile(g.ms, 50), P95Ms: percentile(g.ms, 95)}
		for i := range g.hopN {
			s.ByHop = append(s.ByHop, f(g.hopIn[i], g.hopN[i]))
		}
		out[name] = s
	}
	return out
}

// askPaths asks the relational questions through graphmem's context
// builder (eng) and BM25 alone (idx); misses, when set, receives each
// question whose graphmem block lacks a fact of its path.
func askPaths(ctx context.Context, eng *recall.Engine, idx *search.Index, store graph.Store, svc *memory.Service,
	scope entity.Scope, qs []PathQuestion, progress func(done, total int), misses io.Writer) (PathReport, error) {
	ours, base, chains := pathTally{}, pathTally{}, pathTally{}
	texts := map[string]string{} // fact id → text, for BM25's blocks
	for qi, q := range qs {
		ids, err := resolvePath(ctx, svc, scope, q)
		if err != nil {
			return PathReport{}, err
		}
		start := time.Now()
		res, err := eng.Context(ctx, scope, recall.ContextRequest{Query: q.Text})
		if err != nil {
			return PathReport{}, err
		}
		took := time.Since(start)
		b := contextBlock(res)
		h := scorePath(b, q, ids)
		ours.add(q, h, b.tokens, took)
		chains.addTo(q.Chain, h, b.tokens, took)
		if !h.all && misses != nil {
			pathMissed(misses, q, ids, b)
		}

		start = time.Now()
		hits, err := idx.Search(ctx, search.Query{Scope: scope, Text: q.Text, Types: []string{search.TypeFact}, Limit: 10,
			Now: catalogNow, IncludeHistory: q.Shape == ShapeDated})
		if err != nil {
			return PathReport{}, err
		}
		took = time.Since(start)
		if b, err = bm25Block(ctx, store, scope, hits, texts); err != nil {
			return PathReport{}, err
		}
		base.add(q, scorePath(b, q, ids), b.tokens, took)
		if progress != nil {
			progress(qi+1, len(qs))
		}
	}
	return PathReport{Questions: len(qs), Graphmem: ours.scores(), Baseline: base.scores(), ByChain: chains.scores()}, nil
}

// bm25Block is the block of BM25's hits: their facts' texts, one a line.
func bm25Block(ctx context.Context, store graph.Store, scope entity.Scope, hits []search.Hit, texts map[string]string) (pathBlock, error) {
	var missing []string
	for _, h := range hits {
		if _, ok := texts[h.ID]; !ok {
			missing = append(missing, h.ID)
		}
	}
	if len(missing) > 0 {
		err := store.View(ctx, scope, func(tx graph.Tx) error {
			for _, id := range missing {
				f, err := tx.Fact(id)
				if err != nil {
					return err
				}
				texts[id] = f.Text
			}
			return nil
		})
		if err != nil {
			return pathBlock{}, err
		}
	}
	b := pathBlock{facts: map[string]bool{}}
	var lines []string
	for _, h := range hits {
		b.facts[h.ID] = true
		lines = append(lines, texts[h.ID])
	}
	b.text = strings.Join(lines, "\n")
	b.tokens = recall.EstimateTokens(b.text)
	return b, nil
}

// pathMissed writes a question whose block lacks part of its path.
func pathMissed(w io.Writer, q PathQuestion, ids []string, b pathBlock) {
	fmt.Fprintf(w, "PATH MISS [%s] %q (at %s)\n", q.Shape, q.Text, q.At.Format(time.DateOnly))
	for i, f := range q.Path {
		mark := "-"
		if b.facts[ids[i]] {
			mark = "+"
		}
		fmt.Fprintf(w, "   %s hop %d: %s %s %s\n", mark, f.Hop+1, f.Subject, f.Predicate, f.Target())
	}
	fmt.Fprintf(w, "   answer %s; block %d tokens\n", strings.Join(q.Answers, ", "), b.tokens)
}

// WriteTable prints the relational figures: per group, graphmem's context
// block next to BM25's.
func (r PathReport) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "Relational questions (%d): every fact of the path in the block, the answer's value in it, each hop's facts in it\n", r.Questions)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tquestions\tevery fact of the path\tanswer's value\thop 1\thop 2\thop 3\tmean tokens\tp50 ms\tp95 ms\t")
	groups := append(slices.Clone(PathShapes), pathAll, pathHeldOut, pathZh)
	row := func(name string, scores map[string]PathScores) {
		for _, g := range groups {
			s, ok := scores[g]
			if !ok {
				continue
			}
			hops := [3]string{"-", "-", "-"}
			for i, v := range s.ByHop {
				hops[i] = fmt.Sprintf("%.3f", v)
			}
			fmt.Fprintf(tw, "%s, %s\t%d\t%.3f\t%.3f\t%s\t%s\t%s\t%.0f\t%.2f\t%.2f\t\n", name, g, s.Questions, s.AllFacts, s.Answer,
				hops[0], hops[1], hops[2], s.Tokens, s.P50Ms, s.P95Ms)
		}
	}
	row("graphmem", r.Graphmem)
	row("BM25 only", r.Baseline)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprint(w, "graphmem by chain (every fact / answer):")
	for _, c := range slices.Sorted(maps.Keys(r.ByChain)) {
		s := r.ByChain[c]
		fmt.Fprintf(w, "\n  %-40s %3d  %.2f / %.2f", c, s.Questions, s.AllFacts, s.Answer)
	}
	fmt.Fprintln(w)
	return nil
}
