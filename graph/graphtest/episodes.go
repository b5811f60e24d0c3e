package graphtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

func episodeData() (a, b []entity.Episode) {
	e1 := NewEpisode("p1", entity.EpisodeQueued, Day(1))
	e1.IdempotencyKey = "k1"
	e1.Metadata = map[string]any{"channel": "slack", "thread": 7.0, "tags": []any{"x"}}
	e2 := NewEpisode("p2", entity.EpisodeProcessing, Day(2))
	e2.Attempts = 1
	e2.PromptTokens, e2.CompletionTokens = 1200, 80
	e3 := NewEpisode("p3", entity.EpisodeDone, Day(3))
	e3.IdempotencyKey = "k3"
	e3.FactIDs = []string{"f01", "f02"}
	e3.Content = "我在上海工作 — I work in Shanghai"
	e3.Extraction = &entity.Extraction{Prompt: "compact", Mode: "json_object_schema", Proposed: 3, Kept: 2,
		Dropped:  []entity.DroppedFact{{Subject: "我", Predicate: "likes", Object: "上海菜", Reason: entity.DropNotGrounded, Detail: "the object is not in the episode"}},
		Warnings: []string{"predicate \"based_in\" is not in the ontology"}, Calls: 2, PromptTokens: 900, CompletionTokens: 60}
	e4 := NewEpisode("p4", entity.EpisodeFailed, Day(4))
	e4.Error = "model timed out"
	e4.Attempts = 5
	e4.NextAttemptAt = Ptr(Day(5))
	e5 := NewEpisode("p5", entity.EpisodeQueued, Day(5))
	e5.Kind, e5.Role, e5.Speaker = entity.KindJSON, entity.RoleTool, ""
	e5.Extraction = &entity.Extraction{Skipped: "no extraction model is configured"}
	a = []entity.Episode{e1, e2, e3, e4, e5}

	g1 := NewEpisode("p1", entity.EpisodeDone, Day(1))
	g1.IdempotencyKey = "k1" // keys are per scope
	g6 := NewEpisode("p6", entity.EpisodeQueued, Day(0))
	g6.IdempotencyKey = "k6"
	b = []entity.Episode{g1, g6}
	return a, b
}

func testEpisodes(t *testing.T, open Opener) {
	load := func(t *testing.T, s graph.Store) (a, b []entity.Episode) {
		t.Helper()
		a, b = episodeData()
		update(t, s, ScopeA, putEpisodes(a...))
		update(t, s, ScopeB, putEpisodes(b...))
		return a, b
	}
	get := func(t *testing.T, s graph.Store, scope entity.Scope, id string) (entity.Episode, error) {
		t.Helper()
		return read(t, s, scope, func(tx graph.Tx) (entity.Episode, error) { return tx.Episode(id) })
	}
	byKey := func(t *testing.T, s graph.Store, scope entity.Scope, key string) (entity.Episode, error) {
		t.Helper()
		return read(t, s, scope, func(tx graph.Tx) (entity.Episode, error) { return tx.EpisodeByKey(key) })
	}

	t.Run("PutGet", func(t *testing.T) {
		s := fresh(t, open)
		a, b := load(t, s)
		for _, want := range a {
			got, err := get(t, s, ScopeA, want.ID)
			if err != nil {
				t.Fatalf("Episode(%s): %v", want.ID, err)
			}
			sameRecord(t, "Episode("+want.ID+")", got, want, ScopeA)
			if got.Seq == 0 {
				t.Errorf("Episode(%s).Seq = 0", want.ID)
			}
		}
		got, err := get(t, s, ScopeB, "p1")
		if err == nil {
			sameRecord(t, "Episode(p1) in B", got, b[0], ScopeB)
		}
		_, err = get(t, s, ScopeA, "p6")
		wantCode(t, "Episode(p6) in A (it is in B)", err, entity.ENOTFOUND)
		_, err = get(t, s, ScopeA, "nope")
		wantCode(t, "Episode(nope)", err, entity.ENOTFOUND)
	})

	t.Run("ByKey", func(t *testing.T) {
		s := fresh(t, open)
		a, b := load(t, s)
		if got, err := byKey(t, s, ScopeA, "k1"); err != nil {
			t.Errorf("EpisodeByKey(k1): %v", err)
		} else {
			sameRecord(t, "EpisodeByKey(k1)", got, a[0], ScopeA)
		}
		if got, err := byKey(t, s, ScopeB, "k1"); err != nil {
			t.Errorf("EpisodeByKey(k1) in B: %v", err)
		} else {
			sameRecord(t, "EpisodeByKey(k1) in B", got, b[0], ScopeB)
		}
		for _, tc := range []struct {
			scope entity.Scope
			key   string
		}{{ScopeA, "k6"}, {ScopeA, "nope"}, {ScopeB, "k3"}, {ScopeA, ""}} {
			_, err := byKey(t, s, tc.scope, tc.key)
			wantCode(t, fmt.Sprintf("EpisodeByKey(%q) in %s", tc.key, tc.scope), err, entity.ENOTFOUND)
		}
		// Moving the key: the old one stops resolving.
		e3 := a[2]
		e3.IdempotencyKey = "k3b"
		update(t, s, ScopeA, putEpisodes(e3))
		_, err := byKey(t, s, ScopeA, "k3")
		wantCode(t, "EpisodeByKey(k3) after the key moved", err, entity.ENOTFOUND)
		if got, err := byKey(t, s, ScopeA, "k3b"); err != nil || got.ID != "p3" {
			t.Errorf("EpisodeByKey(k3b) = %s, %v; want p3", got.ID, err)
		}
		// A key names one episode per scope.
		dup := NewEpisode("p7", entity.EpisodeQueued, Day(7))
		dup.IdempotencyKey = "k1"
		err = s.Update(ctx, ScopeA, putEpisodes(dup))
		wantCode(t, "PutEpisode with another episode's key", err, entity.ECONFLICT)
		_, err = get(t, s, ScopeA, "p7")
		wantCode(t, "Episode(p7) after the conflict", err, entity.ENOTFOUND)
		// Rewriting the owner with its own key is fine.
		update(t, s, ScopeA, putEpisodes(a[0]))
	})

	t.Run("ListByStatus", func(t *testing.T) {
		s := fresh(t, open)
		a, _ := load(t, s)
		list := func(scope entity.Scope, status string, limit int) []string {
			t.Helper()
			eps := pages(t, fmt.Sprintf("Episodes(%q, limit %d)", status, limit), limit, func(c string) ([]entity.Episode, string, error) {
				return readPage(t, s, scope, func(tx graph.Tx) ([]entity.Episode, string, error) { return tx.Episodes(status, c, limit) })
			})
			for _, e := range eps {
				if e.Scope != scope || (status != "" && e.Status != status) {
					t.Errorf("Episodes(%q) in %s returned %s (%s, %s)", status, scope, e.ID, e.Scope, e.Status)
				}
			}
			return episodeIDs(eps)
		}
		for _, limit := range []int{1, 2, 100} {
			wantIDs(t, "Episodes(all)", list(ScopeA, "", limit), "p1", "p2", "p3", "p4", "p5")
			wantIDs(t, "Episodes(queued)", list(ScopeA, entity.EpisodeQueued, limit), "p1", "p5")
			wantIDs(t, "Episodes(done)", list(ScopeA, entity.EpisodeDone, limit), "p3")
			wantIDs(t, "Episodes(queued) in B", list(ScopeB, entity.EpisodeQueued, limit), "p6")
			wantIDs(t, "Episodes(all) in B", list(ScopeB, "", limit), "p1", "p6")
		}
		e1 := a[0]
		e1.Status = entity.EpisodeDone
		update(t, s, ScopeA, putEpisodes(e1))
		wantIDs(t, "Episodes(queued) after p1 is done", list(ScopeA, entity.EpisodeQueued, 10), "p5")
		wantIDs(t, "Episodes(done) after p1 is done", list(ScopeA, entity.EpisodeDone, 10), "p1", "p3")
	})

	t.Run("Delete", func(t *testing.T) {
		s := fresh(t, open)
		load(t, s)
		update(t, s, ScopeA, func(tx graph.Tx) error { return tx.DeleteEpisode("p1") })
		_, err := get(t, s, ScopeA, "p1")
		wantCode(t, "Episode(p1) after delete", err, entity.ENOTFOUND)
		_, err = byKey(t, s, ScopeA, "k1")
		wantCode(t, "EpisodeByKey(k1) after delete", err, entity.ENOTFOUND)
		wantIDs(t, "Episodes(queued) after delete", episodeIDs(allEpisodes(t, s, ScopeA, entity.EpisodeQueued)), "p5")
		wantIDs(t, "Episodes(all) after delete", episodeIDs(allEpisodes(t, s, ScopeA, "")), "p2", "p3", "p4", "p5")
		err = s.Update(ctx, ScopeA, func(tx graph.Tx) error { return tx.DeleteEpisode("p1") })
		wantCode(t, "DeleteEpisode(p1) twice", err, entity.ENOTFOUND)
		err = s.Update(ctx, ScopeA, func(tx graph.Tx) error { return tx.DeleteEpisode("p6") })
		wantCode(t, "DeleteEpisode(p6) in A (it is in B)", err, entity.ENOTFOUND)
		if got, err := byKey(t, s, ScopeB, "k1"); err != nil || got.ID != "p1" {
			t.Errorf("EpisodeByKey(k1) in B after A's delete = %s, %v", got.ID, err)
		}
		// The key is free again.
		e := NewEpisode("p8", entity.EpisodeQueued, Day(8))
		e.IdempotencyKey = "k1"
		update(t, s, ScopeA, putEpisodes(e))
		if got, err := byKey(t, s, ScopeA, "k1"); err != nil || got.ID != "p8" {
			t.Errorf("EpisodeByKey(k1) after reuse = %s, %v; want p8", got.ID, err)
		}
	})

	t.Run("Invalid", func(t *testing.T) {
		s := fresh(t, open)
		other := NewEpisode("p1", entity.EpisodeQueued, Day(1))
		other.Scope = ScopeB
		for name, e := range map[string]entity.Episode{
			"no id":       NewEpisode("", entity.EpisodeQueued, Day(1)),
			"other scope": other,
		} {
			err := s.Update(ctx, ScopeA, putEpisodes(NewEpisode("ok", entity.EpisodeQueued, Day(1)), e))
			wantCode(t, "PutEpisode "+name, err, entity.EINVALID)
		}
		wantIDs(t, "Episodes after rejected writes", episodeIDs(allEpisodes(t, s, ScopeA, "")))
	})
}

func testDueEpisodes(t *testing.T, open Opener) {
	s := fresh(t, open)
	now := Day(10)
	due := func(at time.Time, limit int) []string {
		t.Helper()
		refs, err := s.DueEpisodes(ctx, at, limit)
		if err != nil {
			t.Fatalf("DueEpisodes: %v", err)
		}
		out := make([]string, len(refs))
		for i, r := range refs {
			out[i] = r.Scope + "/" + r.ID
		}
		return out
	}
	wantIDs(t, "DueEpisodes on an empty store", due(now, 10))

	q1 := NewEpisode("q1", entity.EpisodeQueued, Day(3))
	p1 := NewEpisode("p1", entity.EpisodeProcessing, Day(1))
	d1 := NewEpisode("d1", entity.EpisodeDone, Day(0))
	f1 := NewEpisode("f1", entity.EpisodeFailed, Day(0).Add(time.Hour))
	q2 := NewEpisode("q2", entity.EpisodeQueued, Day(2))
	q2.NextAttemptAt = Ptr(now.Add(time.Hour)) // backing off
	q3 := NewEpisode("q3", entity.EpisodeQueued, Day(4))
	q3.NextAttemptAt = Ptr(now.Add(-time.Minute))
	q5 := NewEpisode("q5", entity.EpisodeQueued, Day(5))
	q5.NextAttemptAt = Ptr(now) // due exactly now
	update(t, s, ScopeA, putEpisodes(q3, q1, p1, d1, f1, q2, q5))
	q4 := NewEpisode("q4", entity.EpisodeQueued, Day(0).Add(12*time.Hour))
	update(t, s, ScopeB, putEpisodes(q4))

	a, b := ScopeA+"/", ScopeB+"/"
	wantIDs(t, "DueEpisodes(now)", due(now, 10), b+"q4", a+"p1", a+"q1", a+"q3", a+"q5")
	wantIDs(t, "DueEpisodes(now, 2)", due(now, 2), b+"q4", a+"p1")
	wantIDs(t, "DueEpisodes(later)", due(now.Add(2*time.Hour), 10), b+"q4", a+"p1", a+"q2", a+"q1", a+"q3", a+"q5")

	// Finishing, failing, backing off and deleting take episodes out.
	q1.Status = entity.EpisodeDone
	q3.NextAttemptAt = Ptr(now.Add(time.Minute))
	q2.NextAttemptAt = nil
	update(t, s, ScopeA, putEpisodes(q1, q3, q2))
	update(t, s, ScopeA, func(tx graph.Tx) error { return tx.DeleteEpisode("p1") })
	q4.Status = entity.EpisodeFailed
	update(t, s, ScopeB, putEpisodes(q4))
	wantIDs(t, "DueEpisodes after changes", due(now, 10), a+"q2", a+"q5")
	// Retrying a failed episode puts it back.
	f1.Status = entity.EpisodeQueued
	update(t, s, ScopeA, putEpisodes(f1))
	wantIDs(t, "DueEpisodes after a retry", due(now, 10), a+"f1", a+"q2", a+"q5")
}
