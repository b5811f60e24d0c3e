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
