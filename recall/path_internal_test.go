package recall

import (
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
	} {
		a := analyze(c.q, asOf)
		pl := makePlan(a, lx, o, []entity.Entity{cart}, asOf, &defaultWeights.Path)
		if got := pl.String(); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.q, got, c.want)
		}
		if pl.nearest["e1"] != c.nearest {
			t.Errorf("%q: nearest word %q, want %q", c.q, pl.nearest["e1"], c.nearest)
		}
	}
}
