package graphtest

import (
	"fmt"
	"testing"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

func entityData() (alice, bob, beijing, sam1, sam2 entity.Entity) {
	alice = NewEntity("e1", "Alice Smith", "Ali", "爱丽丝")
	alice.Attributes = map[string]any{"role": "engineer", "level": 3.0, "tags": []any{"a", "b"}, "nested": map[string]any{"ok": true}}
	bob = NewEntity("e2", "Bob")
	beijing = NewEntity("e3", "北京", "Beijing", "Peking")
	beijing.Type = "place"
	sam1 = NewEntity("e4", "Sam")
	sam2 = NewEntity("e5", "SAM!", "Samuel")
	return
}

func testEntities(t *testing.T, open Opener) {
	t.Run("PutGet", func(t *testing.T) {
		s := fresh(t, open)
		alice, bob, beijing, _, _ := entityData()
		other := NewEntity("e1", "Mallory")
		update(t, s, ScopeA, putEntities(alice, bob, beijing))
		update(t, s, ScopeB, putEntities(other))
		for _, want := range []entity.Entity{alice, bob, beijing} {
			got := must(t, s, ScopeA, func(tx graph.Tx) (entity.Entity, error) { return tx.Entity(want.ID) })
			sameRecord(t, "Entity("+want.ID+")", got, want, ScopeA)
			if got.Seq == 0 {
				t.Errorf("Entity(%s).Seq = 0, want the sequence number of its write", want.ID)
			}
		}
		got := must(t, s, ScopeB, func(tx graph.Tx) (entity.Entity, error) { return tx.Entity("e1") })
		sameRecord(t, "Entity(e1) in B", got, other, ScopeB)
		_, err := read(t, s, ScopeA, func(tx graph.Tx) (entity.Entity, error) { return tx.Entity("nope") })
		wantCode(t, "Entity(nope)", err, entity.ENOTFOUND)
		_, err = read(t, s, ScopeB, func(tx graph.Tx) (entity.Entity, error) { return tx.Entity("e2") })
		wantCode(t, "Entity(e2) in B (it is in A)", err, entity.ENOTFOUND)
	})

	t.Run("ByKey", func(t *testing.T) {
		s := fresh(t, open)
		alice, bob, beijing, sam1, sam2 := entityData()
		update(t, s, ScopeA, putEntities(alice, bob, beijing, sam1, sam2))
		update(t, s, ScopeB, putEntities(NewEntity("b1", "Alice Smith"), NewEntity("b2", "Carol")))
		keys := []string{"alice smith", "ali", "爱丽丝", "beijing", "北京", "peking", "sam", "samuel", "carol", "nobody"}
		got := must(t, s, ScopeA, func(tx graph.Tx) (map[string][]entity.Entity, error) { return tx.EntitiesByKey(keys) })
		want := map[string][]string{
			"alice smith": {"e1"}, "ali": {"e1"}, "爱丽丝": {"e1"},
			"beijing": {"e3"}, "北京": {"e3"}, "peking": {"e3"},
			"sam": {"e4", "e5"}, "samuel": {"e5"},
		}
		for _, k := range keys {
			wantIDs(t, fmt.Sprintf("EntitiesByKey[%q]", k), sortedSet(entityIDs(got[k])), want[k]...)
			for _, e := range got[k] {
				if e.Scope != ScopeA {
					t.Errorf("EntitiesByKey[%q] returned %s of scope %q", k, e.ID, e.Scope)
				}
			}
		}
		if e := got["ali"]; len(e) == 1 {
			sameRecord(t, "EntitiesByKey[ali]", e[0], alice, ScopeA)
		}
		gotB := must(t, s, ScopeB, func(tx graph.Tx) (map[string][]entity.Entity, error) { return tx.EntitiesByKey(keys) })
		wantIDs(t, "EntitiesByKey[alice smith] in B", entityIDs(gotB["alice smith"]), "b1")
		wantIDs(t, "EntitiesByKey[ali] in B", entityIDs(gotB["ali"]))
	})

	t.Run("ByPrefix", func(t *testing.T) {
		s := fresh(t, open)
		alice, bob, beijing, sam1, sam2 := entityData()
		update(t, s, ScopeA, putEntities(alice, bob, beijing, sam1, sam2))
		update(t, s, ScopeB, putEntities(NewEntity("b1", "Alan"), NewEntity("b2", "北海")))
		byPrefix := func(scope entity.Scope, p string, limit int) []string {
			t.Helper()
			es := must(t, s, scope, func(tx graph.Tx) ([]entity.Entity, error) { return tx.EntitiesByPrefix(p, limit) })
			for _, e := range es {
				if e.Scope != scope {
					t.Errorf("EntitiesByPrefix(%q) in %s returned %s of scope %q", p, scope, e.ID, e.Scope)
				}
			}
			return sortedSet(entityIDs(es))
		}
		// "al" matches alice by name and by alias: listed once.
		wantIDs(t, "prefix al", byPrefix(ScopeA, "al", 10), "e1")
		wantIDs(t, "prefix 北", byPrefix(ScopeA, "北", 10), "e3")
		wantIDs(t, "prefix 爱", byPrefix(ScopeA, "爱", 10), "e1")
		wantIDs(t, "prefix pe", byPrefix(ScopeA, "pe", 10), "e3")
		wantIDs(t, "prefix sam", byPrefix(ScopeA, "sam", 10), "e4", "e5")
		wantIDs(t, "prefix x", byPrefix(ScopeA, "x", 10))
		wantIDs(t, "prefix al in B", byPrefix(ScopeB, "al", 10), "b1")
		wantIDs(t, "prefix 北 in B", byPrefix(ScopeB, "北", 10), "b2")
		if got := byPrefix(ScopeA, "sam", 1); len(got) != 1 {
			t.Errorf("prefix sam limit 1: got %q", got)
		}
		if got := byPrefix(ScopeA, "", 3); len(got) != 3 {
			t.Errorf("prefix \"\" limit 3: got %q, want 3 distinct entities", got)
		}
	})

	t.Run("ListPaging", func(t *testing.T) {
		s := fresh(t, open)
		var es []entity.Entity
		for i := range 7 {
			es = append(es, NewEntity(fmt.Sprintf("e%02d", 7-i), fmt.Sprintf("entity %d", i)))
		}
		update(t, s, ScopeA, putEntities(es...))
		update(t, s, ScopeB, putEntities(NewEntity("e00", "before all"), NewEntity("e99", "after all")))
		for _, limit := range []int{1, 3, 7, 10} {
			all := pages(t, fmt.Sprintf("Entities limit %d", limit), limit, func(c string) ([]entity.Entity, string, error) {
				return readPage(t, s, ScopeA, func(tx graph.Tx) ([]entity.Entity, string, error) { return tx.Entities(c, limit) })
			})
			wantIDs(t, fmt.Sprintf("Entities limit %d", limit), entityIDs(all), "e01", "e02", "e03", "e04", "e05", "e06", "e07")
		}
	})

	t.Run("Replace", func(t *testing.T) {
		s := fresh(t, open)
		alice, _, _, _, _ := entityData()
		update(t, s, ScopeA, putEntities(alice))
		before := must(t, s, ScopeA, func(tx graph.Tx) (entity.Entity, error) { return tx.Entity("e1") })
		alice.Name = "Alice Jones"
		alice.Aliases = []string{"Alicia"}
		alice.Summary = "married"
		update(t, s, ScopeA, putEntities(alice))
		after := must(t, s, ScopeA, func(tx graph.Tx) (entity.Entity, error) { return tx.Entity("e1") })
		sameRecord(t, "Entity(e1) after replace", after, alice, ScopeA)
		if after.Seq <= before.Seq {
			t.Errorf("Seq after replace %d, want > %d", after.Seq, before.Seq)
		}
		got := must(t, s, ScopeA, func(tx graph.Tx) (map[string][]entity.Entity, error) {
			return tx.EntitiesByKey([]string{"alice smith", "ali", "爱丽丝", "alice jones", "alicia"})
		})
		for _, k := range []string{"alice smith", "ali", "爱丽丝"} {
			wantIDs(t, "old key "+k, entityIDs(got[k]))
		}
		for _, k := range []string{"alice jones", "alicia"} {
			wantIDs(t, "new key "+k, entityIDs(got[k]), "e1")
		}
		wantIDs(t, "prefix 爱 after replace", entityIDs(must(t, s, ScopeA, func(tx graph.Tx) ([]entity.Entity, error) { return tx.EntitiesByPrefix("爱", 10) })))
	})

	t.Run("Delete", func(t *testing.T) {
		s := fresh(t, open)
		alice, bob, beijing, _, _ := entityData()
		update(t, s, ScopeA, putEntities(alice, bob, beijing))
		update(t, s, ScopeB, putEntities(NewEntity("e2", "Bob")))
		update(t, s, ScopeA, func(tx graph.Tx) error { return tx.DeleteEntity("e2") })
		_, err := read(t, s, ScopeA, func(tx graph.Tx) (entity.Entity, error) { return tx.Entity("e2") })
		wantCode(t, "Entity(e2) after delete", err, entity.ENOTFOUND)
		byKey := must(t, s, ScopeA, func(tx graph.Tx) (map[string][]entity.Entity, error) { return tx.EntitiesByKey([]string{"bob"}) })
		wantIDs(t, "EntitiesByKey[bob] after delete", entityIDs(byKey["bob"]))
		wantIDs(t, "EntitiesByPrefix(b) after delete", entityIDs(must(t, s, ScopeA, func(tx graph.Tx) ([]entity.Entity, error) { return tx.EntitiesByPrefix("b", 10) })), "e3")
		wantIDs(t, "Entities after delete", entityIDs(allEntities(t, s, ScopeA)), "e1", "e3")
		err = s.Update(ctx, ScopeA, func(tx graph.Tx) error { return tx.DeleteEntity("e2") })
		wantCode(t, "DeleteEntity(e2) twice", err, entity.ENOTFOUND)
		// B's e2 is untouched by A's delete.
		must(t, s, ScopeB, func(tx graph.Tx) (entity.Entity, error) { return tx.Entity("e2") })
		update(t, s, ScopeB, func(tx graph.Tx) error { return tx.DeleteEntity("e2") })
		err = s.Update(ctx, ScopeB, func(tx graph.Tx) error { return tx.DeleteEntity("e1") })
		wantCode(t, "DeleteEntity(e1) in B (it is in A)", err, entity.ENOTFOUND)
		must(t, s, ScopeA, func(tx graph.Tx) (entity.Entity, error) { return tx.Entity("e1") })
	})

	t.Run("Invalid", func(t *testing.T) {
		s := fresh(t, open)
		for _, tc := range []struct {
			name string
			e    entity.Entity
		}{
			{"no id", NewEntity("", "Nobody")},
			{"no name", NewEntity("e9", "")},
			{"other scope", func() entity.Entity { e := NewEntity("e9", "Eve"); e.Scope = ScopeB; return e }()},
		} {
			err := s.Update(ctx, ScopeA, putEntities(NewEntity("ok", "Fine"), tc.e))
			wantCode(t, "PutEntities "+tc.name, err, entity.EINVALID)
		}
		for _, scope := range []entity.Scope{ScopeA, ScopeB} {
			wantIDs(t, "Entities after rejected writes in "+scope, entityIDs(allEntities(t, s, scope)))
		}
		for _, bad := range []entity.Scope{"", "bad scope", "a\x00b"} {
			err := s.Update(ctx, bad, putEntities(NewEntity("e1", "A")))
			wantCode(t, fmt.Sprintf("Update in scope %q", bad), err, entity.EINVALID)
			err = s.View(ctx, bad, func(graph.Tx) error { return nil })
			wantCode(t, fmt.Sprintf("View in scope %q", bad), err, entity.EINVALID)
		}
	})
}
