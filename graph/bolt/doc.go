// Package bolt is graphmem's embedded store: a graph.Store in one bbolt file,
// with no server to run. It is the default store.
//
// Layout (version 2). Every record lives in the bucket of its kind under a
// key that starts with scope 0x00, so a transaction bound to a scope only
// ever reads keys that start with that scope; scope names cannot contain
// 0x00, which makes the prefix unambiguous. Entities, episodes and
// tombstones are keyed scope 0x00 id. Facts are stored in chain order, under
// scope 0x00 subject 0x00 predicate 0x00 id, with a pointer from scope 0x00
// id to their place: a chain is read as one range, and a fact superseded in
// a batch is usually rewritten on the page its successor is written to.
// Secondary indexes are buckets of keys whose values are empty (or a short
// pointer), maintained in the same write transaction as the record: when a
// record is rewritten or deleted, the index keys of the previous version are
// computed from the stored bytes and removed, so no index ever points at a
// stale version. Open brings a file of layout 1 (facts under scope 0x00 id
// and a separate chain index) to layout 2 in one transaction (migrate.go).
//
// Change sequence. Each stored value starts with the 8-byte sequence number
// of the write that produced it, drawn from one store-wide counter inside
// the write transaction. The bucket "seq" maps each sequence number to
// (kind, scope, id, deleted). The entry of a record's previous write is not
// removed on the write path, which would cost a page write at a random
// place of the log per rewrite: the sweeper (sweep.go) removes replaced
// entries in sorted batches while the store is idle, so the log does not
// grow with rewrites (hit counts, supersession). Changes compares each
// entry with the record's latest write and passes over replaced ones not
// swept yet, so it lists every record once, at its latest write. Deletions
// leave an entry too (in "gone"), so consumers of the feed learn about them.
//
// Records are encoded with a small hand-written binary codec (see codec.go)
// rather than JSON: the bulk-ingest path encodes and decodes every fact it
// touches, and the codec is several times faster. Free-form attribute maps
// are stored as JSON inside the record.
//
// Durability: bbolt fsyncs on every commit, so an Update that returned nil
// survives a crash of the process (kill -9) or the machine.
package bolt
