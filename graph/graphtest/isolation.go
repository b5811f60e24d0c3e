package graphtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// testIsolation fills two scopes with records that share ids, names, keys
// and values but differ in content, plus records only one scope has, and
// reads each scope through every read path: nothing of the other scope
// may come back.
func testIsolation(t *testing.T, open Opener) {
	s := fresh(t, open)
	fill := func(scope entity.Scope, tag string, only string) {
		t.Helper()
		update(t, s, scope, func(tx graph.Tx) error {
			es := []entity.Entity{NewEntity("e1", "Alice", "Ali"), NewEntity("e2", "北京"), NewEntity(only+"-e", only+" person")}
			for i := range es {
				es[i].Summary = tag
			}
			if err := tx.PutEntities(es); err != nil {
				return err
			}
			fs := []entity.Fact{
				NewFact("f1", "e1", "knows", "e2", Day(0), nil),
				NewValueFact("f2", "e1", "likes", "tea", Day(0), nil),
				NewFact("f3", "e2", "near", "e1", Day(0), nil),
				NewValueFact(only+"-f", "e1", "likes", only, Day(0), nil),
				NewFact(only+"-g", only+"-e", "knows", "e1", Day(0), nil),
			}
			for i := range fs {
				fs[i].Text = tag
			}
			if err := tx.PutFacts(fs); err != nil {
				return err
			}
			for _, e := range []entity.Episode{NewEpisode("p1", entity.EpisodeQueued, Day(0)), NewEpisode(only+"-p", entity.EpisodeQueued, Day(1))} {
				e.Content = tag
				e.IdempotencyKey = "key-" + e.ID
				if err := tx.PutEpisode(e); err != nil {
					return err
				}
			}
			for _, fp := range []string{"fp1", only + "-fp"} {
				if err := tx.PutTombstone(NewTombstone(fp, tag)); err != nil {
					return err
				}
			}
			if err := tx.PutMeta("m", tag); err != nil {
				return err
			}
			return tx.PutMeta(only+"-m", tag)
		})
	}
	fill(ScopeA, "tag-a", "onlya")
	fill(ScopeB, "tag-b", "onlyb")

	for _, tc := range []struct {
		scope         entity.Scope
		tag, mine, ot string
	}{{ScopeA, "tag-a", "onlya", "onlyb"}, {ScopeB, "tag-b", "onlyb", "onlya"}} {
		t.Run(tc.scope, func(t *testing.T) {
			CheckScope(t, s, tc.scope)
			v := inspect(t, s, tc.scope)
			if len(v.entities) != 3 || len(v.facts) != 5 || len(v.episodes) != 2 || len(v.tombstones) != 2 {
				t.Errorf("scope holds %d entities, %d facts, %d episodes, %d tombstones; want 3, 5, 2, 2",
					len(v.entities), len(v.facts), len(v.episodes), len(v.tombstones))
			}
			leak := func(what string, scope, content, id string) {
				t.Helper()
				if scope != tc.scope || content != tc.tag || strings.HasPrefix(id, tc.ot) {
					t.Errorf("%s returned %s (scope %q, content %q) in %s", what, id, scope, content, tc.scope)
				}
			}
			err := s.View(ctx, tc.scope, func(tx graph.Tx) error {
				for _, id := range []string{"e1", "e2", tc.mine + "-e"} {
					e, err := tx.Entity(id)
					if err != nil {
						return err
					}
					leak("Entity", e.Scope, e.Summary, e.ID)
				}
				byKey, err := tx.EntitiesByKey([]string{"alice", "ali", "北京", tc.ot + " person", tc.mine + " person"})
				if err != nil {
					return err
				}
				for k, es := range byKey {
					if k == tc.ot+" person" {
						continue
					}
					if len(es) != 1 {
						t.Errorf("EntitiesByKey[%q] = %d entities, want 1", k, len(es))
					}
					for _, e := range es {
						leak("EntitiesByKey", e.Scope, e.Summary, e.ID)
					}
				}
				if len(byKey[tc.ot+" person"]) != 0 {
					t.Errorf("EntitiesByKey found the other scope's person")
				}
				for _, p := range []string{"a", "北", "only", ""} {
					es, err := tx.EntitiesByPrefix(p, 100)
					if err != nil {
						return err
					}
					for _, e := range es {
						leak(fmt.Sprintf("EntitiesByPrefix(%q)", p), e.Scope, e.Summary, e.ID)
					}
				}
				for _, id := range []string{"f1", "f2", "f3", tc.mine + "-f", tc.mine + "-g"} {
					f, err := tx.Fact(id)
					if err != nil {
						return err
					}
					leak("Fact", f.Scope, f.Text, f.ID)
				}
				chains, err := tx.Chains([]graph.ChainKey{{SubjectID: "e1", Predicate: "likes"}, {SubjectID: "e1", Predicate: "knows"}, {SubjectID: tc.ot + "-e", Predicate: "knows"}})
				if err != nil {
					return err
				}
				if n := len(chains[graph.ChainKey{SubjectID: "e1", Predicate: "likes"}]); n != 2 {
					t.Errorf("Chains[e1 likes] has %d facts, want 2", n)
				}
				for _, ch := range chains {
					for _, f := range ch {
						leak("Chains", f.Scope, f.Text, f.ID)
					}
				}
				for _, id := range []string{"e1", "e2", tc.ot + "-e"} {
					fs, err := tx.FactsOf(id, 100)
					if err != nil {
						return err
					}
					for _, f := range fs {
						leak("FactsOf("+id+")", f.Scope, f.Text, f.ID)
					}
				}
				for _, f := range []graph.FactFilter{{}, {SubjectID: "e1"}, {Predicate: "likes"}, {ObjectID: "e1"}, {Value: "tea"}, {Value: tc.ot}, {SubjectID: tc.ot + "-e"}} {
					f.Limit = 100
					fs, _, err := tx.Facts(f)
					if err != nil {
						return err
					}
					for _, x := range fs {
						leak(fmt.Sprintf("Facts(%+v)", f), x.Scope, x.Text, x.ID)
					}
				}
				for _, id := range []string{"p1", tc.mine + "-p"} {
					e, err := tx.Episode(id)
					if err != nil {
						return err
					}
					leak("Episode", e.Scope, e.Content, e.ID)
					e, err = tx.EpisodeByKey("key-" + id)
					if err != nil {
						return err
					}
					leak("EpisodeByKey", e.Scope, e.Content, e.ID)
				}
				for _, st := range []string{"", entity.EpisodeQueued} {
					es, _, err := tx.Episodes(st, "", 100)
					if err != nil {
						return err
					}
					for _, e := range es {
						leak("Episodes", e.Scope, e.Content, e.ID)
					}
				}
				ts, err := tx.Tombstones([]string{"fp1", tc.ot + "-fp", tc.mine + "-fp"})
				if err != nil {
					return err
				}
				if len(ts) != 2 {
					t.Errorf("Tombstones found %d, want 2", len(ts))
				}
				for _, x := range ts {
					leak("Tombstones", x.Scope, x.Reason, x.Fingerprint)
				}
				for _, k := range []string{"m", tc.mine + "-m"} {
					if v, ok, err := tx.Meta(k); err != nil || !ok || v != tc.tag {
						t.Errorf("Meta(%q) = %q, %v, %v; want %q", k, v, ok, err, tc.tag)
					}
				}
				if _, ok, err := tx.Meta(tc.ot + "-m"); ok || err != nil {
					t.Errorf("Meta of the other scope's key: ok %v, err %v", ok, err)
				}
				return nil
			})
			if err != nil {
				t.Fatalf("reading %s: %v", tc.scope, err)
			}
			for _, id := range []string{tc.ot + "-e"} {
				_, err := read(t, s, tc.scope, func(tx graph.Tx) (entity.Entity, error) { return tx.Entity(id) })
				wantCode(t, "Entity of the other scope", err, entity.ENOTFOUND)
			}
			_, err = read(t, s, tc.scope, func(tx graph.Tx) (entity.Fact, error) { return tx.Fact(tc.ot + "-f") })
			wantCode(t, "Fact of the other scope", err, entity.ENOTFOUND)
			_, err = read(t, s, tc.scope, func(tx graph.Tx) (entity.Episode, error) { return tx.Episode(tc.ot + "-p") })
			wantCode(t, "Episode of the other scope", err, entity.ENOTFOUND)
			_, err = read(t, s, tc.scope, func(tx graph.Tx) (entity.Episode, error) { return tx.EpisodeByKey("key-" + tc.ot + "-p") })
			wantCode(t, "EpisodeByKey of the other scope", err, entity.ENOTFOUND)
		})
	}
}
