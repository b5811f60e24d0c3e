package entity

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Normalize returns the lookup key of a name: Unicode NFKC (so full-width
// and compatibility forms compare equal), lower case, punctuation and
// symbols turned into spaces, whitespace collapsed. Letters of every script
// are kept as they are, so CJK names survive intact.
func Normalize(s string) string {
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '’':
			// "O'Brien" and "OBrien" are the same name.
		default:
			space = true
		}
	}
	return b.String()
}

// CanonicalPredicate turns a free-form predicate ("Works At", "works-at",
// "worksAt") into snake_case ("works_at").
func CanonicalPredicate(p string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range p {
		if unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)) {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	return strings.ReplaceAll(Normalize(b.String()), " ", "_")
}
