package extract_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/extract"
	"github.com/graphmem/graphmem/extract/extracttest"
	"github.com/graphmem/graphmem/ontology"
)

// The compact prompt: its fixed part (the system message) stays under
// 1,200 tokens, counted as one token per three characters, which
// overcounts English and JSON for the tokenizers of small models (SmolLM2
// reads about four characters a token); its examples use the ontology's
// predicates; its schema has five fields; the model's answer comes back as
// ordinary facts, values told from entities, invented predicates mapped.
func TestExtract_CompactPrompt(t *testing.T) {
	ep := entity.Episode{Content: "Bob moved from Initech to Acme Corp last week, and orders-service now listens on 9090.",
		Speaker: "Sam", Role: "user", ReferenceTime: refTime}
	ans := `{"facts": [
	 {"subject": "Bob", "predicate": "moved_to_acme_corp", "object": "Acme Corp", "valid_from": "2025-03-03", "valid_to": null},
	 {"subject": "orders-service", "predicate": "port", "object": "9090", "valid_from": "2025-03-12", "valid_to": null},
	 {"subject": "Bob", "predicate": "collects", "object": "stamps", "valid_from": null, "valid_to": null}]}`
	srv := extracttest.NewServer(t, extracttest.Always(extracttest.Answer(ans)))
	x, _ := MustNew(t, srv, func(c *extract.Config) { c.Prompt = extract.PromptCompact })
	out, u := MustExtract(t, x, extract.Input{Episode: ep})

	req := srv.Requests()[0]
	sys := req.Params.Messages[0].Content
	if n := utf8.RuneCountInString(sys) / 3; n >= 1200 {
		t.Errorf("the compact system prompt is about %d tokens, want under 1,200", n)
	}
	t.Logf("compact system prompt: %d characters", utf8.RuneCountInString(sys))
	for _, want := range []string{"works_at", "lives_in", `"predicate": "port"`, "Examples:", `{"facts": []}`} {
		if !strings.Contains(sys, want) {
			t.Errorf("the compact prompt lacks %q:\n%s", want, sys)
		}
	}
	var schema struct {
		Properties struct {
			Facts struct {
				Items struct {
					Required []string `json:"required"`
				} `json:"items"`
			} `json:"facts"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(req.Params.ResponseFormat.JSONSchema.Schema, &schema); err != nil || len(schema.Properties.Facts.Items.Required) != 5 {
		t.Errorf("schema: %v %+v", err, schema)
	}
	if req.Episode() != ep.Content {
		t.Errorf("the episode is not fenced: %q", req.Prompt())
	}

	if u.Calls != 1 || len(out.Facts) != 2 {
		t.Fatalf("calls %d facts %+v dropped %+v", u.Calls, out.Facts, out.Dropped)
	}
	if f := out.Facts[0]; f.Predicate != "works_at" || f.Object != "Acme Corp" || f.Value != "" || f.SourceKind != entity.UserExplicit || f.Text == "" {
		t.Errorf("fact %+v, want Bob works_at the entity Acme Corp", f)
	}
	if f := out.Facts[1]; f.Predicate != "port" || f.Value != "9090" || f.Object != "" {
		t.Errorf("fact %+v, want the port as a value", f)
	}
	if len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], `"moved_to_acme_corp"`) || !strings.Contains(out.Warnings[0], `"works_at"`) {
		t.Errorf("warnings %q", out.Warnings)
	}
	if len(out.Dropped) != 1 || out.Dropped[0].Reason != entity.DropNotGrounded || out.Dropped[0].Object != "stamps" {
		t.Errorf("dropped %+v: stamps are named nowhere", out.Dropped)
	}
	if x.Prompt() != extract.PromptCompact {
		t.Errorf("prompt %q", x.Prompt())
	}

	if _, err := extract.New(extract.Config{BaseURL: "http://x/v1", Model: "m", Prompt: "tiny"}); entity.ErrorCode(err) != entity.EINVALID ||
		!strings.Contains(err.Error(), "prompt") {
		t.Errorf("prompt tiny: %v", err)
	}
}

// Predicates a model invents are read as the ontology's where its words,
// synonyms or hints allow, told apart by the object's type; the others
// stay as they are.
func TestExtract_MapsInventedPredicates(t *testing.T) {
	ep := entity.Episode{Content: "Bob moved from Initech to Acme Corp, Tom moved to Lisbon and Mia moved to Berlin; Bob is employed by Acme Corp and collects stamps.",
		Speaker: "Sam", Role: "user", ReferenceTime: refTime}
	fact := func(subject, pred, object string) map[string]any {
		return map[string]any{"subject": subject, "predicate": pred, "object": object, "value": nil}
	}
	b, _ := json.Marshal(map[string]any{
		"entities": []any{map[string]any{"name": "Lisbon", "type": "place", "aliases": []any{}}},
		"facts": []any{fact("Bob", "moved_to", "Acme Corp"), fact("Tom", "moved_to", "Lisbon"), fact("Mia", "moved_to", "Berlin"),
			fact("Bob", "is_employed_by", "Initech"), fact("Bob", "collects", "stamps")},
	})
	srv := extracttest.NewServer(t, extracttest.Always(extracttest.Answer(string(b))))
	x, _ := MustNew(t, srv)
	out, _ := MustExtract(t, x, extract.Input{Episode: ep})
	var got []string
	for _, f := range out.Facts {
		got = append(got, f.Predicate)
	}
	// Berlin's type is unknown: moved_to stays the ontology's synonym of
	// adopted.
	want := []string{"works_at", "lives_in", "adopted", "works_at", "collects"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("predicates %v, want %v (dropped %+v)", got, want, out.Dropped)
	}
	if len(out.Warnings) != 3 {
		t.Errorf("warnings %q, want one per mapped predicate", out.Warnings)
	}
	if c, _ := ontology.Default().Cardinality("works_at"); out.Facts[0].Cardinality != c {
		t.Errorf("a mapped predicate takes the ontology's cardinality: %+v", out.Facts[0])
	}
}
