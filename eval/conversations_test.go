package eval

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteConversations(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := WriteConversations(a, 1, 2, 2); err != nil {
		t.Fatal(err)
	}
	if err := WriteConversations(b, 1, 2, 2); err != nil {
		t.Fatal(err)
	}
	files, err := partFiles(a, PartAll)
	if err != nil || len(files) != 4 {
		t.Fatalf("want 4 conversations, got %v (%v)", files, err)
	}
	for _, f := range files {
		x, _ := os.ReadFile(f)
		y, _ := os.ReadFile(filepath.Join(b, filepath.Base(f)))
		if !bytes.Equal(x, y) {
			t.Fatalf("%s differs between two runs of the same seeds", filepath.Base(f))
		}
	}
	for part, want := range map[string]string{PartDev: "dev-1-", PartTest: "test-2-"} {
		files, err := partFiles(a, part)
		if err != nil || len(files) != 2 || !strings.HasPrefix(filepath.Base(files[0]), want) {
			t.Fatalf("part %s: %v (%v)", part, files, err)
		}
	}
	c, err := loadConversation(files[0])
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]turn{}
	long := 0
	for _, tn := range c.turns {
		ids[tn.DiaID] = tn
		if tn.Speaker != "user" && tn.Speaker != "assistant" {
			t.Fatalf("speaker %q", tn.Speaker)
		}
		if tn.Speaker == "assistant" && len(strings.Fields(tn.Text)) > 60 && strings.Contains(tn.Text, "```") {
			long++
		}
	}
	if len(c.turns) < 150 || long < 30 {
		t.Fatalf("%d turns, %d long assistant turns with code", len(c.turns), long)
	}
	cats := map[int]int{}
	for _, q := range c.questions {
		cats[q.Category]++
		for _, e := range q.evidence() {
			if _, ok := ids[e]; !ok {
				t.Fatalf("question %q: evidence %s is no turn", q.Question, e)
			}
		}
	}
	for cat := 1; cat <= 4; cat++ {
		if cats[cat] == 0 {
			t.Fatalf("no question of category %d: %v", cat, cats)
		}
	}
}

func TestTuneObjective(t *testing.T) {
	// Every row kept: the mean gain.
	if got := objective([][2]float64{{1.2, 1.1}, {1.0, 1.04}}); got < 1.085-1e-9 || got > 1.085+1e-9 {
		t.Fatalf("feasible: %v", got)
	}
	// A corpus below its BM25-alone row ranks below any feasible weights,
	// by how far it falls.
	bad := objective([][2]float64{{1.5, 1.5}, {0.98, 1.01}})
	worse := objective([][2]float64{{1.5, 1.5}, {0.95, 1.01}})
	if bad >= 0 || worse >= bad {
		t.Fatalf("infeasible: %v, worse %v", bad, worse)
	}
}
