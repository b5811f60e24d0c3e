package ontology_test

import (
	"testing"

	"github.com/graphmem/graphmem/ontology"
)

func TestDescribe(t *testing.T) {
	o, err := ontology.Parse([]byte(`
entity_types:
  - {name: session, description: a chat session, ttl: 30d}
predicates:
  - {name: works_at, cardinality: one, synonyms: [employed_by]}
  - {name: mood, cardinality: one, ttl: 12h}
`))
	if err != nil {
		t.Fatal(err)
	}
	d := o.Describe()
	if len(d.EntityTypes) != 1 || d.EntityTypes[0].TTL == nil || *d.EntityTypes[0].TTL != "30d" {
		t.Errorf("entity types: %+v", d.EntityTypes)
	}
	if len(d.Predicates) != 2 || d.Predicates[0].Synonyms[0] != "employed_by" || d.Predicates[0].TTL != nil ||
		d.Predicates[1].TTL == nil || *d.Predicates[1].TTL != "12h0m0s" || d.Predicates[1].Cardinality != ontology.One {
		t.Errorf("predicates: %+v", d.Predicates)
	}
	if d.Unknown == "" {
		t.Error("no word on unknown predicates")
	}
}
