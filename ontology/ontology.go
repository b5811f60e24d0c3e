package ontology

import (
	_ "embed"
	"fmt"
	"os"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/graphmem/graphmem/entity"
)

// Cardinality says how many objects of a predicate may hold for one subject
// at once.
type Cardinality string

// Cardinalities.
const (
	One  Cardinality = "one"  // at most one current object per subject at any instant
	Many Cardinality = "many" // several objects may hold at once
)

// Valid reports whether c is "one" or "many".
func (c Cardinality) Valid() bool { return c == One || c == Many }

// Predicate describes one relation.
type Predicate struct {
	Name        string      `yaml:"name"`
	Description string      `yaml:"description"`
	Cardinality Cardinality `yaml:"cardinality"`
	Synonyms    []string    `yaml:"synonyms"`
	Inverse     string      `yaml:"inverse"`
	Symmetric   bool        `yaml:"symmetric"`
	// Decision marks predicates whose facts record a decision; they carry
	// attributes.reason and answer "why" questions.
	Decision bool `yaml:"decision"`
	// Reverses names predicates whose facts a fact of this one ends when
	// they have the same subject and object: dropping a tool ends having
	// adopted it, adopting it again ends having dropped it. The ended fact
	// stays as history, valid until the reversing fact starts.
	Reverses []string `yaml:"reverses"`
	// TTL, when set, makes facts leave recall that long after they were
	// recorded ("90d", "12h").
	TTL Duration `yaml:"ttl"`
	// Hints are words that, in a predicate the ontology does not define,
	// suggest this one ("moved" in moved_to: works_at or lives_in, told
	// apart by the object's type in the description). See extract.
	Hints []string `yaml:"hints"`
}

// EntityType describes one kind of entity.
type EntityType struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	TTL         Duration `yaml:"ttl"`
}

// Ontology is the set of entity types and predicates. It is read-only after
// construction and safe for concurrent use.
type Ontology struct {
	EntityTypes []EntityType `yaml:"entity_types"`
	Predicates  []Predicate  `yaml:"predicates"`

	byName     map[string]*Predicate
	synonyms   map[string]string
	reversedBy map[string][]string
	types      map[string]*EntityType
}

//go:embed default.yaml
var defaultYAML []byte

// Default returns the built-in ontology.
func Default() *Ontology {
	o, err := Parse(defaultYAML)
	if err != nil {
		panic("ontology: built-in default is invalid: " + err.Error())
	}
	return o
}

// Load reads an ontology from a YAML file; an empty path gives the default.
func Load(path string) (*Ontology, error) {
	if path == "" {
		return Default(), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ontology: %w", err)
	}
	return Parse(b)
}

// Parse reads an ontology from YAML and checks it.
func Parse(b []byte) (*Ontology, error) {
	var o Ontology
	if err := yaml.Unmarshal(b, &o); err != nil {
		return nil, fmt.Errorf("ontology: %w", err)
	}
	o.byName = map[string]*Predicate{}
	o.synonyms = map[string]string{}
	o.types = map[string]*EntityType{}
	for i := range o.EntityTypes {
		t := &o.EntityTypes[i]
		t.Name = strings.ToLower(strings.TrimSpace(t.Name))
		o.types[t.Name] = t
	}
	for i := range o.Predicates {
		p := &o.Predicates[i]
		p.Name = entity.CanonicalPredicate(p.Name)
		if p.Name == "" {
			return nil, fmt.Errorf("ontology: predicate %d has no name", i)
		}
		if p.Cardinality == "" {
			p.Cardinality = Many
		}
		if !p.Cardinality.Valid() {
			return nil, fmt.Errorf("ontology: predicate %s: cardinality %q is neither one nor many", p.Name, p.Cardinality)
		}
		if _, dup := o.byName[p.Name]; dup {
			return nil, fmt.Errorf("ontology: predicate %s defined twice", p.Name)
		}
		o.byName[p.Name] = p
	}
	for _, p := range o.Predicates {
		for _, s := range p.Synonyms {
			s = entity.CanonicalPredicate(s)
			if other, ok := o.synonyms[s]; ok && other != p.Name {
				return nil, fmt.Errorf("ontology: synonym %s names both %s and %s", s, other, p.Name)
			}
			if _, ok := o.byName[s]; ok {
				return nil, fmt.Errorf("ontology: synonym %s of %s is itself a predicate", s, p.Name)
			}
			o.synonyms[s] = p.Name
		}
	}
	o.reversedBy = map[string][]string{}
	for i := range o.Predicates {
		p := &o.Predicates[i]
		for j, r := range p.Reverses {
			r = o.Canonical(r)
			if _, ok := o.byName[r]; !ok {
				return nil, fmt.Errorf("ontology: predicate %s reverses %s, which is not defined", p.Name, r)
			}
			p.Reverses[j] = r
			o.reversedBy[r] = append(o.reversedBy[r], p.Name)
		}
	}
	return &o, nil
}

// Canonical returns the canonical name of a free-form predicate: snake_case,
// with synonyms replaced by the predicate they name.
func (o *Ontology) Canonical(p string) string {
	c := entity.CanonicalPredicate(p)
	if s, ok := o.synonyms[c]; ok {
		return s
	}
	return c
}

// Predicate returns the definition of a canonical predicate name.
func (o *Ontology) Predicate(name string) (Predicate, bool) {
	p, ok := o.byName[name]
	if !ok {
		return Predicate{}, false
	}
	return *p, true
}

// Cardinality returns the cardinality of a canonical predicate and whether
// the ontology defines it. Unknown predicates are "many".
func (o *Ontology) Cardinality(name string) (Cardinality, bool) {
	if p, ok := o.byName[name]; ok {
		return p.Cardinality, true
	}
	return Many, false
}

// IsDecision reports whether facts of the predicate record a decision.
func (o *Ontology) IsDecision(name string) bool {
	p, ok := o.byName[name]
	return ok && p.Decision
}

// Reverses returns the predicates whose facts a fact of the predicate ends
// (same subject and object); ReversedBy the predicates that end its facts.
func (o *Ontology) Reverses(name string) []string {
	if p, ok := o.byName[name]; ok {
		return p.Reverses
	}
	return nil
}

// ReversedBy returns the predicates whose facts end facts of the predicate
// with the same subject and object.
func (o *Ontology) ReversedBy(name string) []string { return o.reversedBy[name] }

// TTL returns how long facts of the predicate, about a subject of the given
// entity type, stay in recall; zero means forever. The predicate's TTL wins
// over the type's.
func (o *Ontology) TTL(predicate, subjectType string) time.Duration {
	if p, ok := o.byName[predicate]; ok && p.TTL > 0 {
		return time.Duration(p.TTL)
	}
	if t, ok := o.types[strings.ToLower(subjectType)]; ok {
		return time.Duration(t.TTL)
	}
	return 0
}

// Duration is a time.Duration read from YAML as "90d", "12h" or "30m".
type Duration time.Duration

// UnmarshalYAML accepts Go durations plus a "d" suffix for days.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	s := strings.TrimSpace(n.Value)
	if s == "" {
		*d = 0
		return nil
	}
	if strings.HasSuffix(s, "d") {
		var days int
		if _, err := fmt.Sscanf(s, "%dd", &days); err != nil {
			return fmt.Errorf("ttl %q: %w", s, err)
		}
		*d = Duration(time.Duration(days) * 24 * time.Hour)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("ttl %q: %w", s, err)
	}
	*d = Duration(v)
	return nil
}

// Description is the ontology as clients read it (GET /v1/ontology and the
// MCP resource): every entity type and predicate, and what becomes of a
// predicate it does not define.
type Description struct {
	EntityTypes []TypeDescription      `json:"entity_types"`
	Predicates  []PredicateDescription `json:"predicates"`
	Unknown     string                 `json:"unknown_predicates" doc:"what becomes of a predicate not listed here"`
}

// TypeDescription describes an entity type.
type TypeDescription struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	TTL         *string `json:"ttl" doc:"how long facts about such entities stay in recall (e.g. 90d); null: forever"`
}

// PredicateDescription describes a predicate.
type PredicateDescription struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Cardinality Cardinality `json:"cardinality" doc:"one: a new value ends the current one; many: values coexist"`
	Synonyms    []string    `json:"synonyms" doc:"predicates written to mean this one"`
	Inverse     string      `json:"inverse,omitempty"`
	Symmetric   bool        `json:"symmetric"`
	Decision    bool        `json:"decision" doc:"its facts record decisions (with attributes.reason)"`
	Reverses    []string    `json:"reverses" doc:"predicates whose facts (same subject and object) a fact of this one ends"`
	TTL         *string     `json:"ttl" doc:"how long its facts stay in recall (e.g. 90d); null: forever"`
}

// Describe returns the ontology as clients read it.
func (o *Ontology) Describe() Description {
	d := Description{
		EntityTypes: make([]TypeDescription, 0, len(o.EntityTypes)),
		Predicates:  make([]PredicateDescription, 0, len(o.Predicates)),
		Unknown: fmt.Sprintf("allowed, with cardinality %q unless a fact's cardinality hint says otherwise (the first hint for a predicate is kept for the scope); "+
			"POST /v1/facts warns when it applies this default, and names the values still current when a write leaves several current", Many),
	}
	for _, t := range o.EntityTypes {
		d.EntityTypes = append(d.EntityTypes, TypeDescription{Name: t.Name, Description: t.Description, TTL: t.TTL.text()})
	}
	for _, p := range o.Predicates {
		d.Predicates = append(d.Predicates, PredicateDescription{
			Name: p.Name, Description: p.Description, Cardinality: p.Cardinality, Synonyms: nonNil(p.Synonyms),
			Inverse: p.Inverse, Symmetric: p.Symmetric, Decision: p.Decision, Reverses: nonNil(p.Reverses), TTL: p.TTL.text(),
		})
	}
	return d
}

// text writes d as the YAML reads it ("90d", "12h0m0s"); nil for none.
func (d Duration) text() *string {
	if d <= 0 {
		return nil
	}
	s := time.Duration(d).String()
	if day := 24 * time.Hour; time.Duration(d)%day == 0 {
		s = fmt.Sprintf("%dd", time.Duration(d)/day)
	}
	return &s
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}
