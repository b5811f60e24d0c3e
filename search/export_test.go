package search

import "github.com/blevesearch/bleve/v2"

// Bleve exposes the underlying index to the tests of this package.
func (x *Index) Bleve() bleve.Index { return x.bi }

// SyncBatchBytes is the cap on a sync's Bleve batch.
const SyncBatchBytes = syncBatchBytes

// OnBatch calls f with the size of each Bleve batch a sync applies and of
// the last document put into it, until the test ends.
func OnBatch(tb interface{ Cleanup(func()) }, f func(bytes, last int)) {
	testBatchApplied = f
	tb.Cleanup(func() { testBatchApplied = nil })
}

// WithCommon sets the bounds of common and frequent terms (commonMin,
// commonMax) until the test ends.
func WithCommon(tb interface{ Cleanup(func()) }, lo, hi uint64) {
	oldLo, oldHi := commonMin, commonMax
	commonMin, commonMax = lo, hi
	tb.Cleanup(func() { commonMin, commonMax = oldLo, oldHi })
}
