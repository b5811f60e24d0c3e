package neo4j_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/neo4j"
)

var t0 = time.Date(2024, 3, 1, 9, 30, 15, 123456789, time.UTC)

func ptr(t time.Time) *time.Time { return &t }

// requireAllSet fails if any exported field of the struct v is its zero
// value, so a field added to a domain type later cannot be forgotten by the
// adapter's codec without a test noticing.
func requireAllSet(t *testing.T, v any, except ...string) {
	t.Helper()
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		f := rv.Type().Field(i)
		if f.IsExported() && rv.Field(i).IsZero() && !slices.Contains(except, f.Name) {
			t.Fatalf("test data: %s.%s is not set; set it so its round trip is checked", rv.Type().Name(), f.Name)
		}
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestRoundTripEveryField(t *testing.T) {
	s := mustOpenClosing(t)
	local := time.FixedZone("UTC+8", 8*3600)
	e := entity.Entity{
		ID: "e1", Scope: "s1", Name: "Alice", Type: "person", Aliases: []string{"Ali", "爱丽丝"},
		Summary: "an engineer", Attributes: map[string]any{"level": 3.0, "tags": []any{"a"}, "n": map[string]any{"ok": true}},
		CreatedAt: t0.In(local), UpdatedAt: t0.Add(time.Second), ForgottenAt: ptr(t0.Add(time.Minute)), Seq: 1,
	}
	requireAllSet(t, e)
	f := entity.Fact{
		ID: "f1", Scope: "s1", SubjectID: "e1", Subject: "Alice", Predicate: "works_at", ObjectID: "e2", Object: "Acme",
		Value: "", Text: "Alice works at Acme", ValidFrom: t0, ValidTo: ptr(t0.Add(time.Hour)),
		RecordedAt: t0.In(local), ExpiredAt: ptr(t0.Add(2 * time.Hour)), Supersedes: "f0", SupersededBy: "f2",
		EpisodeIDs: []string{"ep1", "ep2"}, SourceKind: entity.UserExplicit, Confidence: 0.75, Importance: 7,
		Attributes: map[string]any{"reason": "cheaper", "alternatives": []any{"yarn", "npm"}},
		Hits:       12, LastAccessedAt: ptr(t0.Add(3 * time.Hour)), ExpiresAt: ptr(t0.Add(4 * time.Hour)),
		ForgottenAt: ptr(t0.Add(5 * time.Hour)), ArchivedAt: ptr(t0.Add(6 * time.Hour)),
		Claims: []entity.Claim{
			{From: t0.In(local), To: ptr(t0.Add(time.Hour)), EpisodeID: "ep1", SourceKind: entity.Tool, Confidence: 0.5, RecordedAt: t0,
				Said: t0.Add(-time.Hour), Dated: true, Text: "Alice joined Acme", Importance: 6, Attributes: map[string]any{"reason": "offer"}},
			{From: t0, End: true, EpisodeID: "ep2", SourceKind: entity.UserExplicit, Confidence: 1, RecordedAt: t0},
		},
		Revisions: []entity.Revision{{Until: t0, ValidFrom: t0.Add(-time.Hour), ValidTo: ptr(t0), Supersedes: "f0", SupersededBy: "f9"}},
		UpdatedAt: t0.Add(time.Minute), Seq: 3, Conflicts: []string{"Globex"}, Waiting: true,
	}
	requireAllSet(t, f, "Value")
	lit := f
	lit.ID, lit.ObjectID, lit.Object, lit.Value = "f3", "", "", "８０８０ Port"
	ep := entity.Episode{
		ID: "ep1", Scope: "s1", Kind: entity.KindMessage, Content: "I work at Acme", Speaker: "alice", Role: entity.RoleUser,
		ReferenceTime: t0, RecordedAt: t0.Add(time.Second), SourceKind: entity.UserExplicit, Status: entity.EpisodeFailed,
		Error: "model timed out", Attempts: 3, NextAttemptAt: ptr(t0.Add(time.Minute)), Metadata: map[string]any{"channel": "chat"},
		PromptTokens: 1500, CompletionTokens: 90,
		Extraction: &entity.Extraction{Prompt: "compact", Mode: "json_object_schema", Repaired: true, Proposed: 3, Kept: 1,
			Dropped:  []entity.DroppedFact{{Subject: "alice", Predicate: "likes", Object: "Acme", Reason: entity.DropNotGrounded, Detail: "not in the episode"}},
			Warnings: []string{"predicate \"based_in\" is not in the ontology"}, Calls: 2, PromptTokens: 1500, CompletionTokens: 90,
			Skipped: "none", Error: "model timed out"},
		IdempotencyKey: "k1", FactIDs: []string{"f1"}, ForgottenAt: ptr(t0.Add(time.Hour)), Seq: 5,
	}
	requireAllSet(t, ep)
	ts := entity.Tombstone{Scope: "s1", Fingerprint: "abc123", At: t0, Reason: "user asked", FactIDs: []string{"f1"}}
	requireAllSet(t, ts)

	err := s.Update(ctx, "s1", func(tx graph.Tx) error {
		if err := tx.PutEntities([]entity.Entity{e, {ID: "e2", Name: "Acme"}}); err != nil {
			return err
		}
		if err := tx.PutFacts([]entity.Fact{f, lit}); err != nil {
			return err
		}
		if err := tx.PutEpisode(ep); err != nil {
			return err
		}
		return tx.PutTombstone(ts)
	})
	if err != nil {
		t.Fatal(err)
	}
	utc := func(tp *time.Time) *time.Time {
		if tp == nil {
			return nil
		}
		u := tp.UTC()
		return &u
	}
	e.CreatedAt = e.CreatedAt.UTC()
	f.RecordedAt = f.RecordedAt.UTC()
	f.Claims[0].From = f.Claims[0].From.UTC()
	lit.RecordedAt, lit.Claims = f.RecordedAt, f.Claims
	lit.Seq = 4
	_ = utc
	err = s.View(ctx, "s1", func(tx graph.Tx) error {
		gotE, err := tx.Entity("e1")
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(gotE, e) {
			t.Errorf("entity:\n got %s\nwant %s", jsonOf(gotE), jsonOf(e))
		}
		for _, want := range []entity.Fact{f, lit} {
			got, err := tx.Fact(want.ID)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("fact %s:\n got %s\nwant %s", want.ID, jsonOf(got), jsonOf(want))
			}
		}
		byValue, _, err := tx.Facts(graph.FactFilter{Value: "8080 port"})
		if err != nil {
			return err
		}
		if len(byValue) != 1 || byValue[0].ID != "f3" {
			t.Errorf("Facts by normalised value: got %d facts", len(byValue))
		}
		gotEp, err := tx.Episode("ep1")
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(gotEp, ep) {
			t.Errorf("episode:\n got %s\nwant %s", jsonOf(gotEp), jsonOf(ep))
		}
		gotTs, err := tx.Tombstones([]string{"abc123", "nope"})
		if err != nil {
			return err
		}
		if len(gotTs) != 1 || !reflect.DeepEqual(gotTs["abc123"], ts) {
			t.Errorf("tombstones: got %s, want %s", jsonOf(gotTs), jsonOf(ts))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A change feed consumer sees every record once at its latest write,
// deletions included, and a record re-created after a delete only as
// written.
func TestChanges(t *testing.T) {
	s := mustOpenClosing(t)
	fact := func(id string) entity.Fact {
		return entity.Fact{ID: id, SubjectID: "e1", Predicate: "likes", Value: id, ValidFrom: t0}
	}
	steps := []func(graph.Tx) error{
		func(tx graph.Tx) error {
			return tx.PutEntities([]entity.Entity{{ID: "e1", Name: "A"}, {ID: "e2", Name: "B"}})
		},
		func(tx graph.Tx) error { return tx.PutFacts([]entity.Fact{fact("f1"), fact("f2"), fact("f3")}) },
		func(tx graph.Tx) error { return tx.PutFacts([]entity.Fact{fact("f1")}) }, // rewrite
		func(tx graph.Tx) error { return tx.DeleteFact("f2") },
		func(tx graph.Tx) error { return tx.DeleteEntity("e2") },
		func(tx graph.Tx) error { return tx.PutEntities([]entity.Entity{{ID: "e2", Name: "B again"}}) }, // re-create
		func(tx graph.Tx) error { return tx.PutTombstone(entity.Tombstone{Fingerprint: "fp", At: t0}) },
	}
	for i, step := range steps {
		if err := s.Update(ctx, "s1", step); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	got, err := s.Changes(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	type ch struct {
		Kind, ID string
		Deleted  bool
	}
	var order []ch
	for i, c := range got {
		if i > 0 && c.Seq <= got[i-1].Seq {
			t.Errorf("Changes not in increasing seq order: %v", got)
		}
		if c.Scope != "s1" {
			t.Errorf("change %+v: scope %q", c, c.Scope)
		}
		order = append(order, ch{c.Kind, c.ID, c.Deleted})
	}
	want := []ch{
		{graph.KindEntity, "e1", false},
		{graph.KindFact, "f3", false},
		{graph.KindFact, "f1", false},
		{graph.KindFact, "f2", true},
		{graph.KindEntity, "e2", false},
		{graph.KindTombstone, "fp", false},
	}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("Changes:\n got %v\nwant %v", order, want)
	}
	// Paging by the last seq seen gives the same feed.
	var paged []graph.Change
	for after := uint64(0); ; {
		page, err := s.Changes(ctx, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		paged = append(paged, page...)
		after = page[len(page)-1].Seq
	}
	if !reflect.DeepEqual(paged, got) {
		t.Errorf("paged Changes %v, want %v", paged, got)
	}
	// The seq a record carries is the one Changes lists it at.
	err = s.View(ctx, "s1", func(tx graph.Tx) error {
		f1, err := tx.Fact("f1")
		if err != nil {
			return err
		}
		if f1.Seq != got[2].Seq {
			t.Errorf("f1.Seq = %d, Changes lists it at %d", f1.Seq, got[2].Seq)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Concurrent writers in two scopes while a reader tails each scope's feed:
// a scope's lock makes its sequence order its commit order, so the tailer,
// which only ever asks a scope for changes after the last seq it saw there,
// still sees every record.
func TestScopeChangesTailUnderConcurrentWrites(t *testing.T) {
	s := mustOpenClosing(t)
	const writers, rounds, batch = 4, 15, 20
	scopes := []entity.Scope{"scope-0", "scope-1"}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				fs := make([]entity.Fact, batch)
				for i := range fs {
					id := fmt.Sprintf("w%d-r%02d-%02d", w, r, i)
					fs[i] = entity.Fact{ID: id, SubjectID: fmt.Sprintf("e%d", i%5), Predicate: "likes", Value: id, ValidFrom: t0}
				}
				if err := s.Update(ctx, scopes[w%2], func(tx graph.Tx) error { return tx.PutFacts(fs) }); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	seen := map[string]uint64{}
	after := map[entity.Scope]uint64{}
	tail := func(scope entity.Scope) {
		for {
			page, err := s.ScopeChanges(ctx, scope, after[scope], 50)
			if err != nil {
				t.Fatalf("ScopeChanges: %v", err)
			}
			if len(page) == 0 {
				return
			}
			if testing.Verbose() {
				t.Logf("%s after %d: %d changes %d..%d", scope, after[scope], len(page), page[0].Seq, page[len(page)-1].Seq)
			}
			for _, c := range page {
				if c.Seq <= after[scope] || c.Scope != scope {
					t.Fatalf("change %+v in a page of %s after %d", c, scope, after[scope])
				}
				if _, dup := seen[c.ID]; dup {
					t.Errorf("record %s listed twice", c.ID)
				}
				seen[c.ID] = c.Seq
				after[scope] = c.Seq
			}
		}
	}
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
			tail(scopes[0])
			tail(scopes[1])
		}
	}
	tail(scopes[0])
	tail(scopes[1])
	close(errs)
	for err := range errs {
		t.Fatalf("writer: %v", err)
	}
	if len(seen) != writers*rounds*batch {
		all, err := s.Changes(ctx, 0, 0)
		t.Errorf("tailer saw %d records, want %d (the whole feed has %d, %v)", len(seen), writers*rounds*batch, len(all), err)
	}
	heads, err := s.Heads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, scope := range scopes {
		if heads[scope] != after[scope] {
			t.Errorf("head of %s is %d, its last change %d", scope, heads[scope], after[scope])
		}
	}
}

// A write transaction holds only its own scope's lock: while one is open in
// scope a, a writer of scope b commits, and another writer of scope a waits
// for it. (With one lock for the whole store, b would wait too.)
func TestWritersOfTwoScopesDoNotWait(t *testing.T) {
	s := mustOpenClosing(t)
	put := func(id string) func(graph.Tx) error {
		return func(tx graph.Tx) error {
			return tx.PutFacts([]entity.Fact{{ID: id, SubjectID: "e1", Predicate: "likes", Value: id, ValidFrom: t0}})
		}
	}
	inA, release := make(chan struct{}), make(chan struct{})
	heldA := make(chan error, 1)
	go func() {
		heldA <- s.Update(ctx, "a", func(tx graph.Tx) error {
			if err := put("a1")(tx); err != nil {
				return err
			}
			select {
			case inA <- struct{}{}:
			default: // a retried attempt
			}
			<-release
			return nil
		})
	}()
	<-inA
	bDone := make(chan error, 1)
	go func() { bDone <- s.Update(ctx, "b", put("b1")) }()
	secondA := make(chan error, 1)
	go func() { secondA <- s.Update(ctx, "a", put("a2")) }()
	select {
	case err := <-bDone:
		if err != nil {
			t.Fatalf("writer of b: %v", err)
		}
	case <-time.After(30 * time.Second):
		close(release)
		t.Fatal("a writer of scope b waited for an open transaction of scope a")
	}
	select {
	case err := <-secondA:
		t.Fatalf("a second writer of scope a committed (%v) while the first held the scope", err)
	default:
	}
	close(release)
	if err := <-heldA; err != nil {
		t.Fatalf("first writer of a: %v", err)
	}
	if err := <-secondA; err != nil {
		t.Fatalf("second writer of a: %v", err)
	}
	// In scope a, numbers follow commit order.
	cs, err := s.ScopeChanges(ctx, "a", 0, 0)
	if err != nil || len(cs) != 2 || cs[0].ID != "a1" || cs[1].ID != "a2" {
		t.Fatalf("ScopeChanges(a): %+v, %v; want a1 then a2", cs, err)
	}
}

func TestUpdateRollsBack(t *testing.T) {
	s := mustOpenClosing(t)
	put := func(tx graph.Tx) error { return tx.PutEntities([]entity.Entity{{ID: "e1", Name: "A"}}) }
	boom := errors.New("boom")
	err := s.Update(ctx, "s1", func(tx graph.Tx) error {
		if err := put(tx); err != nil {
			return err
		}
		return boom
	})
	if err != boom {
		t.Errorf("Update returned %v, want the caller's error unchanged", err)
	}
	func() {
		defer func() {
			if r := recover(); r != "panic in fn" {
				t.Errorf("recovered %v, want the caller's panic", r)
			}
		}()
		s.Update(ctx, "s1", func(tx graph.Tx) error {
			if err := put(tx); err != nil {
				return err
			}
			panic("panic in fn")
		})
	}()
	err = s.View(ctx, "s1", func(tx graph.Tx) error {
		_, err := tx.Entity("e1")
		if entity.ErrorCode(err) != entity.ENOTFOUND {
			t.Errorf("after rollbacks Entity(e1): %v, want ENOTFOUND", err)
		}
		if err := put(tx); entity.ErrorCode(err) != entity.EINTERNAL {
			t.Errorf("write in View: %v, want EINTERNAL", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if ch, err := s.Changes(ctx, 0, 0); err != nil || len(ch) != 0 {
		t.Errorf("Changes after rollbacks: %v, %v; want none", ch, err)
	}
	// A failed statement (a constraint violation here) becomes an
	// application error code, and the store keeps working.
	err = s.Update(ctx, "s1", func(tx graph.Tx) error {
		if err := tx.PutEpisode(entity.Episode{ID: "a", Status: entity.EpisodeQueued, IdempotencyKey: "k"}); err != nil {
			return err
		}
		return tx.PutEpisode(entity.Episode{ID: "b", Status: entity.EpisodeQueued, IdempotencyKey: "k"})
	})
	if entity.ErrorCode(err) != entity.ECONFLICT {
		t.Errorf("second episode with one idempotency key: %v, want ECONFLICT", err)
	}
	if err := s.Update(ctx, "s1", put); err != nil {
		t.Errorf("Update after a failed one: %v", err)
	}
}

func TestUnavailable(t *testing.T) {
	// Nothing listens on port 1.
	_, err := neo4j.Open(ctx, neo4j.Config{URI: "bolt://127.0.0.1:1", RetryTime: time.Second})
	if entity.ErrorCode(err) != entity.EUNAVAILABLE {
		t.Errorf("Open without a server: %v, want EUNAVAILABLE", err)
	}
	_, err = neo4j.Open(ctx, neo4j.Config{})
	if entity.ErrorCode(err) != entity.EINVALID {
		t.Errorf("Open without a URI: %v, want EINVALID", err)
	}
}

func TestClosed(t *testing.T) {
	s := mustOpen(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(ctx); entity.ErrorCode(err) != entity.EUNAVAILABLE {
		t.Errorf("Ping after Close: %v, want EUNAVAILABLE", err)
	}
	err := s.View(ctx, "s1", func(graph.Tx) error { return nil })
	if entity.ErrorCode(err) != entity.EUNAVAILABLE {
		t.Errorf("View after Close: %v, want EUNAVAILABLE", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// Corner cases where a store could drift from the embedded one.
func TestCorners(t *testing.T) {
	s := mustOpenClosing(t)
	err := s.Update(ctx, "s1", func(tx graph.Tx) error {
		if err := tx.PutFacts([]entity.Fact{
			{ID: "f1", SubjectID: "e1", Predicate: "says", Value: "!!!", ValidFrom: t0},
			{ID: "f2", SubjectID: "e1", Predicate: "says", Value: "hello", ValidFrom: t0},
		}); err != nil {
			return err
		}
		for _, ep := range []entity.Episode{
			{ID: "ep1", Status: entity.EpisodeQueued, ReferenceTime: t0},
			{ID: "ep2", Status: entity.EpisodeQueued}, // unknown reference time: first
			{ID: "ep3", Status: entity.EpisodeProcessing, ReferenceTime: t0.Add(-time.Hour)},
			{ID: "ep4", Status: entity.EpisodeDone, ReferenceTime: t0.Add(-2 * time.Hour)},
			{ID: "ep5", Status: entity.EpisodeQueued, ReferenceTime: t0.Add(-3 * time.Hour), NextAttemptAt: ptr(t0.Add(time.Hour))},
		} {
			if err := tx.PutEpisode(ep); err != nil {
				return err
			}
		}
		return tx.PutMeta("empty", "")
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(ctx, "s1", func(tx graph.Tx) error {
		// A literal that normalises to "" is still a literal filter.
		for _, f := range []graph.FactFilter{{Value: "!!!"}, {SubjectID: "e1", Value: "?"}, {Predicate: "says", Value: "."}} {
			fs, _, err := tx.Facts(f)
			if err != nil {
				return err
			}
			if len(fs) != 1 || fs[0].ID != "f1" {
				t.Errorf("Facts(%+v) = %d facts, want f1 only", f, len(fs))
			}
		}
		v, ok, err := tx.Meta("empty")
		if err != nil || !ok || v != "" {
			t.Errorf(`Meta("empty") = %q, %v, %v; want "", true`, v, ok, err)
		}
		_, ok, err = tx.Meta("unset")
		if err != nil || ok {
			t.Errorf(`Meta("unset") ok = %v, %v; want false`, ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	due, err := s.DueEpisodes(ctx, t0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range due {
		ids = append(ids, d.ID)
	}
	if want := []string{"ep2", "ep3", "ep1"}; !slices.Equal(ids, want) {
		t.Errorf("DueEpisodes = %v, want %v", ids, want)
	}
}

// Names and literals longer than Neo4j can index are stored and found.
func TestLongKeys(t *testing.T) {
	s := mustOpenClosing(t)
	long := strings.Repeat("长名字 long name ", 1500) // ~30 KB
	value := strings.Repeat("a long literal value, ", 1000)
	err := s.Update(ctx, "s1", func(tx graph.Tx) error {
		if err := tx.PutEntities([]entity.Entity{{ID: "e1", Name: long, Aliases: []string{long + " 2"}}, {ID: "e2", Name: "Short"}}); err != nil {
			return err
		}
		return tx.PutFacts([]entity.Fact{
			{ID: "f1", SubjectID: "e1", Predicate: "says", Value: value, ValidFrom: t0},
			{ID: "f2", SubjectID: "e1", Predicate: "says", Value: value + " and more", ValidFrom: t0},
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(ctx, "s1", func(tx graph.Tx) error {
		e, err := tx.Entity("e1")
		if err != nil || e.Name != long {
			t.Errorf("Entity(e1): name of %d bytes, %v; want %d bytes", len(e.Name), err, len(long))
		}
		byKey, err := tx.EntitiesByKey([]string{long, long + " 2", long + " 3"})
		if err != nil {
			return err
		}
		if len(byKey[long]) != 1 || len(byKey[long+" 2"]) != 1 || len(byKey[long+" 3"]) != 0 {
			t.Errorf("EntitiesByKey of long names: %d, %d, %d entities; want 1, 1, 0",
				len(byKey[long]), len(byKey[long+" 2"]), len(byKey[long+" 3"]))
		}
		for _, p := range []string{entity.Normalize(long)[:100], entity.Normalize(long)[:2000], entity.Normalize(long + " 2")} {
			es, err := tx.EntitiesByPrefix(p, 10)
			if err != nil {
				return err
			}
			if len(es) != 1 || es[0].ID != "e1" {
				t.Errorf("EntitiesByPrefix(%d bytes): %d entities, want e1", len(p), len(es))
			}
		}
		fs, _, err := tx.Facts(graph.FactFilter{Value: value})
		if err != nil {
			return err
		}
		if len(fs) != 1 || fs[0].ID != "f1" || fs[0].Value != value {
			t.Errorf("Facts by a long value: %d facts, want f1 with its whole value", len(fs))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestChainsSeeUnsentFacts: PutFacts rows wait for the next statement, but
// a Chains read in the same transaction sees them — a fact moved to another
// chain is gone from its old one and found in its new one.
func TestChainsSeeUnsentFacts(t *testing.T) {
	s := mustOpenClosing(t)
	old, moved := graph.ChainKey{SubjectID: "e1", Predicate: "p"}, graph.ChainKey{SubjectID: "e2", Predicate: "p"}
	f := entity.Fact{ID: "f1", SubjectID: "e1", Predicate: "p", Value: "v"}
	if err := s.Update(ctx, "s", func(tx graph.Tx) error { return tx.PutFacts([]entity.Fact{f}) }); err != nil {
		t.Fatal(err)
	}
	err := s.Update(ctx, "s", func(tx graph.Tx) error {
		f.SubjectID = "e2"
		if err := tx.PutFacts([]entity.Fact{f}); err != nil {
			return err
		}
		for _, c := range []struct {
			key  graph.ChainKey
			want int
		}{{old, 0}, {moved, 1}, {old, 0}} {
			got, err := tx.Chains([]graph.ChainKey{c.key})
			if err != nil {
				return err
			}
			if len(got[c.key]) != c.want {
				t.Errorf("chain %v: %d facts, want %d", c.key, len(got[c.key]), c.want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFactLinks checks the graph links of facts written new, rewritten
// after a read (the transaction knows the stored fact), rewritten unread,
// moved to another subject or object, and deleted and put again in one
// transaction: a fact is linked to exactly the stored entities it names.
func TestFactLinks(t *testing.T) {
	s := mustOpenClosing(t)
	update := func(fn func(tx graph.Tx) error) {
		t.Helper()
		if err := s.Update(ctx, "s", fn); err != nil {
			t.Fatal(err)
		}
	}
	check := func(id string, subjects, objects []string) {
		t.Helper()
		gs, gos, err := s.Links(ctx, "s", id)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(gs, gos) != fmt.Sprint(subjects, objects) {
			t.Errorf("%s links: subjects %v objects %v, want %v %v", id, gs, gos, subjects, objects)
		}
	}
	fact := func(id, subject, object, value string) entity.Fact {
		return entity.Fact{ID: id, SubjectID: subject, Predicate: "p", ObjectID: object, Value: value, ValidFrom: t0}
	}
	update(func(tx graph.Tx) error {
		return tx.PutEntities([]entity.Entity{{ID: "a", Name: "A"}, {ID: "b", Name: "B"}, {ID: "c", Name: "C"}})
	})
	update(func(tx graph.Tx) error {
		return tx.PutFacts([]entity.Fact{fact("f1", "a", "b", ""), fact("f2", "a", "", "80"), fact("f3", "x", "c", "")})
	})
	check("f1", []string{"a"}, []string{"b"})
	check("f2", []string{"a"}, nil)
	check("f3", nil, []string{"c"})

	// f1 read first, f2 and f3 not: both kinds of rewrite, moved or not.
	update(func(tx graph.Tx) error {
		if _, err := tx.Chains([]graph.ChainKey{{SubjectID: "a", Predicate: "p"}}); err != nil {
			return err
		}
		return tx.PutFacts([]entity.Fact{fact("f1", "c", "a", ""), fact("f2", "a", "b", ""), fact("f3", "x", "c", "")})
	})
	check("f1", []string{"c"}, []string{"a"})
	check("f2", []string{"a"}, []string{"b"})
	check("f3", nil, []string{"c"})

	// Written, deleted and written again in one transaction, then once
	// more: stored once, with its links and no deletion in the feed.
	update(func(tx graph.Tx) error {
		if err := tx.PutFacts([]entity.Fact{fact("f4", "b", "", "v")}); err != nil {
			return err
		}
		if err := tx.DeleteFact("f4"); err != nil {
			return err
		}
		if err := tx.PutFacts([]entity.Fact{fact("f4", "b", "a", "")}); err != nil {
			return err
		}
		if _, err := tx.Fact("f4"); err != nil {
			return err
		}
		return tx.PutFacts([]entity.Fact{fact("f4", "c", "a", "")})
	})
	check("f4", []string{"c"}, []string{"a"})
	cs, err := s.ScopeChanges(ctx, "s", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.ID == "f4" && c.Deleted {
			t.Errorf("f4 put again after its deletion is still listed as deleted: %+v", cs)
		}
	}
}

// TestRewrites rewrites a fact with every field set into one with most of
// them gone or changed and back, in transactions that read the fact's chain
// first (the rewrite sends only what changed) and in ones that do not:
// each time the fact reads back exactly as last written, and the literal's
// index key follows the value.
func TestRewrites(t *testing.T) {
	s := mustOpenClosing(t)
	full := entity.Fact{
		ID: "f1", SubjectID: "e1", Subject: "Alice", Predicate: "works_at", ObjectID: "e2", Object: "Acme",
		Text: "Alice works at Acme", ValidFrom: t0, ValidTo: ptr(t0.Add(time.Hour)),
		RecordedAt: t0, ExpiredAt: ptr(t0.Add(2 * time.Hour)), Supersedes: "f0", SupersededBy: "f2",
		EpisodeIDs: []string{"ep1", "ep2"}, SourceKind: entity.UserExplicit, Confidence: 0.75, Importance: 7,
		Attributes: map[string]any{"reason": "cheaper"}, Hits: 12, LastAccessedAt: ptr(t0.Add(3 * time.Hour)),
		ExpiresAt: ptr(t0.Add(4 * time.Hour)), ForgottenAt: ptr(t0.Add(5 * time.Hour)), ArchivedAt: ptr(t0.Add(6 * time.Hour)),
		Claims:    []entity.Claim{{From: t0, EpisodeID: "ep1", SourceKind: entity.Tool, Confidence: 0.5, RecordedAt: t0}},
		Revisions: []entity.Revision{{Until: t0, ValidFrom: t0.Add(-time.Hour), ValidTo: ptr(t0), Supersedes: "f0"}},
		UpdatedAt: t0.Add(time.Minute), Conflicts: []string{"Globex"}, Waiting: true,
	}
	requireAllSet(t, full, "Value", "Scope", "Seq")
	slim := entity.Fact{ID: "f1", SubjectID: "e1", Subject: "Alice", Predicate: "works_at", Value: "Globex",
		ValidFrom: t0.Add(time.Minute), RecordedAt: t0, SourceKind: entity.UserExplicit, Confidence: 0.75, Importance: 7,
		EpisodeIDs: []string{"ep1"}, Claims: []entity.Claim{{From: t0, EpisodeID: "ep1", SourceKind: entity.Tool, Confidence: 0.5, RecordedAt: t0},
			{From: t0.Add(time.Minute), EpisodeID: "ep3", SourceKind: entity.UserExplicit, Confidence: 1, RecordedAt: t0}}}
	key := graph.ChainKey{SubjectID: "e1", Predicate: "works_at"}
	for i, want := range []entity.Fact{full, slim, full, slim, full} {
		read := i%2 == 0
		err := s.Update(ctx, "s", func(tx graph.Tx) error {
			if read {
				if _, err := tx.Chains([]graph.ChainKey{key}); err != nil {
					return err
				}
			}
			return tx.PutFacts([]entity.Fact{want})
		})
		if err != nil {
			t.Fatal(err)
		}
		err = s.View(ctx, "s", func(tx graph.Tx) error {
			got, err := tx.Fact("f1")
			if err != nil {
				return err
			}
			got.Scope, got.Seq = "", 0
			if jsonOf(got) != jsonOf(want) {
				t.Errorf("write %d (chain read first: %v):\n got %s\nwant %s", i, read, jsonOf(got), jsonOf(want))
			}
			byValue, _, err := tx.Facts(graph.FactFilter{Value: "globex"})
			if err != nil {
				return err
			}
			if len(byValue) != len(want.Value)/len("Globex") {
				t.Errorf("write %d: %d facts by value %q", i, len(byValue), "globex")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestWritersBound: no more write transactions of a Store run at once than
// Config.Writers, whatever their scopes; with no bound, writers of
// different scopes run together; a writer waiting for its turn gives up
// when its context ends, and the writes that ran are all there.
func TestWritersBound(t *testing.T) {
	mustOpenClosing(t) // an empty database
	for _, c := range []struct{ writers, want int }{{1, 1}, {2, 2}, {-1, 4}} {
		cfg := config(t)
		cfg.Writers = c.writers
		s, err := neo4j.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var running, most int
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.Update(ctx, fmt.Sprintf("w%d-%d", c.writers+1, i), func(tx graph.Tx) error {
					mu.Lock()
					running++
					most = max(most, running)
					mu.Unlock()
					time.Sleep(300 * time.Millisecond)
					mu.Lock()
					running--
					mu.Unlock()
					return tx.PutEntities([]entity.Entity{{ID: "e", Name: "E", Type: "Thing", CreatedAt: t0, UpdatedAt: t0}})
				})
				if err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if most != c.want {
			t.Errorf("writers %d: %d write transactions at most at once, want %d", c.writers, most, c.want)
		}
		if c.writers == 1 {
			hold := make(chan struct{})
			go s.Update(ctx, "held", func(graph.Tx) error { <-hold; return nil })
			time.Sleep(200 * time.Millisecond)
			short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			err := s.Update(short, "waiting", func(graph.Tx) error { return nil })
			cancel()
			close(hold)
			if err == nil {
				t.Error("a writer waiting for its turn past its context's end succeeded")
			}
		}
		for i := range 4 {
			err := s.View(ctx, fmt.Sprintf("w%d-%d", c.writers+1, i), func(tx graph.Tx) error { _, err := tx.Entity("e"); return err })
			if err != nil {
				t.Errorf("writers %d, scope %d: %v", c.writers, i, err)
			}
		}
		s.Close()
	}
}
