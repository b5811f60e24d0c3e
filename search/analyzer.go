package search

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	porterstemmer "github.com/blevesearch/go-porterstemmer"
)

// AnalyzerName is the analyzer of every text field.
const AnalyzerName = "graphmem"

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
	return m.AddCustomAnalyzer(AnalyzerName, map[string]any{
		"type":      custom.Name,
		"tokenizer": unicode.Name,
		"token_filters": []string{
			cjk.WidthName, en.PossessiveName, lowercase.Name, en.StopName,
			bigramFilterName, stemFilterName,
		},
	})
}
