package recall

import (
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
)

// A plan is printable and holds the question's predicate words (each as
// often as said, kinds marked, the anchor's name and times left out) and
// the word nearest the anchor.
func TestMakePlan(t *testing.T) {
	o := defaultOntology()
	lx := lexiconOf(o)
	asOf := time.Date(2025, 3, 31, 0, 0, 0, 0, time.UTC)
	cart := entity.Entity{ID: "e1", Name: "cart-api"}
	for _, c := range []struct {
		q, want, nearest string
	}{
		{"who leads the team that owns cart-api?", `anchors "cart-api"; words lead team(team) own; at 2025-03-31T00:00:00Z`, "own"},
		{"who is the lead of the lead of cart-api's team?", `anchors "cart-api"; words lead lead team(team); at 2025-03-31T00:00:00Z`, "team"},
		{"in March 2025, who did the on-call engineer for cart-api report to?", `anchors "cart-api"; words call engin(person) report; at 2025-03-31T00:00:00Z`, "report"},
		{"cart-api所属团队的负责人是谁", `anchors "cart-api"; words cjk:所属团队 cjk:负责人; at 2025-03-31T00:00:00Z`, ""},
		// The kind asked for; an idiom read as what it stands for; a
		// predicate word the anchor's name also holds.
		{"what team does the person on call for cart-api belong to?",
			`anchors "cart-api"; words team(team) person(person) call belong; asks for a team; at 2025-03-31T00:00:00Z`, "belong"},
		{"when is the database behind cart-api backed up?", `anchors "cart-api"; words databas(database) backup; at 2025-03-31T00:00:00Z`, "backup"},
		{"who is reports-api's skip-level?", `anchors "reports-api"; words manag manag; at 2025-03-31T00:00:00Z`, "manag"},
		{"who did the on-call engineer for reports-api report to?", `anchors "reports-api"; words call engin(person) report; at 2025-03-31T00:00:00Z`, "report"},
	} {
		a := analyze(c.q, asOf)
		anchor := cart
		if strings.Contains(c.q, "reports-api") {
			anchor = entity.Entity{ID: "e1", Name: "reports-api"}
		}
		pl := makePlan(a, lx, o, []entity.Entity{anchor}, asOf, &defaultWeights.Path)
		if got := pl.String(); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.q, got, c.want)
		}
		if pl.nearest["e1"] != c.nearest {
			t.Errorf("%q: nearest word %q, want %q", c.q, pl.nearest["e1"], c.nearest)
		}
	}
}

// Of two words that name a predicate alike, a hop uses the one fewer
// predicates hold: "accountable" (owned_by alone) before "in charge"
// (owned_by and led_by), which stays for the lead's hop.
func TestPlanNames_Specific(t *testing.T) {
	o := defaultOntology()
	pl := &plan{lx: lexiconOf(o), kinds: map[string]string{}}
	for _, order := range [][]string{{"charg", "account"}, {"account", "charg"}} {
		left := map[string]int{}
		for _, w := range order {
			left[w] = 1
		}
		s, used, _ := pl.names("owned_by", left)
		if s != 1 || len(used) != 1 || used[0] != "account" {
			t.Errorf("owned_by named by %v (%.2f) of %v, want [account]", used, s, order)
		}
	}
}
