// Package temporal implements graphmem's bi-temporal rules as pure
// functions over one chain: the facts of one scope, subject and predicate.
//
// Every fact keeps the statements (claims) it was built from. Apply does not
// patch intervals incrementally: it recomputes the whole chain from the
// claims of its facts plus the incoming statement and reconciles the result
// with the stored facts. The chain is a function of the set of claims — every
// decision below is made from what the statements say (their times, source
// kinds, reference times and values), never from their arrival order or from
// ids — so the same statements give the same history in any order, one by
// one, in batches of any size, or through any ingestion path. Every change of
// belief is kept as a Revision, so a query "as known at" an earlier time sees
// what was believed then.
//
// A statement says "true from a start (until an end)" or, with End, "no
// longer true from an end". Its start is dated (a valid_from, or "start
// unknown") or undated (left out: the start is when the statement was made,
// its reference time). Each statement also has a reference time ("said"):
// the episode's time, or when it was sent.
//
// The rules, in the order a recomputation applies them:
//
//  1. Corroboration. A statement of a value that overlaps or touches a fact
//     of the same value joins it: its episode is added to the provenance,
//     confidence is combined (1 − Π(1 − cᵢ)), the most trusted source kind
//     wins, and an undated statement may widen the interval. A repeated
//     statement adds nothing but keeps the latest reference time.
//  2. Supersession (cardinality "one"). A value starting while another is in
//     force ends it there: the old fact's valid_to is the new start, and the
//     two are linked (superseded_by / supersedes). A value that ended exactly
//     when another starts is superseded by it.
//  3. Backdating. A value stated for a time before the values already known
//     slots into the chain in its place (historical); the current value does
//     not change.
//  4. Explicit end. An end closes the fact of that value in force at the end
//     time; the fact becomes ended, never deleted. An end that matches
//     nothing yet is answered "ended" with the warning WaitingForStart and
//     kept in a waiting record (Fact.Waiting, never believed, so no read path
//     shows it); it takes effect when its start arrives and never becomes an
//     open fact.
//     4a. Same instant. Several values of a "one" predicate stated for the
//     same instant are decided by a tie rule: the value backed by the most
//     trusted source kind wins (user_explicit > user_implicit > tool >
//     import > agent_inferred), then the one stated latest (reference
//     time), then the greater normalised value. The others keep an empty
//     interval at that instant, superseded by the winner, the winner lists
//     them in Fact.Conflicts, which the context block shows, and the
//     statement that meets the tie gets a warning naming the other value.
//     4b. Correction versus corroboration. Within one fact, the start is the
//     one given by the latest dated statement (by reference time; among
//     equally late ones, the earliest start). Statements made before it —
//     dated or undated — and "start unknown" statements give way to it: the
//     interval moves (action "corrected", the former interval stays a
//     revision). The end is the one given by the latest statement that
//     states an end (an explicit end or a valid_to; among equally late ones,
//     the latest end); statements that give no end say nothing about it.
//     So a restatement of the same value is a correction when it is dated,
//     made later, and gives other bounds; it corroborates when it is
//     undated, made earlier, or gives the same bounds.
//     4c. Unknown start. A statement may say its start is unknown (a zero
//     ValidFrom, Statement.Dated): the fact answers as_of at any time before
//     its end, context lines say "start unknown", and a later dated value of
//     a "one" predicate ends it. A dated start of the same value refines it.
//  5. Retraction (Retract). A fact that was never true gets expired_at =
//     now; valid time is untouched and the chain is recomputed without it.
//     Queries known before the retraction still see it.
//  6. Cardinality "many": one lane per value, so values coexist; rules 1, 3
//     (within a value), 4 and 5 apply.
//  7. Only the chain. Apply leaves alone every fact handed to it that has
//     another scope, subject or predicate: nothing is invalidated because it
//     merely looks similar.
//
// Text stays with its interval: a fact's text, importance and attributes
// come from its own claims — each from the latest statement that states it, attributes key by
// key — and a statement about another interval never reaches them.
//
// Other rules that live here rather than in the services: a fact created in
// a chain whose predicate has a TTL gets expires_at = recorded_at + TTL
// (Rules.TTL); a purge that removes the value which superseded another
// leaves that one ended (KeepEnded); the status of a fact at a valid time is
// entity.Fact.StatusAt.
//
// Invariants, checked by property tests over ten thousand random histories
// of every statement shape, each in three orders and in one batch: the same
// chain (intervals, texts, conflicts) whatever the order; for a "one"
// predicate at most one value at any instant; every belief ever held still
// visible as known then.
package temporal
