// Package neo4j is the graph.Store adapter for Neo4j 5, the production
// store: several stateless graphmem replicas can share one Neo4j (or a
// cluster, or Aura) and each keeps its own search index in sync by tailing
// the change sequence.
//
// # Graph model
//
//	(:Entity {scope, id, name, keys, …})-[:NAMED]->(:Name {scope, key})
//	(:Entity)-[:SUBJECT_OF]->(:Fact {scope, id, subject_id, predicate, …})-[:OBJECT]->(:Entity)
//	(:Episode {scope, id, status, …})   (:Tombstone {scope, fingerprint, …})
//	(:Meta {scope, key, value})   (:Scope {name})   (:Counter {name, value})
//	(:Deleted {kind, scope, id, seq})
//
// Facts are nodes, not relationships. A fact has an identity other records
// point at (supersedes, superseded_by, an episode's fact ids), some thirty
// properties, and a literal object that is no entity at all; as a node it
// gets a uniqueness constraint on (scope, id) and composite range indexes,
// which Community edition offers for nodes. The links
// (:Entity)-[:SUBJECT_OF|OBJECT]-(:Fact) keep the graph browsable in
// Neo4j's own tools and queries.
//
// Lookups never depend on the links: Chains, FactsOf and Facts seek the
// composite indexes (scope, subject_id, predicate, id), (scope, subject_id,
// id), (scope, object_id, id) …, whose trailing id makes every page an
// ordered index scan that stops at the limit. So a fact about an entity that
// is not stored is still found, as on the embedded store. One hop of the
// graph walk (FactsAround) is one query for the whole frontier, scanning
// those indexes backwards (newest first) with the temporal filters on the
// fact nodes; BatchReader reads facts, entities and episodes by id in one
// round trip each. A name or alias is a shared :Name node, because Neo4j does
// not index the elements of a list property. Neo4j cannot index a value of
// more than about 8 KB, so name keys and literal keys longer than 512 bytes
// are cut and end with a hash of the whole.
//
// Scalars are stored as native properties (times as DATETIME in UTC, a zero
// time as no property), nested data — claims, revisions, attribute maps — as
// JSON strings. Every statement is a file of package cypher; the schema is
// applied at Open and again after a lost connection, since the server may
// have come back with another database.
//
// # Transactions and the change sequence
//
// Update is a managed transaction (ExecuteWrite): the driver retries
// transient failures, so the Tx handed to the caller's function only talks
// to that Neo4j transaction and buffers nothing outside it. A View runs each
// statement as an auto-commit transaction of one read session, one round
// trip each (a managed transaction adds a BEGIN the driver waits for and a
// COMMIT: two of the eight or so round trips of a recall request), and the
// Store retries the caller's function as the driver would. Reads lose no
// isolation by it: Neo4j's transactions are read committed, so the
// statements of one never shared a snapshot; on a cluster, the statements of
// a View may now be served by different members. Every session of a Store
// shares one bookmark manager, so a read that follows a write sees it, even
// on a cluster.
//
// A write transaction first locks its scope's (:Counter) node (a SET of a
// constant, so nothing is read before the lock is held) and holds the lock
// to commit: the writers of one scope take turns, those of different scopes
// run side by side, and within a scope sequence order is commit order. Write
// statements stamp their records with change numbers drawn above the
// scope's head from blocks each Store reserves on the store-wide counter in
// a short transaction of its own, and raise the scope's counter to the last.
// ScopeChanges reads a scope's feed while holding its lock, so it never sees
// part of a commit: a reader tailing it never skips a number that becomes
// visible late. Deletions leave a (:Deleted) marker carrying the deletion's
// sequence number. Statements MERGE the counter rather than MATCH it, so a
// database replaced under a running store (a test server restarted empty)
// does not turn writes into silent no-ops.
//
// Facts are written as the transaction knows them: PutFacts only buffers,
// and before the next statement or the commit the buffered facts go out by
// what the store holds of them — the facts the transaction read (Chains)
// are known, the others looked up in one statement. New facts are CREATEd
// with their links, no MERGE, which lets the rows stream through the plan;
// stored ones get only the properties that changed, and their links are
// moved only when the subject or object changed. The lock keeps what the
// transaction knows true until it commits.
//
// Driver errors become *entity.Error at this boundary: connectivity, an
// unavailable database, a lost leader or transient errors that outlived the
// retries are EUNAVAILABLE, a constraint violation ECONFLICT, anything else
// EINTERNAL. Errors of the caller's own function come back unchanged.
package neo4j
