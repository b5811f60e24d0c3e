package recall_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/recall"
)

// rebuild recomputes an explanation's value from its leaves alone: each
// node adds or multiplies its children in order.
func rebuild(tb testing.TB, what string, x *recall.Explanation) float64 {
	tb.Helper()
	if len(x.Children) == 0 {
		if x.Combine != "" {
			return 0
		}
		return x.Value
	}
	v := rebuild(tb, what, x.Children[0])
	for _, c := range x.Children[1:] {
		switch x.Combine {
		case recall.CombineSum:
			v += rebuild(tb, what, c)
		case recall.CombineProduct:
			v *= rebuild(tb, what, c)
		default:
			tb.Fatalf("%s: node %s combines its children by %q", what, x.Name, x.Combine)
		}
	}
	if v != x.Value {
		tb.Errorf("%s: node %s is %v, its children make %v", what, x.Name, x.Value, v)
	}
	for _, c := range x.Children {
		checkEffect(tb, what, x, c)
	}
	return v
}

// checkEffect checks what a child is said to change of its parent: its
// value in a sum, the product less the product without it.
func checkEffect(tb testing.TB, what string, parent, c *recall.Explanation) {
	tb.Helper()
	want := c.Value
	if parent.Combine == recall.CombineProduct {
		rest := 1.0
		for _, o := range parent.Children {
			if o != c {
				rest *= o.Value
			}
		}
		want = parent.Value - rest
	}
	if math.Abs(c.Effect-want) > 1e-9*max(1, math.Abs(parent.Value)) {
		tb.Errorf("%s: %s's effect on %s is %v, want %v", what, c.Name, parent.Name, c.Effect, want)
	}
}

// TestExplanation_RebuildsEveryScore: every score search and context
// return — facts (settled ones too), entities, episodes, the facts of a
// context and of its path — is rebuilt from its explanation's leaves.
func TestExplanation_RebuildsEveryScore(t *testing.T) {
	e := pathCatalog(t)
	portHistory(t, e, "u")
	e.conversation(t, "u", chat)
	seen := map[string]int{}
	check := func(what string, score float64, x *recall.Explanation) {
		t.Helper()
		if x == nil {
			t.Errorf("%s: no explanation", what)
			return
		}
		v := rebuild(t, what, x)
		if math.Round(v*1e4)/1e4 != score || x.Rebuild() != v || x.Effect != x.Value {
			t.Errorf("%s: score %v, rebuilt %v (Rebuild %v)", what, score, v, x.Rebuild())
		}
		seen[x.Name]++
	}
	for _, q := range []string{"billing api 8080", "which port does the billing api listen on", "where did Bob go on holiday with the kids",
		"who does Bob Aziz report to", "search team", "what did Ann say about Lake Tahoe"} {
		res := e.search(t, "u", recall.SearchRequest{Query: q, Limit: 50, IncludeHistory: true})
		for _, h := range res.Hits {
			check(q+" "+h.Type+" "+h.ID, h.Score, h.Explanation)
			seen[h.Type]++
		}
	}
	for _, q := range []string{"who leads the team that owns cart-api?", "which port did the billing api listen on before", "who does Bob Aziz report to"} {
		res := e.context(t, "u", recall.ContextRequest{Query: q, Mode: recall.ModeHistory, Format: recall.FormatJSON})
		for _, f := range res.Facts {
			switch f.Role {
			case "fact", "decision", "path":
				check(q+" "+f.Role+" "+f.Fact.ID, f.Score, f.Explanation)
				seen["context "+f.Role]++
			}
		}
	}
	for _, k := range []string{"fact", "entity", "episode", "below_current", "context fact", "context path"} {
		if seen[k] == 0 {
			t.Errorf("no %s explained (%v)", k, seen)
		}
	}
}

// TestExplanation_NotInContextItems: a context fact's explanation is for
// callers in Go; no answer encodes it, so it takes no room in the bound on
// a context's items (and leaves the blocks chosen as they were).
func TestExplanation_NotInContextItems(t *testing.T) {
	f := recall.ContextFact{Role: "fact", Score: 1, Explanation: &recall.Explanation{Name: "fact", Value: 1}}
	b, err := json.Marshal(f)
	if err != nil || strings.Contains(string(b), "explanation") {
		t.Errorf("%s (%v)", b, err)
	}
}
