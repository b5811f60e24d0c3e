package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
)

// version describes this binary from its build information: the module
// version ("(devel)" for a build from a checkout), the commit it was built
// from (with "+modified" for uncommitted changes) and the Go version.
// `graphmem version`, --version and the MCP server all report it.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	commit, modified := "unknown", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if modified {
		commit += "+modified"
	}
	return fmt.Sprintf("%s commit %s %s", bi.Main.Version, commit, bi.GoVersion)
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
