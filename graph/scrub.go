package graph

import "context"

// Scrubber is an optional capability of a Store that keeps its data in
// files of its own: Scrub overwrites the bytes of deleted records that
// its files still hold (free pages), so a purge leaves no copy of what it
// deleted. It returns EUNAVAILABLE if ctx ends first.
type Scrubber interface {
	Scrub(ctx context.Context) error
}
