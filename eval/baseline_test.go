package eval_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/eval"
)

// TestBaseline runs the sets the repository holds — the catalog on its
// report seed and the scenarios — and fails when a figure fell more than
// eval.BaselineTolerance below eval/baseline.json.
func TestBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a generated catalog of about 9,000 facts")
	}
	b, err := eval.CommittedBaseline()
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []string{"catalog", "scenarios"} {
		if _, ok := b[set]; !ok {
			t.Errorf("the baseline has no %s set", set)
		}
	}
	cat, err := eval.Catalog(context.Background(), eval.CatalogOptions{Seed: eval.ReportSeed, Questions: eval.CatalogQuestions})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Check(cat.BaselineSet(), cat.Figures()); err != nil {
		t.Error(err)
	}
	sc, err := eval.Scenarios(context.Background(), eval.ScenarioOptions{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Check(sc.BaselineSet(), sc.Figures()); err != nil {
		t.Error(err)
	}
}

func TestBaselineCheck(t *testing.T) {
	b := eval.Baseline{"catalog": {"hit_at_1": 0.945, "context_holds": 0.97}}
	for _, tc := range []struct {
		name string
		got  map[string]float64
		err  string
	}{
		{"OK", map[string]float64{"hit_at_1": 0.95, "context_holds": 0.97}, ""},
		{"WithinTolerance", map[string]float64{"hit_at_1": 0.941, "context_holds": 0.966}, ""},
		{"ErrDrop", map[string]float64{"hit_at_1": 0.939, "context_holds": 0.97}, "hit_at_1 0.939 < baseline 0.945"},
		{"ErrMissing", map[string]float64{"hit_at_1": 0.95}, "context_holds missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := b.Check("catalog", tc.got)
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("err %v, want %q", err, tc.err)
			}
		})
	}
	if err := b.Check("scenarios", map[string]float64{}); err != nil {
		t.Errorf("a set without a baseline: %v", err)
	}
	// WriteBaseline keeps the other sets.
	path := filepath.Join(t.TempDir(), "baseline.json")
	if err := eval.WriteBaseline(path, "catalog", map[string]float64{"hit_at_1": 1}); err != nil {
		t.Fatal(err)
	}
	if err := eval.WriteBaseline(path, "scenarios", map[string]float64{"recall": 1}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got eval.Baseline
	if err := json.Unmarshal(data, &got); err != nil || got["catalog"]["hit_at_1"] != 1 || got["scenarios"]["recall"] != 1 {
		t.Errorf("written %s (%v)", data, err)
	}
}

func TestReportBaselineSet(t *testing.T) {
	for _, tc := range []struct {
		part  string
		names []string
		want  string
	}{
		{eval.PartTest, []string{"42", "43", "44", "47"}, "locomo test"},
		{eval.PartDev, []string{"26", "30", "41"}, "locomo dev"},
		{eval.PartDev, []string{"26", "30"}, ""},
		{eval.PartTest, []string{"test-2-01", "test-2-02", "test-2-03", "test-2-04", "test-2-05", "test-2-06", "test-2-07",
			"test-2-08", "test-2-09", "test-2-10"}, "conversations test"},
		// Another seed is another corpus: no baseline.
		{eval.PartTest, []string{"test-3-01", "test-3-02", "test-3-03", "test-3-04", "test-3-05", "test-3-06", "test-3-07",
			"test-3-08", "test-3-09", "test-3-10"}, ""},
		{eval.PartAll, []string{"26", "30", "41", "42", "43", "44", "47"}, ""},
	} {
		if got := (eval.Report{Part: tc.part, ConversationNames: tc.names}).BaselineSet(); got != tc.want {
			t.Errorf("%s %v: set %q, want %q", tc.part, tc.names, got, tc.want)
		}
	}
}
