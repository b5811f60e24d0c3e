// Package memory is the one place that orchestrates graphmem: it resolves
// entities, canonicalises predicates, checks tombstones and applies the
// temporal rules to batches of statements, and answers the fact, entity,
// timeline and provenance queries — over any graph.Store.
package memory
