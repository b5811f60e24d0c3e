package recall

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/graphmem/graphmem/entity"
)

// EstimateTokens estimates how many model tokens s takes, without a
// tokenizer: one per CJK character (Han, kana, Hangul — BPE vocabularies
// give them about one each) plus one per four other characters (the usual
// figure for English), rounded up.
func EstimateTokens(s string) int {
	cjk, other := 0, 0
	for _, r := range s {
		if isCJK(r) {
			cjk++
		} else {
			other++
		}
	}
	return cjk + (other+3)/4
}

// factSentence is the natural-language form of a fact: its text, or
// "subject predicate object" when it has none.
func factSentence(f *entity.Fact) string {
	if t := strings.TrimSpace(f.Text); t != "" {
		return t
	}
	return plainSentence(f)
}

// plainSentence is "subject predicate object", the text a fact stated
// without one is given.
func plainSentence(f *entity.Fact) string {
	return strings.TrimSpace(f.Subject + " " + strings.ReplaceAll(f.Predicate, "_", " ") + " " + f.ObjectText())
}

func entityLine(e *entity.Entity) string {
	s := e.Name
	if e.Type != "" {
		s += " (" + e.Type + ")"
	}
	if e.Summary != "" {
		s += ": " + e.Summary
	}
	return s
}

func episodeText(e *entity.Episode) string {
	if e == nil {
		return ""
	}
	return e.Said()
}

// clip flattens s and shortens it to about n runes at a word boundary,
// marking the cut.
func clip(s string, n int) string {
	s = flatten(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	cut := len(r)
	for i := len(r) - 1; i > n*2/3; i-- {
		if unicode.IsSpace(r[i]) {
			cut = i
			break
		}
	}
	return strings.TrimRightFunc(string(r[:cut]), unicode.IsPunct) + "…"
}
