package ontology_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/ontology"
)

func TestReverses(t *testing.T) {
	o := ontology.Default()
	if !slices.Contains(o.Reverses("dropped"), "adopted") || !slices.Contains(o.ReversedBy("adopted"), "dropped") {
		t.Errorf("dropped reverses %v; adopted reversed by %v", o.Reverses("dropped"), o.ReversedBy("adopted"))
	}
	if o.Reverses("works_at") != nil || o.ReversedBy("works_at") != nil {
		t.Errorf("works_at takes part in reversals")
	}
	// A synonym names the predicate; an unknown name is an error.
	o2, err := ontology.Parse([]byte("predicates:\n  - {name: started, synonyms: [began]}\n  - {name: stopped, reverses: [began]}\n"))
	if err != nil || !slices.Equal(o2.Reverses("stopped"), []string{"started"}) {
		t.Errorf("synonym in reverses: %v %v", o2, err)
	}
	_, err = ontology.Parse([]byte("predicates:\n  - {name: stopped, reverses: [nothing_here]}\n"))
	if err == nil || !strings.Contains(err.Error(), "nothing_here") {
		t.Errorf("unknown predicate in reverses: %v", err)
	}
}
