package eval

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/extract"
	"github.com/graphmem/graphmem/extract/extracttest"
	"github.com/graphmem/graphmem/fixtures"
)

// scripted returns the scripted answers of the gold set, for
// extracttest.Scripted.
func scripted(t *testing.T) map[string][]string {
	t.Helper()
	m, err := fixtures.ExtractScriptedByContent()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func runExtractEval(t *testing.T, answers map[string][]string) (ExtractReport, string) {
	t.Helper()
	srv := extracttest.NewServer(t, extracttest.Scripted(answers))
	var misses bytes.Buffer
	rep, err := Extract(context.Background(), ExtractOptions{
		Model:  extract.Config{BaseURL: srv.BaseURL(), Model: "scripted", Timeout: 10 * time.Second},
		Misses: &misses,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep, misses.String()
}

// The scripted answers follow the gold set except for slips written into
// them on purpose (fixtures/extract/README.md): one fact left out, one
// made up, one date a day off, one answer garbled and repaired, one
// permission stored and dropped. The figures are what those slips give.
func TestExtractEvalScripted(t *testing.T) {
	cases, err := fixtures.ExtractGold()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 40 {
		t.Fatalf("the gold set has %d cases, want at least 40", len(cases))
	}
	langs := map[string]int{}
	gold, dates := 0, 0
	for _, c := range cases {
		langs[c.Lang]++
		for _, g := range c.Facts {
			if !g.Optional {
				gold++
			}
		}
	}
	rep, misses := runExtractEval(t, scripted(t))
	t.Logf("misses:\n%s", misses)
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", table.String())

	if rep.Episodes != len(cases) || rep.Gold != gold {
		t.Fatalf("episodes %d gold %d, want %d and %d", rep.Episodes, rep.Gold, len(cases), gold)
	}
	// Missed: job-en-1's job title. Wrong: pref-en-2's "likes cilantro"; its
	// made-up interest is dropped as not grounded; the optional
	// uses_database of dec-en-1 is correct.
	if rep.Found != gold-1 || rep.Extracted != gold+1 || rep.Correct != gold {
		t.Errorf("found %d extracted %d correct %d, want %d, %d, %d", rep.Found, rep.Extracted, rep.Correct, gold-1, gold+1, gold)
	}
	if *rep.Precision != float64(gold)/float64(gold+1) || *rep.Recall != float64(gold-1)/float64(gold) {
		t.Errorf("precision %v recall %v", *rep.Precision, *rep.Recall)
	}
	for _, c := range cases {
		for _, g := range c.Facts {
			if c.ID == "job-en-1" && g.Predicate == "job_title" {
				continue // missed, so not checked
			}
			for _, d := range []string{g.ValidFrom, g.ValidTo} {
				if d != "" {
					dates++
				}
			}
		}
	}
	if rep.DatesChecked != dates || rep.DatesRight != dates-1 {
		t.Errorf("dates right %d of %d, want %d of %d", rep.DatesRight, rep.DatesChecked, dates-1, dates)
	}
	// corr-zh-2 is garbled first, so 1 repair and one more call.
	n := float64(len(cases))
	if rep.Repaired != 1 || rep.Failed != 0 || rep.JSONValid != (n-1)/n || rep.CallsPerEpisode != (n+1)/n {
		t.Errorf("repaired %d failed %d json valid %v calls/episode %v", rep.Repaired, rep.Failed, rep.JSONValid, rep.CallsPerEpisode)
	}
	if rep.Nothing != 12 || rep.NothingEmpty != 12 || rep.PermissionDropped != 1 {
		t.Errorf("nothing %d, empty there %d, permission dropped %d", rep.Nothing, rep.NothingEmpty, rep.PermissionDropped)
	}
	if rep.Dropped[entity.DropNotGrounded] != 1 || rep.Dropped[entity.DropPermission] != 1 || len(rep.Dropped) != 2 ||
		rep.Proposed != rep.Extracted+2 {
		t.Errorf("dropped %v of %d proposed", rep.Dropped, rep.Proposed)
	}
	if rep.PromptTokens <= 0 || rep.CompletionTokens <= 0 || rep.LatencyP95Ms < rep.LatencyP50Ms || rep.BaselineCallMs <= 0 {
		t.Errorf("tokens %d/%d latency p50 %v p95 %v baseline %v", rep.PromptTokens, rep.CompletionTokens, rep.LatencyP50Ms, rep.LatencyP95Ms, rep.BaselineCallMs)
	}
	if rep.Mode != extract.ModeJSONSchema || rep.Model != "scripted" {
		t.Errorf("mode %q model %q", rep.Mode, rep.Model)
	}
	for _, want := range []string{"missed: Alice Chen job_title staff engineer", "wrong:  Mia Wong likes cilantro",
		"date:   Tom Baker lives_in Lisbon: valid_from is 2025-06-01, want 2025-06-02"} {
		if !strings.Contains(misses, want) {
			t.Errorf("misses lack %q", want)
		}
	}
	if len(rep.Languages) != 2 || rep.Languages[0].Episodes != langs["en"] || rep.Languages[1].Episodes != langs["zh"] {
		t.Errorf("languages %+v, want en %d zh %d", rep.Languages, langs["en"], langs["zh"])
	}
	for _, want := range []string{"permission", "chitchat", "relative_date", "precision", "baseline: a bare call"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q", want)
		}
	}
}

// A wrong answer is scored as wrong: the old port given as the new one
// lowers precision and recall by one fact each.
func TestExtractEvalWrongAnswer(t *testing.T) {
	answers := scripted(t)
	good, _ := runExtractEval(t, answers)
	const content = "orders-service now listens on 9090 instead of 8080."
	if answers[content] == nil {
		t.Fatal("port-en-2 not found")
	}
	answers[content] = []string{strings.Replace(answers[content][0], `"9090"`, `"8080"`, 1)}
	bad, misses := runExtractEval(t, answers)
	if bad.Correct != good.Correct-1 || bad.Found != good.Found-1 || *bad.Precision >= *good.Precision || *bad.Recall >= *good.Recall {
		t.Errorf("correct %d→%d found %d→%d precision %v→%v", good.Correct, bad.Correct, good.Found, bad.Found, *good.Precision, *bad.Precision)
	}
	if !strings.Contains(misses, "wrong:  orders-service port 8080") || !strings.Contains(misses, "missed: orders-service port 9090") {
		t.Errorf("misses:\n%s", misses)
	}
}

func TestNear(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"3307", "3307", true},
		{"port 3307", "3307", true},
		{"33071", "3307", false},
		{"dark mode in every editor", "dark mode", false},
		{"dark mode everywhere", "dark mode", true},
		{"深圳市", "深圳", true},
		{"广东省深圳市南山区", "深圳", false},
		{"", "3307", false},
	} {
		if got := near(c.a, c.b); got != c.want {
			t.Errorf("near(%q, %q) = %v", c.a, c.b, got)
		}
	}
}
