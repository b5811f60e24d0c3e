// The schema, applied at every start: each statement is idempotent (IF NOT
// EXISTS, by name), so starting against an existing database changes nothing.
//
// Community edition has uniqueness constraints but not node key constraints;
// a composite uniqueness constraint on (scope, id) both keeps one node per
// record and gives the range index every "by id" lookup and ordered listing
// uses. Composite indexes end with id so a page "after cursor, ordered by id"
// is an index seek that stops at the limit, never a sort.

CREATE CONSTRAINT counter_name IF NOT EXISTS FOR (c:Counter) REQUIRE c.name IS UNIQUE;
// The scopes' change counters (the store-wide one has no scope), read by Heads.
CREATE RANGE INDEX counter_scope IF NOT EXISTS FOR (c:Counter) ON (c.scope);
CREATE CONSTRAINT scope_name IF NOT EXISTS FOR (s:Scope) REQUIRE s.name IS UNIQUE;

CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE (e.scope, e.id) IS UNIQUE;
CREATE CONSTRAINT name_key IF NOT EXISTS FOR (n:Name) REQUIRE (n.scope, n.key) IS UNIQUE;
CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (f:Fact) REQUIRE (f.scope, f.id) IS UNIQUE;
CREATE CONSTRAINT episode_id IF NOT EXISTS FOR (e:Episode) REQUIRE (e.scope, e.id) IS UNIQUE;
CREATE CONSTRAINT episode_idempotency_key IF NOT EXISTS FOR (e:Episode) REQUIRE (e.scope, e.idempotency_key) IS UNIQUE;
CREATE CONSTRAINT tombstone_fingerprint IF NOT EXISTS FOR (t:Tombstone) REQUIRE (t.scope, t.fingerprint) IS UNIQUE;
CREATE CONSTRAINT meta_key IF NOT EXISTS FOR (m:Meta) REQUIRE (m.scope, m.key) IS UNIQUE;
CREATE CONSTRAINT deleted_id IF NOT EXISTS FOR (d:Deleted) REQUIRE (d.kind, d.scope, d.id) IS UNIQUE;

// Change sequence: one index per label, scanned in order by Changes.
CREATE RANGE INDEX entity_seq IF NOT EXISTS FOR (e:Entity) ON (e.seq);
CREATE RANGE INDEX fact_seq IF NOT EXISTS FOR (f:Fact) ON (f.seq);
CREATE RANGE INDEX episode_seq IF NOT EXISTS FOR (e:Episode) ON (e.seq);
CREATE RANGE INDEX tombstone_seq IF NOT EXISTS FOR (t:Tombstone) ON (t.seq);
CREATE RANGE INDEX deleted_seq IF NOT EXISTS FOR (d:Deleted) ON (d.seq);
// Each scope's changes in order, read by the index followers.
CREATE RANGE INDEX entity_scope_seq IF NOT EXISTS FOR (e:Entity) ON (e.scope, e.seq);
CREATE RANGE INDEX fact_scope_seq IF NOT EXISTS FOR (f:Fact) ON (f.scope, f.seq);
CREATE RANGE INDEX episode_scope_seq IF NOT EXISTS FOR (e:Episode) ON (e.scope, e.seq);
CREATE RANGE INDEX tombstone_scope_seq IF NOT EXISTS FOR (t:Tombstone) ON (t.scope, t.seq);
CREATE RANGE INDEX deleted_scope_seq IF NOT EXISTS FOR (d:Deleted) ON (d.scope, d.seq);

// Facts: a chain (subject, predicate), everything about a subject, an
// object, a predicate or a literal value, each paged by id.
CREATE RANGE INDEX fact_chain IF NOT EXISTS FOR (f:Fact) ON (f.scope, f.subject_id, f.predicate, f.id);
CREATE RANGE INDEX fact_subject IF NOT EXISTS FOR (f:Fact) ON (f.scope, f.subject_id, f.id);
CREATE RANGE INDEX fact_object IF NOT EXISTS FOR (f:Fact) ON (f.scope, f.object_id, f.id);
CREATE RANGE INDEX fact_predicate IF NOT EXISTS FOR (f:Fact) ON (f.scope, f.predicate, f.id);
CREATE RANGE INDEX fact_value IF NOT EXISTS FOR (f:Fact) ON (f.scope, f.value_key, f.id);

// Episodes: by status within a scope, due work across scopes.
CREATE RANGE INDEX episode_status IF NOT EXISTS FOR (e:Episode) ON (e.scope, e.status, e.id);
CREATE RANGE INDEX episode_queue IF NOT EXISTS FOR (e:Episode) ON (e.status, e.reference_time, e.scope, e.id);

// Names are found through the Name nodes (name_key above): their keys are
// normalised and cut to an indexable length, which a raw name is not.
//
// Indexes of earlier versions go.
DROP INDEX entity_name IF EXISTS;
DROP INDEX episode_due IF EXISTS;
// Validity was filtered on the facts found around an entity, never sought:
// the two indexes cost every fact write two index updates for nothing.
DROP INDEX fact_valid_from IF EXISTS;
DROP INDEX fact_valid_to IF EXISTS;

// Wait until every index is online before the store serves anything.
CALL db.awaitIndexes(300);
