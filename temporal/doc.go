// Package temporal implements graphmem's bi-temporal rules (DESIGN §3) as
// pure functions over one chain: the facts of one scope, subject and
// predicate.
//
// Every fact keeps the claims (statements) it was built from. Apply does not
// patch intervals incrementally; it recomputes the whole chain from the
// claims of its live facts plus the incoming ones and then reconciles the
// result with the stored facts. Because the chain is a function of the set
// of claims, the same statements give the same history in whatever order
// they arrive (backdated information included), and every change of belief
// is kept as a Revision, so "as known at" queries see what was believed then.
package temporal
