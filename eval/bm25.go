package eval

import (
	"math"
	"sort"
	"strings"
)

// bm25 is a plain Okapi BM25 ranking of documents (k1 = 1.2, b = 0.75)
// over lower-cased alphanumeric tokens with English stop words removed.
// The IDF is Robertson's log((N − n + 0.5)/(n + 0.5)); terms in more than
// half of the documents, where it turns negative, get a quarter of the
// mean IDF instead, as common BM25 libraries do.
type bm25 struct {
	tf     []map[string]int
	length []float64
	df     map[string]int
	avgLen float64
	avgIDF float64
}

const (
	bm25K1  = 1.2
	bm25B   = 0.75
	bm25Eps = 0.25
)

func newBM25(docs []string) *bm25 {
	m := &bm25{df: map[string]int{}}
	var total float64
	for _, d := range docs {
		tf := map[string]int{}
		toks := tokens(d)
		for _, t := range toks {
			if tf[t] == 0 {
				m.df[t]++
			}
			tf[t]++
		}
		m.tf = append(m.tf, tf)
		m.length = append(m.length, float64(len(toks)))
		total += float64(len(toks))
	}
	if len(docs) > 0 {
		m.avgLen = total / float64(len(docs))
	}
	for _, n := range m.df {
		m.avgIDF += m.rawIDF(n)
	}
	if len(m.df) > 0 {
		m.avgIDF /= float64(len(m.df))
	}
	return m
}

func (m *bm25) rawIDF(n int) float64 {
	N := float64(len(m.tf))
	return math.Log((N - float64(n) + 0.5) / (float64(n) + 0.5))
}

func (m *bm25) idf(t string) float64 {
	v := m.rawIDF(m.df[t])
	if v < 0 {
		return bm25Eps * m.avgIDF
	}
	return v
}

// rank returns document indexes by descending score (ties: document order).
func (m *bm25) rank(query string) []int {
	q := tokens(query)
	scores := make([]float64, len(m.tf))
	for i, tf := range m.tf {
		for _, t := range q {
			f := float64(tf[t])
			if f == 0 {
				continue
			}
			norm := bm25K1 * (1 - bm25B + bm25B*m.length[i]/m.avgLen)
			scores[i] += m.idf(t) * f * (bm25K1 + 1) / (f + norm)
		}
	}
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	return idx
}

func tokens(s string) []string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	out := words[:0]
	for _, w := range words {
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// stopWords is the common 179-word English list (with the contraction
// fragments "s", "t", "don"… that alphanumeric tokenisation leaves).
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves he him his himself she she's her hers herself it it's its itself they them their theirs themselves what which who whom this that that'll these those am is are was were be been being have has had having do does did doing a an the and but if or because as until while of at by for with about against between into through during before after above below to from up down in out on off over under again further then once here there when where why how all any both each few more most other some such no nor not only own same so than too very s t can will just don don't should should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't weren weren't won won't wouldn wouldn't`) {
		stopWords[w] = true
	}
}
