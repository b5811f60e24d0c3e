package recall_test

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/graphmem/graphmem/recall"
)

// maxWeights sets every float64 of v to MaxWeight.
func maxWeights(v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Struct:
			maxWeights(f)
		case reflect.Float64:
			f.SetFloat(recall.MaxWeight)
		}
	}
}

// TestWeights_AtTheirMaximaScoresStayFinite: with every weight at the top
// of its range, search and context answer with finite scores that encode
// as JSON (a weight of 1e308 made them +Inf, and the answers empty).
func TestWeights_AtTheirMaximaScoresStayFinite(t *testing.T) {
	w := recall.DefaultWeights()
	maxWeights(reflect.ValueOf(&w).Elem())
	// What MaxWeight is out of range for gets the top of its own range.
	w.Fact.FromHits, w.Fact.ObjectSide, w.Fact.Confidence, w.Fact.History, w.Entity.Fuzzy = 1, 1, 1, 1, 1
	w.Predicate.Explained, w.Predicate.Answer, w.Predicate.Near, w.Predicate.NearMargin, w.Vector.MMR = 1, 1, 1, 1, 1
	w.Context.Demote, w.Context.EntityCard, w.Context.PinnedShare, w.Floor.Share = 1, 1, 1, 1
	w.Episode.Prev, w.Episode.Next, w.Episode.Session, w.Episode.Mention, w.Episode.Answer = 1, 1, 1, 1, 1
	w.Episode.FollowUp, w.Episode.Question, w.Episode.Length, w.Episode.Assistant = 1, 1, 1, 1
	w.Fact.UnstatedConfidence, w.Limits.Below, w.Limits.NearSimilarity, w.Limits.ForgetScoreRatio = 1, 1, 1, 1
	w.Path = recall.PathWeights{Named: 1, Hinted: 1, Unnamed: 1, Inverse: 1, HopCost: 1, NearBonus: 1}
	w.Fact.UnstatedImportance, w.Limits.SessionTop = 10, recall.MaxWeight
	w.Fact.Importance, w.Fact.RecencyHalfLife = 0.0999, recall.MaxRecencyHalfLife
	if err := w.Validate(); err != nil {
		t.Fatalf("the maxima are refused: %v", err)
	}
	e := newEnv(t)
	portHistory(t, e, "u")
	e.conversation(t, "u", chat)
	e.engine.Weights = &w
	finite := func(what string, x float64) {
		t.Helper()
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Errorf("%s: %v", what, x)
		}
	}
	for _, q := range []string{"what port does billing api listen on", "where did Bob go on holiday with the kids", "billing api 8080"} {
		res := e.search(t, "u", recall.SearchRequest{Query: q, Limit: 50, IncludeHistory: true})
		if len(res.Hits) == 0 {
			t.Errorf("%q: no hits", q)
		}
		for _, h := range res.Hits {
			finite(q+" "+h.ID, h.Score)
			for k, s := range h.Signals {
				finite(q+" "+h.ID+" "+k, s)
			}
		}
		if _, err := json.Marshal(res); err != nil {
			t.Errorf("%q: search answer: %v", q, err)
		}
		c := e.context(t, "u", recall.ContextRequest{Query: q, Format: "json", Mode: recall.ModeHistory})
		if _, err := json.Marshal(c); err != nil {
			t.Errorf("%q: context answer: %v", q, err)
		}
		for _, f := range c.Facts {
			finite(q+" "+f.Fact.ID, f.Score)
		}
	}
}
