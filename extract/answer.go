package extract

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/ontology"
)

// SourceKindCeiling is the most trusted source kind a fact extracted from ep
// may carry, and the default when the model gives none:
//
//   - role assistant or system: agent_inferred (an agent's words are not the
//     user's, even when they quote the user);
//   - role tool: tool;
//   - otherwise the episode's own source kind when it is a weaker one
//     (user_implicit, tool, import, agent_inferred);
//   - otherwise (role user, or a document with no role) user_explicit.
//
// Only user statements may become hard constraints, so this cap keeps text
// that came from a tool or a model from posing as the user.
func SourceKindCeiling(ep entity.Episode) entity.SourceKind {
	switch ep.Role {
	case entity.RoleAssistant, entity.RoleSystem:
		return entity.AgentInferred
	case entity.RoleTool:
		return entity.Tool
	}
	if ep.SourceKind.Valid() && entity.UserExplicit.Stronger(ep.SourceKind) {
		return ep.SourceKind
	}
	return entity.UserExplicit
}

// validator checks one answer against the rules of Extract.
type validator struct {
	onto    *ontology.Ontology
	ref     time.Time
	ceiling entity.SourceKind
	ep      entity.Episode
	known   []entity.Entity
	// compact: the answer is in the compact shape, whose object may be a
	// value (see literal).
	compact bool
}

// errAnswer marks an answer as unusable as a whole (a repair may help).
// broken holds the answer when it was JSON of the right shape whose every
// fact broke a rule: after the repair call, that is an answer with every
// fact dropped, not a failure.
type errAnswer struct {
	msg    string
	broken *Output
}

func (e *errAnswer) Error() string { return e.msg }

func badAnswer(format string, args ...any) error {
	return &errAnswer{msg: fmt.Sprintf(format, args...)}
}

// answer parses and validates the model's text.
func (v validator) answer(content string) (Output, error) {
	body := jsonBody(content)
	if body == "" {
		return Output{}, badAnswer("the answer is empty")
	}
	dec := json.NewDecoder(strings.NewReader(escapeControls(body)))
	dec.UseNumber() // so 3307 stays "3307", not 3307.0
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		return Output{}, badAnswer("the answer is not a JSON object: %s", jsonErr(err))
	}
	if dec.More() {
		return Output{}, badAnswer("the answer has text after the JSON object")
	}
	rawEntities, hasE := top["entities"]
	rawFacts, hasF := top["facts"]
	if !hasE && !hasF {
		return Output{}, badAnswer(`the answer has neither "entities" nor "facts"`)
	}
	ents, ok := listOf(rawEntities)
	if !ok {
		return Output{}, badAnswer(`"entities" is not a list`)
	}
	facts, ok := listOf(rawFacts)
	if !ok {
		return Output{}, badAnswer(`"facts" is not a list`)
	}

	out := Output{Entities: v.entities(ents), Facts: make([]Fact, 0, len(facts)), Proposed: len(facts)}
	// named holds the types of the names of the answer's entities and of
	// the known ones.
	named := map[string]string{}
	for _, k := range v.known {
		named[entity.Normalize(k.Name)] = strings.ToLower(k.Type)
	}
	for _, e := range out.Entities {
		named[entity.Normalize(e.Name)] = e.Type
		for _, a := range e.Aliases {
			named[entity.Normalize(a)] = e.Type
		}
	}
	g := newGrounding(v.ep, v.known, out.Entities)
	seen := map[string]bool{}
	broken := 0
	var reasons []string
	for i, raw := range facts {
		f, reason, detail := v.fact(raw, named)
		if reason == "" {
			reason, detail = v.grounded(g, f)
		}
		if reason == "" {
			key := strings.Join([]string{entity.Normalize(f.Subject), f.Predicate, entity.Normalize(f.Object), entity.Normalize(f.Value), stamp(f.ValidFrom), stamp(f.ValidTo)}, "\x00")
			if seen[key] {
				reason, detail = entity.DropDuplicate, "the same statement as an earlier fact of the answer"
			}
			seen[key] = true
		}
		if reason == "" {
			if f.mapped != "" {
				out.Warnings = append(out.Warnings, f.mapped)
			}
			out.Facts = append(out.Facts, f)
			continue
		}
		out.Dropped = append(out.Dropped, Drop{Index: i, DroppedFact: entity.DroppedFact{
			Subject: f.Subject, Predicate: f.Predicate, Object: f.Object + f.Value, Reason: reason, Detail: detail}})
		switch reason {
		case entity.DropMalformed, entity.DropBadDate:
			broken++
			if len(reasons) < 5 {
				reasons = append(reasons, fmt.Sprintf("facts[%d]: %s", i, detail))
			}
		}
	}
	// One bad fact among good ones is the model's slip and is dropped; when
	// every fact is broken in form the answer as a whole missed the rules,
	// and a repair is worth a call. Permission-like, ungrounded and
	// repeated facts are dropped on purpose, never repaired: the model
	// said what it meant.
	if broken > 0 && len(out.Facts) == 0 {
		return Output{}, &errAnswer{msg: "every fact is invalid: " + strings.Join(reasons, "; "), broken: &out}
	}
	return out, nil
}

// grounded returns why f is not grounded in the episode, or "".
func (v validator) grounded(g grounding, f Fact) (string, string) {
	if !g.name(f.Subject) {
		return entity.DropNotGrounded, fmt.Sprintf("the subject %q is not named in the episode", f.Subject)
	}
	if f.Object != "" && !g.name(f.Object) {
		return entity.DropNotGrounded, fmt.Sprintf("the object %q is not named in the episode", f.Object)
	}
	if f.Value != "" && !g.value(f.Value) {
		return entity.DropNotGrounded, fmt.Sprintf("the value %q is not in the episode", f.Value)
	}
	return "", ""
}

func stamp(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// jsonBody strips what models wrap JSON in when no schema holds them:
// markdown fences and a sentence before or after the object.
func jsonBody(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```")
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:] // drop the info string ("json")
		}
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
		s = strings.TrimSpace(s)
	}
	if s != "" && s[0] != '{' {
		i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
		if i >= 0 && j > i {
			s = s[i : j+1]
		}
	}
	return s
}

// escapeControls escapes the raw line breaks and tabs a model wrote inside
// JSON strings. JSON forbids them, but the grammar llama.cpp servers build
// from a schema lets them through, and small models write them.
func escapeControls(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") {
		return s
	}
	var b strings.Builder
	in, esc := false, false
	for _, r := range s {
		switch {
		case esc:
			esc = false
		case in && r == '\\':
			esc = true
		case r == '"':
			in = !in
		case in && r == '\n':
			b.WriteString(`\n`)
			continue
		case in && r == '\r':
			b.WriteString(`\r`)
			continue
		case in && r == '\t':
			b.WriteString(`\t`)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func jsonErr(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
	}
	return err.Error()
}

// listOf accepts a JSON array; a missing or null list is an empty one.
func listOf(v any) ([]any, bool) {
	if v == nil {
		return nil, true
	}
	l, ok := v.([]any)
	return l, ok
}

func (v validator) entities(raw []any) []Entity {
	out := make([]Entity, 0, len(raw))
	seen := map[string]int{}
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		name, _ := scalar(m["name"])
		if name == "" {
			continue
		}
		typ, _ := scalar(m["type"])
		typ = strings.ToLower(typ)
		if typ == "" {
			typ = "thing"
		}
		var aliases []string
		if l, ok := m["aliases"].([]any); ok {
			for _, a := range l {
				if s, _ := scalar(a); s != "" {
					aliases = append(aliases, s)
				}
			}
		}
		key := entity.Normalize(name)
		if i, dup := seen[key]; dup {
			// The same entity listed twice: merge the aliases.
			for _, a := range aliases {
				out[i].Aliases = addAlias(out[i].Name, out[i].Aliases, a)
			}
			continue
		}
		e := Entity{Name: name, Type: typ}
		for _, a := range aliases {
			e.Aliases = addAlias(name, e.Aliases, a)
		}
		seen[key] = len(out)
		out = append(out, e)
	}
	return out
}

func addAlias(name string, aliases []string, a string) []string {
	k := entity.Normalize(a)
	if k == "" || k == entity.Normalize(name) {
		return aliases
	}
	for _, x := range aliases {
		if entity.Normalize(x) == k {
			return aliases
		}
	}
	return append(aliases, a)
}

// fact validates one raw fact. It returns the reason it is dropped (one of
// entity's Drop codes, "" when it is kept) and what exactly is wrong. named
// holds the normalised names and aliases of the answer's entities and the
// known ones, with their types: a fact that sets both object and value
// (small models often do) keeps the object when it names one of them, else
// the value.
func (v validator) fact(raw any, named map[string]string) (Fact, string, string) {
	m, ok := raw.(map[string]any)
	if !ok {
		return Fact{}, entity.DropMalformed, "not an object"
	}
	var f Fact
	var ok2 bool
	pred, _ := scalar(m["predicate"])
	f.Predicate = v.onto.Canonical(pred)
	if f.Subject, ok2 = scalar(m["subject"]); !ok2 || f.Subject == "" {
		return f, entity.DropMalformed, "subject is required"
	}
	if f.Predicate == "" {
		return f, entity.DropMalformed, "predicate is required"
	}
	if f.Object, ok2 = scalar(m["object"]); !ok2 {
		return f, entity.DropMalformed, "object must be a string or null"
	}
	if f.Value, ok2 = scalar(m["value"]); !ok2 {
		return f, entity.DropMalformed, "value must be a literal or null"
	}
	if f.Object != "" && f.Value != "" {
		if _, ok := named[entity.Normalize(f.Object)]; ok {
			f.Value = ""
		} else {
			f.Object = ""
		}
	}
	if f.Object == "" && f.Value == "" {
		return f, entity.DropMalformed, "one of object and value must be set"
	}
	f.Predicate, f.mapped = mapPredicate(v.onto, entity.CanonicalPredicate(pred), f.Object+f.Value, named[entity.Normalize(f.Object)])
	if v.compact && f.Value == "" && literal(v.onto, f.Predicate, f.Object) {
		f.Object, f.Value = "", f.Object
	}
	f.Text, _ = scalar(m["text"])
	if f.Text == "" {
		f.Text = strings.Join([]string{f.Subject, strings.ReplaceAll(f.Predicate, "_", " "), f.Object + f.Value}, " ")
	}
	if reason, msg := v.interval(&f, m); reason != "" {
		return f, reason, msg
	}
	if reason, msg := v.cardinality(&f, m); reason != "" {
		return f, reason, msg
	}
	if reason, msg := v.sourceKind(&f, m); reason != "" {
		return f, reason, msg
	}

	var err error
	if f.Importance, err = importance(m["importance"]); err != nil {
		return f, entity.DropMalformed, "importance: " + err.Error()
	}
	if f.Attributes, err = attributes(m["attributes"]); err != nil {
		return f, entity.DropMalformed, "attributes: " + err.Error()
	}

	if entity.PermissionStatement(f.Predicate, f.Text, f.Value) {
		return f, entity.DropPermission, "a permission granted to the agent is never memory"
	}
	return f, "", ""
}

// interval reads the fact's valid_from and valid_to into f; it returns
// the reason to drop the fact and what is wrong when they do not read or
// do not make an interval.
func (v validator) interval(f *Fact, m map[string]any) (string, string) {
	var err error
	if f.ValidFrom, err = v.time(m["valid_from"]); err != nil {
		return entity.DropBadDate, "valid_from: " + err.Error()
	}
	if f.ValidTo, err = v.time(m["valid_to"]); err != nil {
		return entity.DropBadDate, "valid_to: " + err.Error()
	}
	if msg := entity.StatedIntervalProblem(f.ValidFrom, f.ValidTo); msg != "" {
		return entity.DropBadDate, "valid_to " + msg
	}
	return "", ""
}

// cardinality reads the fact's cardinality into f; the ontology's, when
// it defines one for the predicate, wins. It returns the reason to drop
// the fact and what is wrong when the field is not a cardinality.
func (v validator) cardinality(f *Fact, m map[string]any) (string, string) {
	cs, ok := scalar(m["cardinality"])
	card := ontology.Cardinality(strings.ToLower(cs))
	if !ok || (card != "" && !card.Valid()) {
		return entity.DropMalformed, `cardinality must be "one", "many" or null`
	}
	if c, defined := v.onto.Cardinality(f.Predicate); defined {
		card = c
	}
	f.Cardinality = card
	return "", ""
}

// sourceKind reads the fact's source kind into f, never stronger than the
// validator's ceiling (which a missing one takes). It returns the reason
// to drop the fact and what is wrong when the field is not a source kind.
func (v validator) sourceKind(f *Fact, m map[string]any) (string, string) {
	sk, ok := scalar(m["source_kind"])
	f.SourceKind = entity.SourceKind(strings.ToLower(sk))
	switch {
	case !ok:
		return entity.DropMalformed, "source_kind must be a string"
	case f.SourceKind == "":
		f.SourceKind = v.ceiling
	case !f.SourceKind.Valid():
		return entity.DropMalformed, fmt.Sprintf("unknown source_kind %q", sk)
	case f.SourceKind.Stronger(v.ceiling):
		f.SourceKind = v.ceiling
	}
	return "", ""
}

// scalar reads a string field: strings are trimmed, numbers and booleans
// become their JSON text, null and absence are "". ok is false for lists
// and objects.
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return strings.TrimSpace(x), true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// time reads an RFC 3339 time. Models in JSON mode sometimes drop the
// offset or the time of day; those are read in the reference time's zone,
// which is what the prompt asked them to use.
func (v validator) time(raw any) (*time.Time, error) {
	s, ok := scalar(raw)
	if !ok {
		return nil, errors.New("must be an RFC 3339 string or null")
	}
	if s == "" || strings.EqualFold(s, "null") {
		return nil, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return &t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, v.ref.Location()); err == nil {
			return &t, nil
		}
	}
	return nil, fmt.Errorf("%q is not an RFC 3339 time", s)
}

func importance(raw any) (int, error) {
	var f float64
	switch x := raw.(type) {
	case nil:
		return DefaultImportance, nil
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, errors.New("not a number")
		}
	case string:
		if strings.TrimSpace(x) == "" {
			return DefaultImportance, nil
		}
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil {
			return 0, errors.New("not a number")
		}
	default:
		return 0, errors.New("not a number")
	}
	if f == 0 {
		return DefaultImportance, nil // "no opinion" from lenient servers
	}
	if f != math.Trunc(f) || f < 1 || f > 10 {
		return 0, fmt.Errorf("%v is not an integer from 1 to 10", f)
	}
	return int(f), nil
}

// attributes keeps reason and alternatives and, from JSON-mode answers,
// other scalar attributes; nested values are left out.
func attributes(raw any) (map[string]any, error) {
	if raw == nil {
		return nil, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, errors.New("must be an object")
	}
	out := map[string]any{}
	for k, val := range m {
		switch k {
		case "reason":
			s, ok := scalar(val)
			if !ok {
				return nil, errors.New("reason must be a string or null")
			}
			if s != "" {
				out["reason"] = s
			}
		case "alternatives":
			var alts []string
			switch x := val.(type) {
			case nil:
			case []any:
				for _, a := range x {
					s, ok := scalar(a)
					if !ok {
						return nil, errors.New("alternatives must be strings")
					}
					if s != "" {
						alts = append(alts, s)
					}
				}
			case string: // a lenient server's single alternative
				if s := strings.TrimSpace(x); s != "" {
					alts = []string{s}
				}
			default:
				return nil, errors.New("alternatives must be a list of strings")
			}
			if len(alts) > 0 {
				out["alternatives"] = alts
			}
		default:
			if s, ok := scalar(val); ok && s != "" {
				out[k] = s
			}
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
