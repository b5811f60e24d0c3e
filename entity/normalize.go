package entity

import (
	"strings"
	"unicode"
	"unsafe"

	"golang.org/x/text/unicode/norm"
)

// Normalize returns the lookup key of a name: Unicode NFKC (so full-width
// and compatibility forms compare equal), lower case, punctuation and
// symbols turned into spaces, whitespace collapsed. Letters of every script
// are kept as they are, so CJK names survive intact.
func Normalize(s string) string {
	if n, ok := normalizeASCII(s); ok {
		return n
	}
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

// normalizeASCII is Normalize for ASCII text (NFKC leaves it as it is),
// byte by byte, returning s itself when it is already a key; ok is false
// for any other text. Every statement's names and values go through
// Normalize several times on the write path.
func normalizeASCII(s string) (string, bool) {
	var b []byte // nil while the output is s[:n]
	n := 0
	space := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80:
			return "", false
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', 'A' <= c && c <= 'Z':
			if space && n > 0 {
				b, n = emitASCII(s, b, n, ' ')
			}
			space = false
			if c <= 'Z' && c >= 'A' {
				c += 'a' - 'A'
			}
			b, n = emitASCII(s, b, n, c)
		case c == '\'':
			// "O'Brien" and "OBrien" are the same name.
		default:
			space = true
		}
	}
	if b != nil {
		// b is this call's own and never changes again: no copy.
		return unsafe.String(unsafe.SliceData(b), len(b)), true
	}
	return s[:n], true
}

// emitASCII appends c to the output of normalizeASCII, n bytes so far:
// while they are s[:n] (b nil) and c is s[n], nothing is copied. (A
// closure would put b and n on the heap at every call.)
func emitASCII(s string, b []byte, n int, c byte) ([]byte, int) {
	if b == nil {
		if s[n] == c {
			return nil, n + 1
		}
		b = append(make([]byte, 0, len(s)), s[:n]...)
	}
	return append(b, c), n + 1
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
