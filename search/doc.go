// Package search is graphmem's full-text index: a Bleve (scorch) index on
// disk over fact text, entity names, aliases and summaries, and episode
// content, scored with BM25.
//
// The index is derived data. The graph store is the source of truth; the
// index records, inside itself and in the same batch as the documents, the
// last change sequence it applied (graph.Store.Changes), so after a crash it
// is consistent at some earlier sequence and Sync catches up. Rebuild makes
// a fresh one from the store (graphmem reindex).
//
// Text analysis serves English and CJK alike: a Unicode word tokenizer,
// CJK width folding, English possessive removal, lower-casing, English stop
// words, CJK bigrams (plus unigrams, so one-character words match), and
// Porter stemming applied to alphabetic tokens only, so "moved" finds
// "moving" and "数据库" finds "我们的数据库".
//
// Filters are applied inside the Bleve query, scope first: a document of
// another scope can never be scored, let alone returned. Then the status:
// forgotten and archived records, facts whose TTL has passed and facts
// retracted before known_at are never returned; outside history mode only
// facts valid at as_of are. Field boosts rank names above fact text above
// episode content.
package search
