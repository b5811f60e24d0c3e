// Package search is graphmem's full-text index: a Bleve (scorch) index on
// disk over fact text, entity names, aliases and summaries, and episode
// content (with the speaker), scored with BM25.
//
// The index is derived data. The graph store is the source of truth; the
// index records, inside itself and in the same batch as the documents, the
// last change sequence it applied (graph.Store.Changes), so after a crash
// (kill -9) it is consistent at some earlier sequence and Sync catches up.
// Follow keeps it in sync; Rebuild makes a fresh one (graphmem reindex). A
// document whose record changed only in what the index does not hold (hit
// counts) is not rewritten.
//
// Text analysis serves English and CJK alike: a Unicode word tokenizer,
// CJK width folding, English possessive removal, lower-casing, English stop
// words, CJK bigrams (plus unigrams, so one-character words match), and
// Porter stemming applied to alphabetic tokens only, so "moved" finds
// "moving" and "数据库" finds "我们的数据库".
//
// Scope first, by construction: every indexed term is prefixed with its
// record's scope and kind — a current fact, a fact that had ended when
// indexed, a retracted fact, an entity, an episode — so a query reads only
// the postings of its own scope and of the kinds it asks for. No document
// of another scope can be scored, and finding the current facts of a scope
// never walks its history. What the kind cannot decide — a TTL that has
// passed, a fact that starts after as_of, an as_of in the past, known_at —
// is excluded inside the same Bleve query by numeric ranges, which scan the
// rare side (open ends are indexed as the largest value). Forgotten and
// archived facts have no terms at all. Field boosts rank entity names above
// fact text above episode content. Query terms found in more than a tenth
// of a large scope are left out when rarer ones remain (their weight is
// small, their postings long); past 100,000 documents, a term found in more
// than 10,000 is matched only in the documents holding a rarer term of the
// query, so a query's cost follows its rarest terms, not the scope's size.
// The k best are collected in one pass, equal scores in id order.
//
// A fact that ends after it was indexed stays among the current ones until
// its record changes again; callers that need exact validity (package
// recall does) re-check the record from the store.
package search
