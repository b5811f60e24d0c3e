package main

import (
	"os/exec"
	"runtime/debug"
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

func TestBuildCommit(t *testing.T) {
	tree := func() (string, bool) { return "feed42", true }
	noTree := func() (string, bool) { return "", false }
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "false"}}
	dirty := []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, {Key: "vcs.revision", Value: "abc123"}}
	for _, tc := range []struct {
		name, stamped string
		settings      []debug.BuildSetting
		tree          func() (string, bool)
		fresh         bool
		want          string
	}{
		{"StampedWins", "0123abc", dirty, tree, true, "0123abc"},
		{"BuildInfo", "", vcs, tree, true, "abc123"},
		{"BuildInfoModified", "", dirty, tree, false, "abc123+modified"},
		{"SourceTree", "", []debug.BuildSetting{{Key: "GOOS", Value: "linux"}}, tree, true, "feed42 (source tree)"},
		{"KeptBuild", "", nil, tree, false, "unknown (its source tree is now at feed42)"},
		{"Unknown", "", nil, noTree, true, "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := buildCommit(tc.stamped, tc.settings, tc.tree, tc.fresh); got != tc.want {
				t.Errorf("buildCommit = %q, want %q", got, tc.want)
			}
		})
	}
}

// A test binary, like `go run`, carries no VCS stamp: the commit still comes
// from the checkout it was compiled from.
func TestVersion_UnstampedBuildNamesTheSourceTree(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				t.Skip("this test binary is VCS-stamped")
			}
		}
	}
	got := version()
	if want := " commit " + strings.TrimSpace(string(head)); !strings.Contains(got, want) || !strings.Contains(got, "(source tree)") {
		t.Errorf("version() = %q, want it to hold %q and \"(source tree)\"", got, want)
	}
}

func TestBuiltToRun(t *testing.T) {
	for exe, want := range map[string]bool{
		"/tmp/go-build1770727494/b001/exe/graphmem": true,
		"/tmp/go-build2208/b001/graphmem.test":      true,
		"/usr/local/bin/graphmem":                   false,
		"/home/me/src/graphmem/graphmem":            false,
		`C:\Temp\go-build123\b001\exe\graphmem.exe`: true,
	} {
		if got := builtToRun(exe); got != want {
			t.Errorf("builtToRun(%q) = %v, want %v", exe, got, want)
		}
	}
}
