package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/graphmem/graphmem"
)

// commit is the commit this binary was built from, set by builds that know
// it and have no version control information to stamp (scripts/dist.sh, the
// container image): -ldflags "-X main.commit=<sha>". Empty otherwise.
var commit string

// version describes this binary: the release (VERSION, compiled in), the
// commit it was built from (the -X value, else the Go toolchain's
// vcs.revision stamp, with "+modified" for uncommitted changes; "unknown"
// for `go run`, which stamps none) and the Go version. `graphmem version`,
// --version and the MCP server all report it.
func version() string {
	c, modified, goVersion := commit, false, "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && c == "":
				c = s.Value
			case s.Key == "vcs.modified" && commit == "":
				modified = s.Value == "true"
			}
		}
	}
	if c == "" {
		c = "unknown"
	}
	if modified {
		c += "+modified"
	}
	return fmt.Sprintf("%s commit %s %s", graphmem.Version, c, goVersion)
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
