package recall_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/recall"
)

// TestContext_HandoverNote: a pager handed from Alice to Bob on a
// predicate the ontology does not define leaves both current, and the
// block says so in one line with the fix; not for one value, not for a
// predicate the ontology defines as many, not for one a cardinality hint
// described as many.
func TestContext_HandoverNote(t *testing.T) {
	e := newEnv(t)
	const scope = "handover"
	e.add(t, scope,
		memory.FactInput{Subject: "cart-api", Predicate: "pager_holder", Object: "Alice", ValidFrom: at("2024-05-01"), SourceKind: entity.UserExplicit},
		memory.FactInput{Subject: "cart-api", Predicate: "pager_holder", Object: "Bob", ValidFrom: at("2024-05-20"), SourceKind: entity.UserExplicit},
		memory.FactInput{Subject: "cart-api", Predicate: "escalation_contact", Object: "Carol", ValidFrom: at("2024-05-01"), SourceKind: entity.UserExplicit},
		memory.FactInput{Subject: "cart-api", Predicate: "chat_room", Value: "#cart", ValidFrom: at("2024-05-01"), Cardinality: ontology.Many},
		memory.FactInput{Subject: "cart-api", Predicate: "chat_room", Value: "#cart-ops", ValidFrom: at("2024-05-02")},
	)
	note := `- [note] "pager_holder" is not in the ontology: "Alice" and "Bob" are both current for "cart-api"; send cardinality "one" or define it`
	res := e.context(t, scope, recall.ContextRequest{Query: "who holds the pager for cart-api?"})
	if !strings.Contains(res.Context, note+"\n") {
		t.Errorf("no handover note in the block:\n%s", res.Context)
	}
	if n := strings.Count(res.Context, "[note]"); n != 1 {
		t.Errorf("%d notes, want 1 (escalation_contact has one value, chat_room was described as many):\n%s", n, res.Context)
	}

	js := e.context(t, scope, recall.ContextRequest{Query: "who holds the pager for cart-api?", Format: recall.FormatJSON})
	var doc struct {
		Items []struct{ Kind, Text string } `json:"items"`
	}
	if err := json.Unmarshal([]byte(js.Context), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range doc.Items {
		found = found || it.Kind == "note" && it.Text == strings.TrimPrefix(note, "- [note] ")
	}
	if !found {
		t.Errorf("no note item in the json block: %s", js.Context)
	}

	// A predicate the ontology defines as many (uses) holds several current values by design.
	e.add(t, scope,
		memory.FactInput{Subject: "checkout-api", Predicate: "uses", Object: "PostgreSQL", ValidFrom: at("2024-05-01")},
		memory.FactInput{Subject: "checkout-api", Predicate: "uses", Object: "Redis", ValidFrom: at("2024-05-02")},
	)
	if res := e.context(t, scope, recall.ContextRequest{Query: "what does checkout-api use?"}); strings.Contains(res.Context, "[note]") {
		t.Errorf("a note for a predicate the ontology defines:\n%s", res.Context)
	}
}
