package graphtest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// factData is a small graph in scope A and a decoy in scope B that reuses
// A's ids, subjects and values.
func factData() (a, b []entity.Fact) {
	f01 := NewFact("f01", "e1", "works_at_one", "acme", Day(0), Ptr(Day(100)))
	f01.SupersededBy = "f02"
	f02 := NewFact("f02", "e1", "works_at_one", "globex", Day(100), nil)
	f02.Supersedes = "f01"
	f03 := NewValueFact("f03", "e1", "likes", "Green Tea", time.Time{}, nil)
	f04 := NewValueFact("f04", "e2", "likes", "green-tea!", Day(3), nil)
	f05 := NewFact("f05", "e2", "knows", "e1", Day(2), nil)
	f06 := NewValueFact("f06", "e1", "lives_in_one", "北京", Day(0), nil)
	f06.ExpiredAt = Ptr(Day(5)) // retracted: it was never true
	f07 := NewValueFact("f07", "e1", "lives_in_one", "上海", Day(1), nil)
	f08 := NewFact("f08", "e1", "mentors", "e1", Day(4), nil) // a loop
	a = []entity.Fact{f01, f02, f03, f04, f05, f06, f07, f08}

	g01 := NewValueFact("f01", "e1", "works_at_one", "acme", Day(0), nil)
	g09 := NewValueFact("f09", "e1", "likes", "green tea", Day(0), nil)
	g10 := NewFact("f10", "e2", "knows", "e1", Day(0), nil)
	b = []entity.Fact{g01, g09, g10}
	return a, b
}

func loadFacts(t *testing.T, s graph.Store) (a, b []entity.Fact) {
	t.Helper()
	a, b = factData()
	update(t, s, ScopeA, putFacts(a...))
	update(t, s, ScopeB, putFacts(b...))
	return a, b
}

// fullFact has every field set, to catch a store that drops one.
func fullFact() entity.Fact {
	f := NewFact("f99", "e1", "decided", "e7", Day(1), Ptr(Day(9)))
	f.Subject, f.Object = "Team", "PostgreSQL"
	f.Text = "The team chose PostgreSQL over MongoDB — 团队选择了 PostgreSQL"
	f.RecordedAt = Day(1).Add(time.Nanosecond)
	f.ExpiredAt = Ptr(Day(20))
	f.Supersedes, f.SupersededBy = "f98", "f100"
	f.EpisodeIDs = []string{"ep1", "ep2", "ep3"}
	f.SourceKind = entity.Tool
	f.Confidence, f.Importance = 0.73, 9
	f.Attributes = map[string]any{"reason": "transactions", "alternatives": []any{"MongoDB", "MySQL"}, "weight": 2.5, "flag": true, "nested": map[string]any{"k": "v"}}
	f.Hits = 42
	f.LastAccessedAt = Ptr(Day(10))
	f.ExpiresAt = Ptr(Day(365))
	f.ForgottenAt = Ptr(Day(30))
	f.ArchivedAt = Ptr(Day(31))
	f.Claims = []entity.Claim{
		{From: Day(1), To: Ptr(Day(9)), EpisodeID: "ep1", SourceKind: entity.UserExplicit, Confidence: 0.9, RecordedAt: Day(1)},
		{From: Day(9), End: true, EpisodeID: "ep2", SourceKind: entity.AgentInferred, Confidence: 0.5, RecordedAt: Day(9)},
		{From: time.Date(1999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("X", 8*3600)), SourceKind: entity.Import, RecordedAt: Day(2)},
	}
	f.Revisions = []entity.Revision{
		{Until: Day(9), ValidFrom: Day(1), ValidTo: nil, Supersedes: "f97"},
		{Until: Day(20), ValidFrom: Day(0), ValidTo: Ptr(Day(8)), SupersededBy: "f96"},
	}
	f.UpdatedAt = Day(20)
	return f
}

func testFacts(t *testing.T, open Opener) {
	t.Run("PutGet", func(t *testing.T) {
		s := fresh(t, open)
		a, b := loadFacts(t, s)
		full := fullFact()
		update(t, s, ScopeA, putFacts(full))
		for _, want := range append(a, full) {
			got := must(t, s, ScopeA, func(tx graph.Tx) (entity.Fact, error) { return tx.Fact(want.ID) })
			sameRecord(t, "Fact("+want.ID+")", got, want, ScopeA)
			if got.Seq == 0 {
				t.Errorf("Fact(%s).Seq = 0", want.ID)
			}
		}
		got := must(t, s, ScopeB, func(tx graph.Tx) (entity.Fact, error) { return tx.Fact("f01") })
		sameRecord(t, "Fact(f01) in B", got, b[0], ScopeB)
		for _, tc := range []struct {
			scope entity.Scope
			id    string
		}{{ScopeA, "f09"}, {ScopeA, "nope"}, {ScopeB, "f02"}} {
			_, err := read(t, s, tc.scope, func(tx graph.Tx) (entity.Fact, error) { return tx.Fact(tc.id) })
			wantCode(t, fmt.Sprintf("Fact(%s) in %s", tc.id, tc.scope), err, entity.ENOTFOUND)
		}
	})

	t.Run("ReadOwnWrites", func(t *testing.T) {
		s := fresh(t, open)
		f := NewFact("f01", "e1", "knows", "e2", Day(0), nil)
		update(t, s, ScopeA, func(tx graph.Tx) error {
			if err := tx.PutFacts([]entity.Fact{f}); err != nil {
				return err
			}
			if _, err := tx.Fact("f01"); err != nil {
				t.Errorf("Fact in the writing transaction: %v", err)
			}
			ch, err := tx.Chains([]graph.ChainKey{{SubjectID: "e1", Predicate: "knows"}})
			if err != nil {
				return err
			}
			wantIDs(t, "Chains in the writing transaction", factIDs(ch[graph.ChainKey{SubjectID: "e1", Predicate: "knows"}]), "f01")
			of, err := tx.FactsOf("e2", 10)
			wantIDs(t, "FactsOf in the writing transaction", factIDs(of), "f01")
			return err
		})
	})

	t.Run("Chains", func(t *testing.T) {
		s := fresh(t, open)
		loadFacts(t, s)
		keys := []graph.ChainKey{
			{SubjectID: "e1", Predicate: "works_at_one"},
			{SubjectID: "e1", Predicate: "lives_in_one"},
			{SubjectID: "e1", Predicate: "likes"},
			{SubjectID: "e2", Predicate: "knows"},
			{SubjectID: "e1", Predicate: "knows"},
			{SubjectID: "nobody", Predicate: "likes"},
		}
		want := map[graph.ChainKey][]string{
			keys[0]: {"f01", "f02"},
			keys[1]: {"f06", "f07"}, // the retracted f06 included
			keys[2]: {"f03"},
			keys[3]: {"f05"},
		}
		got := must(t, s, ScopeA, func(tx graph.Tx) (map[graph.ChainKey][]entity.Fact, error) { return tx.Chains(keys) })
		for _, k := range keys {
			wantIDs(t, fmt.Sprintf("Chains[%v]", k), factIDs(got[k]), want[k]...)
			for _, f := range got[k] {
				if f.Scope != ScopeA || f.SubjectID != k.SubjectID || f.Predicate != k.Predicate {
					t.Errorf("Chains[%v] holds %s (%s, %s, %s)", k, f.ID, f.Scope, f.SubjectID, f.Predicate)
				}
			}
		}
		gotB := must(t, s, ScopeB, func(tx graph.Tx) (map[graph.ChainKey][]entity.Fact, error) { return tx.Chains(keys) })
		wantIDs(t, "Chains[e1 works_at_one] in B", factIDs(gotB[keys[0]]), "f01")
		wantIDs(t, "Chains[e1 lives_in_one] in B", factIDs(gotB[keys[1]]))
		wantIDs(t, "Chains[e1 likes] in B", factIDs(gotB[keys[2]]), "f09")
	})

	t.Run("FactsOf", func(t *testing.T) {
		s := fresh(t, open)
		loadFacts(t, s)
		of := func(scope entity.Scope, id string, limit int) []string {
			t.Helper()
			fs := must(t, s, scope, func(tx graph.Tx) ([]entity.Fact, error) { return tx.FactsOf(id, limit) })
			for _, f := range fs {
				if f.Scope != scope {
					t.Errorf("FactsOf(%s) in %s returned %s of scope %s", id, scope, f.ID, f.Scope)
				}
			}
			return factIDs(fs)
		}
		// e1 is the subject of most and the object of f05; the loop f08
		// is listed once.
		wantIDs(t, "FactsOf(e1)", of(ScopeA, "e1", 100), "f01", "f02", "f03", "f05", "f06", "f07", "f08")
		wantIDs(t, "FactsOf(e2)", of(ScopeA, "e2", 100), "f04", "f05")
		wantIDs(t, "FactsOf(acme)", of(ScopeA, "acme", 100), "f01")
		wantIDs(t, "FactsOf(nobody)", of(ScopeA, "nobody", 100))
		wantIDs(t, "FactsOf(e1) in B", of(ScopeB, "e1", 100), "f01", "f09", "f10")
		wantIDs(t, "FactsOf(acme) in B", of(ScopeB, "acme", 100)) // a value there, not an entity
		limited := of(ScopeA, "e1", 3)
		if len(limited) != 3 || !slices.IsSorted(limited) {
			t.Errorf("FactsOf(e1, 3) = %q, want 3 facts in id order", limited)
		}
		for _, id := range limited {
			if !slices.Contains([]string{"f01", "f02", "f03", "f05", "f06", "f07", "f08"}, id) {
				t.Errorf("FactsOf(e1, 3) returned %s", id)
			}
		}
	})

	t.Run("Filter", func(t *testing.T) {
		s := fresh(t, open)
		loadFacts(t, s)
		for _, tc := range []struct {
			f     graph.FactFilter
			wantA []string
			wantB []string
		}{
			{graph.FactFilter{}, []string{"f01", "f02", "f03", "f04", "f05", "f06", "f07", "f08"}, []string{"f01", "f09", "f10"}},
			{graph.FactFilter{SubjectID: "e1"}, []string{"f01", "f02", "f03", "f06", "f07", "f08"}, []string{"f01", "f09"}},
			{graph.FactFilter{SubjectID: "e2"}, []string{"f04", "f05"}, []string{"f10"}},
			{graph.FactFilter{Predicate: "likes"}, []string{"f03", "f04"}, []string{"f09"}},
			{graph.FactFilter{ObjectID: "e1"}, []string{"f05", "f08"}, []string{"f10"}},
			{graph.FactFilter{ObjectID: "acme"}, []string{"f01"}, nil},
			{graph.FactFilter{Value: "green tea"}, []string{"f03", "f04"}, []string{"f09"}},
			{graph.FactFilter{Value: "GREEN-TEA"}, []string{"f03", "f04"}, []string{"f09"}},
			{graph.FactFilter{Value: "acme"}, nil, []string{"f01"}},
			{graph.FactFilter{Value: "北京"}, []string{"f06"}, nil},
			{graph.FactFilter{SubjectID: "e1", Predicate: "works_at_one"}, []string{"f01", "f02"}, []string{"f01"}},
			{graph.FactFilter{SubjectID: "e1", Value: "Green Tea"}, []string{"f03"}, []string{"f09"}},
			{graph.FactFilter{SubjectID: "e2", ObjectID: "e1"}, []string{"f05"}, []string{"f10"}},
			{graph.FactFilter{Predicate: "likes", SubjectID: "e2"}, []string{"f04"}, nil},
			{graph.FactFilter{Predicate: "knows", ObjectID: "e1"}, []string{"f05"}, []string{"f10"}},
			{graph.FactFilter{Predicate: "likes", Value: "coffee"}, nil, nil},
			{graph.FactFilter{SubjectID: "nobody"}, nil, nil},
		} {
			for _, limit := range []int{1, 2, 3, 100} {
				f := tc.f
				f.Limit = limit
				what := fmt.Sprintf("Facts(%+v)", f)
				for _, scope := range []entity.Scope{ScopeA, ScopeB} {
					got := pages(t, what, limit, func(c string) ([]entity.Fact, string, error) {
						f.Cursor = c
						return readPage(t, s, scope, func(tx graph.Tx) ([]entity.Fact, string, error) { return tx.Facts(f) })
					})
					want := tc.wantA
					if scope == ScopeB {
						want = tc.wantB
					}
					wantIDs(t, what+" in "+scope, factIDs(got), want...)
				}
			}
		}
		_, _, err := readPage(t, s, ScopeA, func(tx graph.Tx) ([]entity.Fact, string, error) {
			return tx.Facts(graph.FactFilter{Cursor: "!!not a cursor!!", Limit: 2})
		})
		wantCode(t, "Facts with a malformed cursor", err, entity.EINVALID)
	})

	t.Run("Replace", func(t *testing.T) {
		s := fresh(t, open)
		a, _ := loadFacts(t, s)
		before := must(t, s, ScopeA, func(tx graph.Tx) (entity.Fact, error) { return tx.Fact("f04") })
		f04 := a[3]
		f04.SubjectID, f04.Subject, f04.Predicate, f04.Value = "e3", "Carol", "dislikes", "coffee"
		f05 := a[4]
		f05.ObjectID, f05.Object = "e3", "Carol"
		update(t, s, ScopeA, putFacts(f04, f05))
		after := must(t, s, ScopeA, func(tx graph.Tx) (entity.Fact, error) { return tx.Fact("f04") })
		sameRecord(t, "Fact(f04) after replace", after, f04, ScopeA)
		if after.Seq <= before.Seq {
			t.Errorf("Seq after replace %d, want > %d", after.Seq, before.Seq)
		}
		wantIDs(t, "Facts(likes)", factIDs(allFacts(t, s, ScopeA, graph.FactFilter{Predicate: "likes"})), "f03")
		wantIDs(t, "Facts(green tea)", factIDs(allFacts(t, s, ScopeA, graph.FactFilter{Value: "green tea"})), "f03")
		wantIDs(t, "Facts(coffee)", factIDs(allFacts(t, s, ScopeA, graph.FactFilter{Value: "Coffee"})), "f04")
		wantIDs(t, "Facts(object e1)", factIDs(allFacts(t, s, ScopeA, graph.FactFilter{ObjectID: "e1"})), "f08")
		wantIDs(t, "Facts(object e3)", factIDs(allFacts(t, s, ScopeA, graph.FactFilter{ObjectID: "e3"})), "f05")
		wantIDs(t, "FactsOf(e2)", factIDs(must(t, s, ScopeA, func(tx graph.Tx) ([]entity.Fact, error) { return tx.FactsOf("e2", 100) })), "f05")
		wantIDs(t, "FactsOf(e3)", factIDs(must(t, s, ScopeA, func(tx graph.Tx) ([]entity.Fact, error) { return tx.FactsOf("e3", 100) })), "f04", "f05")
		wantIDs(t, "FactsOf(e1)", factIDs(must(t, s, ScopeA, func(tx graph.Tx) ([]entity.Fact, error) { return tx.FactsOf("e1", 100) })), "f01", "f02", "f03", "f06", "f07", "f08")
		ch := must(t, s, ScopeA, func(tx graph.Tx) (map[graph.ChainKey][]entity.Fact, error) {
			return tx.Chains([]graph.ChainKey{{SubjectID: "e2", Predicate: "likes"}, {SubjectID: "e3", Predicate: "dislikes"}})
		})
		wantIDs(t, "Chains[e2 likes]", factIDs(ch[graph.ChainKey{SubjectID: "e2", Predicate: "likes"}]))
		wantIDs(t, "Chains[e3 dislikes]", factIDs(ch[graph.ChainKey{SubjectID: "e3", Predicate: "dislikes"}]), "f04")
	})

	t.Run("Touch", func(t *testing.T) {
		s := fresh(t, open)
		a, _ := loadFacts(t, s)
		full := fullFact() // 42 hits, last access on day 10
		update(t, s, ScopeA, putFacts(full))
		before := map[string]entity.Fact{}
		for _, id := range []string{"f01", "f03", "f99"} {
			before[id] = must(t, s, ScopeA, func(tx graph.Tx) (entity.Fact, error) { return tx.Fact(id) })
		}
		head := func() uint64 {
			t.Helper()
			heads, err := s.Heads(ctx)
			if err != nil {
				t.Fatalf("Heads: %v", err)
			}
			return heads[ScopeA]
		}
		h0 := head()
		// f99 is touched at a time before its last access, which stays;
		// "nope" is not stored; f01 of scope B is not touched.
		update(t, s, ScopeA, func(tx graph.Tx) error {
			return tx.TouchFacts(map[string]time.Time{"f01": Day(50), "f03": Day(51), "f99": Day(5), "nope": Day(52)})
		})
		update(t, s, ScopeA, func(tx graph.Tx) error { return tx.TouchFacts(map[string]time.Time{"f01": Day(49)}) })
		want := map[string]struct {
			hits int64
			at   time.Time
		}{"f01": {2, Day(50)}, "f03": {1, Day(51)}, "f99": {43, Day(10)}}
		for id, w := range want {
			got := must(t, s, ScopeA, func(tx graph.Tx) (entity.Fact, error) { return tx.Fact(id) })
			if got.Hits != w.hits || got.LastAccessedAt == nil || !got.LastAccessedAt.Equal(w.at) {
				t.Errorf("Fact(%s) after TouchFacts: hits %d, last access %s; want %d, %s", id, got.Hits, fmtTime(got.LastAccessedAt), w.hits, w.at)
			}
			if got.Seq != before[id].Seq {
				t.Errorf("Fact(%s) after TouchFacts: Seq %d, want %d (unchanged)", id, got.Seq, before[id].Seq)
			}
			// Every other field is as it was.
			got.Hits, got.LastAccessedAt = before[id].Hits, before[id].LastAccessedAt
			sameRecord(t, "Fact("+id+") after TouchFacts", got, before[id], ScopeA)
		}
		if h := head(); h != h0 {
			t.Errorf("head after TouchFacts %d, want %d: a hit is not a change", h, h0)
		}
		cs, err := s.ScopeChanges(ctx, ScopeA, h0, 0)
		if err != nil || len(cs) != 0 {
			t.Errorf("ScopeChanges after TouchFacts: %+v, %v; want none", cs, err)
		}
		if got := must(t, s, ScopeB, func(tx graph.Tx) (entity.Fact, error) { return tx.Fact("f01") }); got.Hits != 0 {
			t.Errorf("Fact(f01) of scope B has %d hits, want 0", got.Hits)
		}
		// A fact written again keeps what it is written with.
		f01 := a[0]
		f01.Hits = 7
		update(t, s, ScopeA, putFacts(f01))
		if got := must(t, s, ScopeA, func(tx graph.Tx) (entity.Fact, error) { return tx.Fact("f01") }); got.Hits != 7 {
			t.Errorf("Fact(f01) written with 7 hits after TouchFacts has %d", got.Hits)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		s := fresh(t, open)
		loadFacts(t, s)
		update(t, s, ScopeA, func(tx graph.Tx) error { return tx.DeleteFact("f05") })
		_, err := read(t, s, ScopeA, func(tx graph.Tx) (entity.Fact, error) { return tx.Fact("f05") })
		wantCode(t, "Fact(f05) after delete", err, entity.ENOTFOUND)
		wantIDs(t, "FactsOf(e2)", factIDs(must(t, s, ScopeA, func(tx graph.Tx) ([]entity.Fact, error) { return tx.FactsOf("e2", 100) })), "f04")
		wantIDs(t, "FactsOf(e1)", factIDs(must(t, s, ScopeA, func(tx graph.Tx) ([]entity.Fact, error) { return tx.FactsOf("e1", 100) })), "f01", "f02", "f03", "f06", "f07", "f08")
		wantIDs(t, "Facts(object e1)", factIDs(allFacts(t, s, ScopeA, graph.FactFilter{ObjectID: "e1"})), "f08")
		wantIDs(t, "Facts(knows)", factIDs(allFacts(t, s, ScopeA, graph.FactFilter{Predicate: "knows"})))
		wantIDs(t, "Facts()", factIDs(allFacts(t, s, ScopeA, graph.FactFilter{})), "f01", "f02", "f03", "f04", "f06", "f07", "f08")
		ch := must(t, s, ScopeA, func(tx graph.Tx) (map[graph.ChainKey][]entity.Fact, error) {
			return tx.Chains([]graph.ChainKey{{SubjectID: "e2", Predicate: "knows"}})
		})
		wantIDs(t, "Chains[e2 knows]", factIDs(ch[graph.ChainKey{SubjectID: "e2", Predicate: "knows"}]))
		err = s.Update(ctx, ScopeA, func(tx graph.Tx) error { return tx.DeleteFact("f05") })
		wantCode(t, "DeleteFact(f05) twice", err, entity.ENOTFOUND)
		err = s.Update(ctx, ScopeA, func(tx graph.Tx) error { return tx.DeleteFact("f09") })
		wantCode(t, "DeleteFact(f09) in A (it is in B)", err, entity.ENOTFOUND)
		must(t, s, ScopeB, func(tx graph.Tx) (entity.Fact, error) { return tx.Fact("f09") })
		// A deleted fact can be written again.
		update(t, s, ScopeA, putFacts(NewFact("f05", "e2", "knows", "e1", Day(2), nil)))
		wantIDs(t, "Facts(knows) after rewrite", factIDs(allFacts(t, s, ScopeA, graph.FactFilter{Predicate: "knows"})), "f05")
	})

	t.Run("Invalid", func(t *testing.T) {
		s := fresh(t, open)
		good := NewFact("ok", "e1", "knows", "e2", Day(0), nil)
		for _, tc := range []struct {
			name string
			edit func(*entity.Fact)
		}{
			{"no id", func(f *entity.Fact) { f.ID = "" }},
			{"no subject id", func(f *entity.Fact) { f.SubjectID = "" }},
			{"no predicate", func(f *entity.Fact) { f.Predicate = "" }},
			{"no object", func(f *entity.Fact) { f.ObjectID, f.Object = "", "" }},
			{"object and value", func(f *entity.Fact) { f.Value = "x" }},
			{"valid_to before valid_from", func(f *entity.Fact) { f.ValidTo = Ptr(Day(-1)) }},
			{"confidence", func(f *entity.Fact) { f.Confidence = 1.5 }},
			{"other scope", func(f *entity.Fact) { f.Scope = ScopeB }},
		} {
			bad := NewFact("bad", "e1", "knows", "e3", Day(0), nil)
			tc.edit(&bad)
			err := s.Update(ctx, ScopeA, putFacts(good, bad))
			wantCode(t, "PutFacts "+tc.name, err, entity.EINVALID)
		}
		for _, scope := range []entity.Scope{ScopeA, ScopeB} {
			wantIDs(t, "Facts after rejected writes in "+scope, factIDs(allFacts(t, s, scope, graph.FactFilter{})))
		}
	})
}
