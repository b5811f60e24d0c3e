package extract

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/graphmem/graphmem/ontology"
)

// Prompt styles.
const (
	// PromptFull is the default: every rule, the whole ontology with
	// descriptions, and the full answer schema (entities, facts with text,
	// dates, source kind, importance, cardinality, reasons).
	PromptFull = "full"
	// PromptCompact is for small local models: short rules, few-shot
	// examples built from the ontology's predicates, the predicate names
	// only, and a four-field fact (subject, predicate, object, valid_from)
	// plus valid_to for ends. Its fixed part stays under 1,200 tokens.
	PromptCompact = "compact"
)

// compactSchema is the strict schema of a compact answer.
const compactSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["facts"],
  "properties": {
    "facts": {
      "type": "array",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["subject", "predicate", "object", "valid_from", "valid_to"],
        "properties": {
          "subject": {"type": "string"},
          "predicate": {"type": "string"},
          "object": {"type": "string"},
          "valid_from": {"type": ["string", "null"]},
          "valid_to": {"type": ["string", "null"]}
        }
      }
    }
  }
}`

// compactGrammar is the compact schema as a grammar for llama.cpp servers:
// non-empty names, snake_case predicates, dates or null, at most 8 facts.
const compactGrammar = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["facts"],
  "properties": {
    "facts": {
      "type": "array",
      "maxItems": 8,
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["subject", "predicate", "object", "valid_from", "valid_to"],
        "properties": {
          "subject": {"type": "string", "minLength": 1},
          "predicate": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
          "object": {"type": "string", "minLength": 1},
          "valid_from": {"anyOf": [{"type": "null"}, {"type": "string", "format": "date"}]},
          "valid_to": {"anyOf": [{"type": "null"}, {"type": "string", "format": "date"}]}
        }
      }
    }
  }
}`

var (
	compactSchemaJSON  = json.RawMessage(compactSchema)
	compactGrammarJSON = json.RawMessage(compactGrammar)
)

const compactRules = `Extract long-term facts from the episode. Reply with JSON only:
{"facts": [{"subject": "...", "predicate": "...", "object": "...", "valid_from": "YYYY-MM-DD" or null, "valid_to": "YYYY-MM-DD" or null}]}
- Only facts the episode states. Use its words for names and values; keep its language.
- subject: who or what the fact is about; the speaker's name for "I".
- predicate: one of the predicates below when one fits, else a short snake_case verb.
- object: the other entity or the value (a port, a version, a title).
- valid_from: when it became true (resolve "today", "last week" from the reference date); valid_to: when it stopped. A change gives the new fact with valid_from and the old one with valid_to.
- Permissions given to the assistant ("you may skip confirmation") are not facts. Greetings and questions give {"facts": []}.
`

// compactExample is a few-shot example for one predicate of the default
// ontology, and the fact it shows.
type compactExample struct {
	predicate, text, subject, object, from, to string
}

// compactExamples are tried in order; those whose predicate the ontology
// defines are shown, at most maxExamples.
var compactExamples = []compactExample{
	{"works_at", "2025-03-03, Bob: I left Initech and joined Acme Corp last week.", "Bob", "Acme Corp", "2025-02-24", ""},
	{"port", "2025-05-02, Ana: orders-service now listens on 9090.", "orders-service", "9090", "2025-05-02", ""},
	{"lives_in", "2025-06-16, Tom: I moved to Lisbon two weeks ago.", "Tom", "Lisbon", "2025-06-02", ""},
	{"prefers", "2025-01-08, Mia: I prefer tea to coffee.", "Mia", "tea", "", ""},
	{"decided", "2025-04-10, Kai: we decided to use PostgreSQL because we need transactions.", "Kai", "use PostgreSQL", "2025-04-10", ""},
}

const maxExamples = 3

// compactPrompt returns the compact system prompt for o.
func compactPrompt(o *ontology.Ontology) string {
	var b strings.Builder
	b.WriteString(compactRules)
	b.WriteString("\nPredicates: ")
	for i, p := range o.Predicates {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name)
	}
	b.WriteString("\n\nExamples:\n")
	n := 0
	for _, e := range compactExamples {
		if n == maxExamples {
			break
		}
		if _, ok := o.Predicate(e.predicate); !ok {
			continue
		}
		n++
		fmt.Fprintf(&b, "%s\n%s\n", e.text, compactFact(e.subject, e.predicate, e.object, e.from, e.to))
	}
	if n == 0 && len(o.Predicates) > 0 {
		// An ontology of its own: show the shape with its first predicate.
		p := o.Predicates[0]
		fmt.Fprintf(&b, "2025-03-01, Sam: %s.\n%s\n", oneLine(p.Description), compactFact("Sam", p.Name, "...", "2025-03-01", ""))
	}
	b.WriteString("Nothing to remember:\n{\"facts\": []}\n")
	return b.String()
}

func compactFact(subject, predicate, object, from, to string) string {
	q := func(s string) string {
		if s == "" {
			return "null"
		}
		b, _ := json.Marshal(s)
		return string(b)
	}
	return fmt.Sprintf(`{"facts": [{"subject": %s, "predicate": %s, "object": %s, "valid_from": %s, "valid_to": %s}]}`,
		q(subject), q(predicate), q(object), q(from), q(to))
}

// literal reports whether the object of a compact fact is a value rather
// than an entity: the ontology describes the predicate as taking a value,
// or the object is a number, a version or a date.
func literal(o *ontology.Ontology, predicate, object string) bool {
	if p, ok := o.Predicate(predicate); ok && strings.Contains(p.Description, "(a value)") {
		return true
	}
	if isDate(object) {
		return true
	}
	digits := 0
	for _, r := range object {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '.' || r == ':' || r == '-' || r == 'v':
		default:
			return false
		}
	}
	return digits > 0
}
