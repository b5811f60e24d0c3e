// Package graphtest is the conformance suite of the graph.Store port. Every
// adapter runs it unchanged from its own tests:
//
//	func TestStore(t *testing.T) {
//		graphtest.Run(t, func(t *testing.T) graph.Store { return mustOpen(t) })
//	}
//
// Each subtest opens a fresh, empty store, exercises one group of methods
// through the public port only, and ends with CheckInvariants, which walks
// the whole store and cross-checks every read path against every other.
// CheckInvariants and CheckScope are exported so that other tests (the
// memory service, a crash test) can verify a store they filled themselves.
//
// Contract details the suite pins down beyond the comments of graph.Store:
//   - a record written with an empty Scope takes the transaction's scope; a
//     record naming another scope is rejected with EINVALID;
//   - reads return records with Scope set and Seq equal to the sequence
//     number of their latest write, the one Changes lists them at;
//   - Delete* of a record the scope does not hold is ENOTFOUND;
//   - an idempotency key names at most one episode per scope: ECONFLICT;
//   - lists are in id order and a non-empty cursor always leads to a
//     non-empty page; Chains and FactsOf are in fact-id order too;
//   - times round-trip to the nanosecond (the location may become UTC),
//     attributes and metadata round-trip as JSON values.
//
// The suite's test data follows the convention that predicates ending in
// "_one" have cardinality one: CheckInvariants then also checks that no two
// facts of such a chain known now overlap in valid time.
package graphtest
