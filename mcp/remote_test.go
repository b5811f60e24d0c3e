package mcp_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/mcp"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
)

// TestWireFact: a statement sent through the client is the JSON the
// service's own type makes, every field set.
func TestWireFact(t *testing.T) {
	at, conf := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), 0.5
	f := memory.FactInput{Subject: "a", SubjectType: "person", Predicate: "works_at", Object: "b", ObjectType: "org",
		Value: "v", Text: "t", ValidFrom: &at, ValidTo: &at, StartUnknown: true, SourceKind: entity.Tool, EpisodeID: "ep",
		Confidence: &conf, Importance: 3, Attributes: map[string]any{"k": "v"}, Cardinality: ontology.One,
		SubjectAliases: []string{"sa"}, ObjectAliases: []string{"oa"}}
	want, _ := json.Marshal(f)
	got, _ := json.Marshal(mcp.WireFact(f))
	if string(got) != string(want) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
