package entity

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Entity resolution decides whether a name mentioned in a statement denotes
// an entity the scope already knows.
//
// The policy, in order:
//  1. Exact: the normalised name equals an entity's normalised name.
//  2. Alias: it equals one of an entity's normalised aliases.
//  3. Fuzzy: a typing error ("Kubernets" / "Kubernetes") of an entity of
//     the same, known type — never a person — of at least FuzzyMinRunes
//     runes and similarity (1 − typing errors ÷ length of the longer name)
//     of at least FuzzyThreshold, compared word by word: the same number of
//     words, and every word equal to its counterpart or one typing error
//     away from it — one letter left out or doubled, or two neighbouring
//     letters swapped, never the first or last letter, in words of at least
//     TypoMinWordRunes letters without digits. A different letter is not a
//     typing error here: "Platt" / "Pratt" and "Hartley" / "Harsley" are
//     different people, "Northeastern" / "Northwestern" different schools.
//     So names that differ by a number, a Roman numeral or an ordinal
//     ("World War I" / "World War II", "Part II" / "Part III"), by a short
//     word ("The Rose" / "The Robe", "Best Male Lead" / "Best Female Lead")
//     or by a whole distinct word ("University of Hamburg" / "University of
//     Marburg", "Kansas" / "Arkansas") never merge; "Jon Smith" and "John
//     Smith" stay two people; "FC Barcelona B" is not "FC Barcelona"; and
//     an untyped name never merges by similarity alone. On the names of the
//     YAGO15k test split this makes no wrong merge (memory's TestYagoNames).
//
// Exact and alias matches always win over fuzzy ones, and an explicit type
// that differs from the candidate's type blocks the match ("Apple" the
// company is not "apple" the fruit).
const (
	FuzzyThreshold   = 0.88
	FuzzyMinRunes    = 6
	TypoMinWordRunes = 5
)

// PersonType is the entity type that never resolves fuzzily.
const PersonType = "person"

// MatchKind says how a name resolved.
type MatchKind string

// Match kinds.
const (
	MatchNone  MatchKind = ""
	MatchExact MatchKind = "exact"
	MatchAlias MatchKind = "alias"
	MatchFuzzy MatchKind = "fuzzy"
)

// Match is the outcome of resolving one name.
type Match struct {
	Entity *Entity
	Kind   MatchKind
	Score  float64
}

// Resolve picks the entity that name (of type typ, "" if unknown) denotes
// among candidates, or returns a Match with Kind MatchNone. Among equal
// matches the oldest entity wins, so resolution is deterministic.
func Resolve(name, typ string, candidates []Entity) Match {
	key := Normalize(name)
	if key == "" {
		return Match{}
	}
	var best Match
	for i := range candidates {
		c := &candidates[i]
		if !typesCompatible(typ, c.Type) {
			continue
		}
		m := Match{Entity: c}
		name := Normalize(c.Name)
		switch {
		case name == key:
			m.Kind, m.Score = MatchExact, 1
		case aliasOf(c, key):
			m.Kind, m.Score = MatchAlias, 0.99
		default:
			if !fuzzyAllowed(typ, c.Type, key) {
				continue
			}
			s := typoSimilarity(key, name)
			if s < FuzzyThreshold {
				continue
			}
			m.Kind, m.Score = MatchFuzzy, s
		}
		if best.Entity == nil || m.Score > best.Score ||
			(m.Score == best.Score && older(c, best.Entity)) {
			best = m
		}
	}
	return best
}

func older(a, b *Entity) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	return a.ID < b.ID
}

func aliasOf(e *Entity, key string) bool {
	for _, a := range e.Aliases {
		if Normalize(a) == key {
			return true
		}
	}
	return false
}

func typesCompatible(a, b string) bool {
	return a == "" || b == "" || strings.EqualFold(a, b)
}

func fuzzyAllowed(typ, candType, key string) bool {
	if typ == "" || strings.EqualFold(typ, PersonType) || (candType != "" && !strings.EqualFold(typ, candType)) {
		return false
	}
	return utf8.RuneCountInString(key) >= FuzzyMinRunes
}

// fuzzyComparable: same number of words and the same digits in order.
func fuzzyComparable(a, b string) bool {
	if len(strings.Fields(a)) != len(strings.Fields(b)) {
		return false
	}
	digits := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) {
				return r
			}
			return -1
		}, s)
	}
	return digits(a) == digits(b)
}

// typoSimilarity is 1 − (typing errors ÷ runes of the longer name, spaces
// left out) if normalised names a and b differ only by typing errors, word
// by word (see Resolve), else 0.
func typoSimilarity(a, b string) float64 {
	// Normalised names are words joined by single spaces: they are walked
	// in place, and only words that differ become runes (a fuzzy scan
	// compares hundreds of candidates per name).
	if strings.Count(a, " ") != strings.Count(b, " ") {
		return 0
	}
	errs := 0
	for ra, rb := a, b; ra != "" || rb != ""; {
		var wa, wb string
		wa, ra, _ = strings.Cut(ra, " ")
		wb, rb, _ = strings.Cut(rb, " ")
		if wa == wb {
			continue
		}
		if min(len(wa), len(wb)) < TypoMinWordRunes || strings.ContainsAny(wa, "0123456789") || strings.ContainsAny(wb, "0123456789") {
			// Too short in bytes is too short in runes; ASCII digits are
			// digits. Other words are judged as runes below.
			return 0
		}
		x, y := []rune(wa), []rune(wb)
		if min(len(x), len(y)) < TypoMinWordRunes || hasDigit(x) || hasDigit(y) || !typingError(x, y) {
			return 0
		}
		errs++
	}
	n := max(utf8.RuneCountInString(strings.ReplaceAll(a, " ", "")), utf8.RuneCountInString(strings.ReplaceAll(b, " ", "")))
	return 1 - float64(errs)/float64(n)
}

// typingError: y is x with one interior letter left out or added, or two
// interior neighbours swapped.
func typingError(x, y []rune) bool {
	if len(x) < len(y) {
		x, y = y, x
	}
	switch len(x) - len(y) {
	case 1:
		for i := 1; i < len(x)-1; i++ {
			if string(x[:i]) == string(y[:i]) && string(x[i+1:]) == string(y[i:]) {
				return true
			}
		}
	case 0:
		for i := 1; i+2 < len(x); i++ {
			if x[i] != y[i] {
				return x[i] == y[i+1] && x[i+1] == y[i] && string(x[i+2:]) == string(y[i+2:]) && string(x[:i]) == string(y[:i])
			}
		}
	}
	return false
}

func hasDigit(rs []rune) bool {
	for _, r := range rs {
		if unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// Similarity is 1 − (Levenshtein distance ÷ rune length of the longer
// string), in [0, 1], ignoring spaces so "postgres sql" ≈ "postgresql".
func Similarity(a, b string) float64 {
	ra := []rune(strings.ReplaceAll(a, " ", ""))
	rb := []rune(strings.ReplaceAll(b, " ", ""))
	n := max(len(ra), len(rb))
	if n == 0 {
		return 1
	}
	return 1 - float64(levenshtein(ra, rb))/float64(n)
}

func levenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// FuzzyPrefix is the key prefix a store scans to find fuzzy candidates for
// key: its first two runes. Candidates that differ there are not
// considered — a documented limit that keeps the scan small.
func FuzzyPrefix(key string) string {
	n := 0
	for i := range key {
		if n == 2 {
			return key[:i]
		}
		n++
	}
	return key
}

// FuzzyCandidate reports whether a name of type typ may resolve fuzzily at
// all; callers skip the candidate scan otherwise.
func FuzzyCandidate(name, typ string) bool {
	return fuzzyAllowed(typ, "", Normalize(name))
}

// Lookup finds the entity a name in a question most likely means, for
// recall rather than for merging: exact and alias matches first, then the
// most similar typo-level variant of any type (people included), under the
// same word-count, digit and length guards as Resolve's fuzzy match. A
// wrong guess here costs a less relevant line of context, never a merge.
func Lookup(name string, candidates []Entity) Match {
	if m := Resolve(name, "", candidates); m.Entity != nil {
		return m
	}
	key := Normalize(name)
	if utf8.RuneCountInString(key) < FuzzyMinRunes {
		return Match{}
	}
	var best Match
	for i := range candidates {
		c := &candidates[i]
		for _, k := range c.Keys() {
			if !fuzzyComparable(key, k) {
				continue
			}
			if s := Similarity(key, k); s >= FuzzyThreshold && (best.Entity == nil || s > best.Score) {
				best = Match{Entity: c, Kind: MatchFuzzy, Score: s}
			}
		}
	}
	return best
}
