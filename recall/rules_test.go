package recall

import (
	"slices"
	"testing"
)

// Rules of ranking and of the floor, each with a case that fails when the
// rule is changed (issue 49, item 4).

// TestScoreFact_EndedDecisionAskedWhy: a decision asked about with why is
// weighed as a decision, never as history: ended or not, it scores the
// same, while an ended fact that is no decision takes the history factor.
func TestScoreFact_EndedDecisionAskedWhy(t *testing.T) {
	w := DefaultWeights()
	score := func(f factFeatures) float64 {
		return scoreFact(&nodes{}, &w, 1, &f).Value
	}
	decision := factFeatures{BM25: 1, BM25Rank: 1, SubjectNamed: true, Predicate: 0.8, WhyDecision: true}
	current, ended := decision, decision
	current.Valid = true
	if c, e := score(current), score(ended); c != e {
		t.Errorf("a decision asked why: %.4f while valid, %.4f once ended; want the same", c, e)
	}
	current.WhyDecision, ended.WhyDecision = false, false
	if c, e := score(current), score(ended); e >= c {
		t.Errorf("a fact that is no decision: %.4f ended, %.4f valid; want the ended one lower", e, c)
	}
}

// TestKeepPieces_StrongBeatsWeak: when some piece covers an entity the
// question names exactly, a piece that covers as much only through an
// entity named fuzzily is left out; with no exact name, it stays.
func TestKeepPieces_StrongBeatsWeak(t *testing.T) {
	share := DefaultWeights().Floor.Share
	tp := &topic{entities: map[string][]string{"sam": {"sam"}, "kim": {"kim"}}, strong: map[string]bool{"sam": true}}
	ps := []piece{
		{touches: []string{"sam"}, text: "Sam lives in Oslo"},
		{touches: []string{"kim"}, text: "Kim lives in Lyon"},
	}
	if got, want := tp.keepPieces(ps, share), []bool{true, false}; !slices.Equal(got, want) {
		t.Errorf("an exact and a fuzzy name: keep %v, want %v", got, want)
	}
	weak := &topic{entities: map[string][]string{"kim": {"kim"}, "lee": {"lee"}}, strong: map[string]bool{}}
	ps = []piece{
		{touches: []string{"lee"}, text: "Lee lives in Oslo"},
		{touches: []string{"kim"}, text: "Kim lives in Lyon"},
	}
	if got, want := weak.keepPieces(ps, share), []bool{true, true}; !slices.Equal(got, want) {
		t.Errorf("fuzzy names only: keep %v, want %v", got, want)
	}
}
