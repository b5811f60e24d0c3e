// Package graphmem holds what belongs to the repository as a whole rather
// than to one package: the release version, read from VERSION at the root.
package graphmem

import (
	_ "embed"
	"strings"
)

//go:embed VERSION
var versionFile string

// Version is the release this source tree is (VERSION, e.g. "0.1.0"). It is
// compiled in, so every build path — `go build`, `go run`, scripts/dist.sh
// and the container image — reports the same release.
var Version = strings.TrimSpace(versionFile)
