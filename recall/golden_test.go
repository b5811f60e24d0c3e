package recall_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/recall"
)

// golden is the corpus of testdata/golden.json: facts, and questions with
// the result expected on top.
type golden struct {
	Now       time.Time          `json:"now"`
	Facts     []memory.FactInput `json:"facts"`
	Questions []struct {
		Query          string `json:"query"`
		IncludeHistory bool   `json:"include_history"`
		// Top is text of the first search hit; NotTop text it must not
		// hold. With Context, FirstFact is text of the context's first
		// fact instead.
		Top       string `json:"top"`
		NotTop    string `json:"not_top"`
		Context   bool   `json:"context"`
		FirstFact string `json:"first_fact"`
		Why       string `json:"why"`
	} `json:"questions"`
}

// TestGolden asks the golden corpus's questions through search and
// context with the default weights: the safety net of a change of
// ranking, next to the per-weight tests (weights_test.go).
func TestGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.now = g.Now
	const scope = "repo:golden"
	e.add(t, scope, g.Facts...)
	for _, q := range g.Questions {
		t.Run(q.Query, func(t *testing.T) {
			if q.Context {
				res := e.context(t, scope, recall.ContextRequest{Query: q.Query})
				if len(res.Facts) == 0 || !strings.Contains(res.Facts[0].Fact.Text, q.FirstFact) {
					t.Errorf("first fact not %q (%s):\n%s", q.FirstFact, q.Why, res.Context)
				}
				return
			}
			res := e.search(t, scope, recall.SearchRequest{Query: q.Query, IncludeHistory: q.IncludeHistory, Types: []string{"fact"}})
			if len(res.Hits) == 0 {
				t.Fatalf("no hits (%s)", q.Why)
			}
			top := res.Hits[0].Fact.Text
			if !strings.Contains(top, q.Top) || q.NotTop != "" && strings.Contains(top, q.NotTop) {
				var got []string
				for _, h := range res.Hits {
					got = append(got, h.Fact.Text)
				}
				t.Errorf("top %q, want %q (%s); hits %q", top, q.Top, q.Why, got)
			}
		})
	}
}
