package eval_test

import (
	"context"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/eval"
)

// TestScenarios: on the scenario questions, every context holds what it
// must and nothing it must not, and its fact lines are on topic — which
// the same builder without its relevance floor is not.
func TestScenarios(t *testing.T) {
	rep, err := eval.Scenarios(context.Background(), eval.ScenarioOptions{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + table.String())
	g, base := rep.Graphmem, rep.NoFloor
	if g.Passed != rep.Questions || g.Violations != 0 || g.Recall != 1 {
		t.Errorf("graphmem: %+v", g)
	}
	if g.Precision < 0.95 || base.Precision >= g.Precision || base.Violations == 0 {
		t.Errorf("precision %.3f, without the floor %.3f (%d must-not held)", g.Precision, base.Precision, base.Violations)
	}
}

func TestOnTopic(t *testing.T) {
	f := entity.Fact{Subject: "Sam Okafor", Predicate: "reports_to", Object: "Bob Lindqvist", Text: "Sam Okafor reports to Bob Lindqvist"}
	for _, tc := range []struct {
		about []string
		want  bool
	}{
		{[]string{"sam okafor"}, true},
		{[]string{"reports to"}, true},
		{[]string{"Bob Lindqvist"}, true},
		{[]string{"Sam"}, true},
		{[]string{"MongoDB", "npm"}, false},
		{[]string{"okafo"}, false},
	} {
		if got := eval.OnTopic(&f, tc.about); got != tc.want {
			t.Errorf("%v: %v", tc.about, got)
		}
	}
}
