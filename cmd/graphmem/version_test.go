package main

import (
	"strings"
	"testing"

	"github.com/graphmem/graphmem"
)

func TestVersion(t *testing.T) {
	if !strings.HasPrefix(version(), graphmem.Version+" commit ") || graphmem.Version == "" || strings.ContainsAny(graphmem.Version, " \n") {
		t.Fatalf("version() = %q, VERSION %q", version(), graphmem.Version)
	}
	defer func(c string) { commit = c }(commit)
	commit = "0123abc"
	if got := version(); !strings.HasPrefix(got, graphmem.Version+" commit 0123abc ") {
		t.Errorf("with -X main.commit: %q", got)
	}
}
