// Benchmarks only: the least any fact write costs — the same rows created
// as nodes of an unindexed label, with no merge, links or sequence numbers.
// The adapter's facts/s is reported beside this baseline.
UNWIND $rows AS r
CREATE (f:BareFact)
SET f = r.props
