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

// The default ontology holds the predicates ops and org questions use,
// with the cardinality a handover needs: a new value ends the old one.
func TestDefault_OpsAndOrg(t *testing.T) {
	o := ontology.Default()
	for _, tc := range []struct {
		name string
		want ontology.Cardinality
	}{
		{"on_call", ontology.One}, {"reports_to", ontology.One}, {"deployed_in", ontology.One},
		{"memory_limit", ontology.One}, {"cpu_limit", ontology.One}, {"runs_on", ontology.One},
		{"led_by", ontology.One}, {"replicas", ontology.One}, {"language", ontology.One},
		{"repository", ontology.One}, {"deadline", ontology.One}, {"priority", ontology.One},
		{"timezone", ontology.One}, {"owned_by", ontology.One}, {"version", ontology.One},
		{"manages", ontology.Many}, {"works_on", ontology.Many}, {"uses", ontology.Many}, {"affiliated_to", ontology.Many},
	} {
		if c, ok := o.Cardinality(tc.name); !ok || c != tc.want {
			t.Errorf("%s: cardinality %q, defined %v; want %q", tc.name, c, ok, tc.want)
		}
	}
	for word, want := range map[string]string{
		"manager": "reports_to", "hosted in": "deployed_in", "oncall": "on_call", "RAM limit": "memory_limit",
		"depends on": "uses", "member of": "affiliated_to", "written in": "language",
	} {
		if got := o.Canonical(word); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", word, got, want)
		}
	}
}
