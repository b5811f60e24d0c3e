package main

import (
	"strings"
	"testing"
)

// TestVectorNote: the CLI says when an answer went without the vector list
// although embeddings are on, and only then.
func TestVectorNote(t *testing.T) {
	for _, v := range []string{"used", "off", ""} {
		if l := vectorNote(v, ""); l != "" {
			t.Errorf("vectors %q: note %q, want none", v, l)
		}
	}
	if l := vectorNote("skipped", "timeout"); !strings.Contains(l, "vectors skipped (timeout)") {
		t.Errorf("skipped: note %q does not say why", l)
	}
}
