package search

import "github.com/blevesearch/bleve/v2"

// Bleve exposes the underlying index to the tests of this package.
func (x *Index) Bleve() bleve.Index { return x.bi }
