package search

import (
	"slices"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	porterstemmer "github.com/blevesearch/go-porterstemmer"
)

// AnalyzerName is the analyzer of text: documents' text is analysed with
// it before indexing, queries before searching.
const AnalyzerName = "graphmem"

// preAnalyzedName is the analyzer of the indexed text fields, which hold
// terms already analysed and prefixed (see scopedTerms): it only splits on
// spaces.
const preAnalyzedName = "graphmem_pre"

const (
	bigramFilterName = "graphmem_cjk_bigram"
	stemFilterName   = "graphmem_stem_latin"
)

// latinStemmer applies the Porter stemmer to alphanumeric tokens and leaves
// CJK tokens (ideographs and the bigrams built from them) and numbers alone:
// the stemmer only knows English suffixes.
type latinStemmer struct{}

func (latinStemmer) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, t := range input {
		if t.KeyWord || t.Type != analysis.AlphaNumeric {
			continue
		}
		t.Term = analysis.BuildTermFromRunes(porterstemmer.StemWithoutLowerCasing([]rune(string(t.Term))))
	}
	return input
}

func init() {
	err := registry.RegisterTokenFilter(stemFilterName,
		func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) { return latinStemmer{}, nil })
	if err != nil {
		panic(err)
	}
}

// addAnalyzer registers graphmem's analyzer on m.
func addAnalyzer(m *mapping.IndexMappingImpl) error {
	// Unigrams as well as bigrams: a one-character Chinese word ("猫") must
	// still match; bigrams, being rarer, weigh more when they match.
	if err := m.AddCustomTokenFilter(bigramFilterName, map[string]any{
		"type": cjk.BigramName, "output_unigram": true,
	}); err != nil {
		return err
	}
	if err := m.AddCustomAnalyzer(preAnalyzedName, map[string]any{
		"type": custom.Name, "tokenizer": whitespace.Name, "token_filters": []string{},
	}); err != nil {
		return err
	}
	return m.AddCustomAnalyzer(AnalyzerName, map[string]any{
		"type":      custom.Name,
		"tokenizer": unicode.Name,
		"token_filters": []string{
			cjk.WidthName, en.PossessiveName, lowercase.Name, en.StopName,
			bigramFilterName, stemFilterName,
		},
	})
}

// textAnalyzer is graphmem's analyzer, for use outside an index.
var textAnalyzer = sync.OnceValue(func() analysis.Analyzer {
	m := mapping.NewIndexMapping()
	if err := addAnalyzer(m); err != nil {
		panic("search: " + err.Error())
	}
	a := m.AnalyzerNamed(AnalyzerName)
	if a == nil {
		panic("search: analyzer " + AnalyzerName + " missing")
	}
	return a
})

// Analyze returns the distinct terms of text as the index sees them. The
// slice may be shared with other callers: read it, never write into it.
func Analyze(text string) []string {
	if len(text) > memoMaxText {
		return analyze(text)
	}
	memo.Lock()
	ts, ok := memo.m[text]
	memo.Unlock()
	if ok {
		return slices.Clip(ts)
	}
	ts = analyze(text)
	memo.Lock()
	if len(memo.m) >= memoSize {
		clear(memo.m) // a vocabulary is small: the common texts come back soon
	}
	memo.m[text] = ts
	memo.Unlock()
	return slices.Clip(ts)
}

// The memo of Analyze: recall analyses the same fact texts and lines for
// question after question, and the analyzer (Unicode segmentation, Porter
// stemming) costs more than the map.
const (
	memoSize    = 1 << 14
	memoMaxText = 512
)

var memo = struct {
	sync.Mutex
	m map[string][]string
}{m: map[string][]string{}}

func analyze(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range textAnalyzer().Analyze([]byte(text)) {
		if s := string(t.Term); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Kinds of indexed text. A term is indexed as scope|kind|term, so the
// postings a query reads hold only its scope's documents of the kinds it
// wants: scope isolation holds by construction, and the current facts of a
// scope are found without scanning its history.
const (
	kindFact      = "f" // a fact valid (or not yet ended) when indexed
	kindHistory   = "h" // a fact that had ended when indexed
	kindRetracted = "r" // a fact that had been retracted when indexed
	kindEntity    = "e"
	kindEpisode   = "p"
)

// scopedTerms analyses text and prefixes every term with scope and kind,
// space-separated, for a field analysed by preAnalyzedName.
func scopedTerms(scope, kind, text string) string {
	var b strings.Builder
	for _, t := range textAnalyzer().Analyze([]byte(text)) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(scope)
		b.WriteByte('|')
		b.WriteString(kind)
		b.WriteByte('|')
		b.Write(t.Term)
	}
	return b.String()
}

func scopedTerm(scope, kind, term string) string { return scope + "|" + kind + "|" + term }
