package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/graphmem/graphmem"
)

// commit is the commit this binary was built from, set by builds that know
// it and have no version control information to stamp (scripts/dist.sh, the
// container image): -ldflags "-X main.commit=<sha>". Empty otherwise.
var commit string

// version describes this binary: the release (VERSION, compiled in), the
// commit it was built from and the Go version. `graphmem version`,
// --version and the MCP server all report it. The commit is, first found:
// the -X value; the toolchain's vcs.revision stamp (`go build` and `go
// install` in a checkout), with "+modified" when vcs.modified says the tree
// had changes; the commit of the source tree the binary was compiled from,
// asked of git and marked "(source tree)", for a binary `go run` built to
// run at once — `go run` stamps no VCS information; else "unknown", with
// where the source tree is now when git knows it (a `go build` that
// stamped nothing: -buildvcs=false, or a git worktree, whose .git is a file
// the go command does not recognise).
func version() string {
	goVersion, settings := "unknown", []debug.BuildSetting(nil)
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion, settings = bi.GoVersion, bi.Settings
	}
	return fmt.Sprintf("%s commit %s %s", graphmem.Version, buildCommit(commit, settings, sourceTreeCommit, ranAtOnce()), goVersion)
}

// buildCommit is version's commit: stamped (the -X value), else the build
// settings' vcs.revision and vcs.modified, else tree() marked "(source
// tree)" when the binary is fresh (built to run at once), else "unknown",
// naming tree() when it answers.
func buildCommit(stamped string, settings []debug.BuildSetting, tree func() (string, bool), fresh bool) string {
	if stamped != "" {
		return stamped
	}
	revision, modified := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if revision != "" {
		if modified {
			revision += "+modified"
		}
		return revision
	}
	c, ok := tree()
	switch {
	case ok && fresh:
		return c + " (source tree)"
	case ok:
		// A kept binary may be older than its tree: say where the tree is
		// without claiming the binary is that commit.
		return "unknown (its source tree is now at " + c + ")"
	}
	return "unknown"
}

// ranAtOnce reports whether this binary was built by the go command to
// run at once (go run, go test), so its source tree is what it was built
// from.
func ranAtOnce() bool {
	exe, err := os.Executable()
	return err == nil && builtToRun(exe)
}

// sourceTreeCommit asks git for the commit of the checkout this file was
// compiled from, with "+modified" for uncommitted changes to tracked files.
// It answers only when the binary knows its source path (not -trimpath),
// that folder still exists and git knows it.
func sourceTreeCommit() (string, bool) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", false
	}
	dir := filepath.Dir(file)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	git := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...).Output()
		return strings.TrimSpace(string(out)), err
	}
	head, err := git("rev-parse", "HEAD")
	if err != nil || head == "" {
		return "", false
	}
	if status, err := git("status", "--porcelain", "--untracked-files=no"); err == nil && status != "" {
		head += "+modified"
	}
	return head, true
}

// builtToRun reports whether exe lies in a work folder of the go command
// ($TMPDIR/go-build…/b001/exe/graphmem under `go run`,
// $TMPDIR/go-build…/b001/graphmem.test under `go test`).
func builtToRun(exe string) bool {
	for _, part := range strings.FieldsFunc(exe, func(r rune) bool { return r == '/' || r == '\\' }) {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

// runVersion is `graphmem version`.
func runVersion(_ context.Context, args []string) error {
	if len(args) > 0 && !isHelp(args[0]) {
		return fmt.Errorf("version takes no arguments")
	}
	fmt.Println("graphmem " + version())
	return nil
}

func isHelp(arg string) bool {
	return strings.TrimLeft(arg, "-") == "h" || strings.TrimLeft(arg, "-") == "help"
}
