package main

import (
	"os"
	"runtime/debug"
)

// cachedGCPercent is the garbage collector's target (GOGC) while the Neo4j
// write cache is on. The cache's entries live as long as the process, and
// at Go's default target (100) the collector marks all of them again each
// time the heap has doubled: during context requests at 100k facts, three
// collections per 300 requests and a third of a core, against one and a
// tenth at 200, which took context p95 from 21 to 16 ms in the same run
// (docs/benchmarks.md). The price is heap: up to three times what is live,
// where the default allows two.
const cachedGCPercent = 200

// collectLessOften raises the collector's target to cachedGCPercent,
// unless GOGC sets it (then the operator's choice stands) or it is higher
// already or off. It returns the target in force.
func collectLessOften() int {
	p := debug.SetGCPercent(-1) // (reads it)
	if _, set := os.LookupEnv("GOGC"); !set && p >= 0 && p < cachedGCPercent {
		p = cachedGCPercent
	}
	debug.SetGCPercent(p)
	return p
}
