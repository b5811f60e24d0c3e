package eval_test

import (
	"context"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/eval"
)

// TestCatalog runs the catalog evaluation on the report seed and holds
// graphmem to the bars it was built for, and above plain BM25.
func TestCatalog(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a generated catalog of about 7,000 facts")
	}
	rep, err := eval.Catalog(context.Background(), eval.CatalogOptions{Seed: eval.ReportSeed, Questions: 100})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	if rep.Predicates < 20 || rep.Changing*3 < rep.Predicates {
		t.Errorf("%d predicates, %d changing: want at least 20, a third changing", rep.Predicates, rep.Changing)
	}
	g := rep.Graphmem
	if g.Hit1 < 0.75 || g.Hit5 < 0.90 || g.ContextHolds < 0.95 {
		t.Errorf("hit@1 %.3f, hit@5 %.3f, context %.3f: want at least 0.75, 0.90, 0.95", g.Hit1, g.Hit5, g.ContextHolds)
	}
	if g.SupersededAbove != 0 {
		t.Errorf("a superseded fact ranks above the current one in %d questions", g.SupersededAbove)
	}
	// Subjects that do not exist are not answered with another's value,
	// and the catalog's own are not taken for unknown.
	if u := rep.Unknown; u.FalseAnswer > 0.05 || u.Reported < 0.9 || u.FalseUnknown > 0.02 {
		t.Errorf("unknown subjects: false answers %.3f, reported %.3f, known questions with an unresolved name %.3f: want at most 0.05, at least 0.9, at most 0.02",
			u.FalseAnswer, u.Reported, u.FalseUnknown)
	}
	if g.Hit1 <= rep.Baseline.Hit1 {
		t.Errorf("hit@1 %.3f does not beat BM25 %.3f", g.Hit1, rep.Baseline.Hit1)
	}
}
