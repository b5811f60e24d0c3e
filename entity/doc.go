// Package entity holds graphmem's domain types — scopes, entities, facts,
// episodes and tombstones — the one application error type, and entity
// resolution (name normalisation, aliases and a guarded fuzzy match).
//
// It is pure Go: no storage, HTTP or search code may be imported here, so
// every adapter speaks in these types and enforces the same domain rules.
package entity
