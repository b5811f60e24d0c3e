package entity

import (
	"strings"
	"testing"
)

// TestPermissionPhrasesFound checks the phrase table: every phrase is
// found inside a sentence, in any case, and nothing is found in text
// without one.
func TestPermissionPhrasesFound(t *testing.T) {
	for _, p := range permissionPhrases {
		for _, text := range []string{"Well, " + p + " now", strings.ToUpper(p)} {
			if !PermissionLike(text) {
				t.Errorf("PermissionLike(%q) = false", text)
			}
		}
	}
	if PermissionLike("the production database listens on port 3307") {
		t.Error("a port was taken for a permission")
	}
}

// TestASCIIPermissionNorm: the one-pass normalisation of ASCII text is the
// general one.
func TestASCIIPermissionNorm(t *testing.T) {
	slow := func(s string) string {
		s = strings.Join(strings.Fields(permissionReplacer.Replace(strings.ToLower(s))), " ")
		if s == "" {
			return ""
		}
		return " " + s + " "
	}
	for _, s := range []string{"", "   ", "\t\n", "may_skip-Confirmation", "  You  MAY\tskip\r\nit ", "a", "x-", "_y_", "don't", "A.B,C"} {
		got, ok := asciiPermissionNorm(s)
		if !ok || got != slow(s) {
			t.Errorf("asciiPermissionNorm(%q) = %q, %v; want %q", s, got, ok, slow(s))
		}
	}
	if _, ok := asciiPermissionNorm("doesn’t"); ok {
		t.Error("non-ASCII text took the ASCII path")
	}
}

// TestNormalizeASCII: the byte-by-byte path gives what the general one
// gives.
func TestNormalizeASCII(t *testing.T) {
	slow := func(s string) string {
		var b strings.Builder
		space := false
		for _, r := range s {
			switch {
			case 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || 'A' <= r && r <= 'Z':
				if space && b.Len() > 0 {
					b.WriteByte(' ')
				}
				space = false
				b.WriteString(strings.ToLower(string(r)))
			case r == '\'':
			default:
				space = true
			}
		}
		return b.String()
	}
	for _, s := range []string{"", " ", "abc", "ABC", "a b", "a  b", " a", "a ", "O'Brien", "a'a", "x-y_z", "port 5432!",
		"  Person 00012  ", "service-0042", "a  a", "aa'", "'", "1.2.3", "Hello, World", "already normal"} {
		got, ok := normalizeASCII(s)
		if !ok || got != slow(s) {
			t.Errorf("normalizeASCII(%q) = %q, %v; want %q", s, got, ok, slow(s))
		}
		if Normalize(s) != slow(s) {
			t.Errorf("Normalize(%q) = %q", s, Normalize(s))
		}
	}
	if _, ok := normalizeASCII("Zürich"); ok {
		t.Error("non-ASCII text took the ASCII path")
	}
}
