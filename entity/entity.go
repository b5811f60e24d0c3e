package entity

import (
	"maps"
	"regexp"
	"slices"
	"time"
)

// Scope names a tenant or namespace ("user:alice", "repo:trip-miniapp").
// Every record belongs to exactly one scope, derived from the caller's
// credentials on the server — never from a request body or a model.
type Scope = string

// DefaultScope is the scope of development mode.
const DefaultScope Scope = "default"

// ScopePattern is the shape of a scope name.
const ScopePattern = `^[A-Za-z0-9][A-Za-z0-9:_\-./@]{0,127}$`

var scopeRE = regexp.MustCompile(ScopePattern)

// ValidScope reports whether s is a well-formed scope name.
func ValidScope(s string) bool { return scopeRE.MatchString(s) }

// Entity is a person, project, service, place, decision holder… that facts
// are about.
type Entity struct {
	ID         string         `json:"id"`
	Scope      Scope          `json:"scope"`
	Name       string         `json:"name"`
	Type       string         `json:"type,omitempty"`
	Aliases    []string       `json:"aliases,omitempty"`
	Summary    string         `json:"summary,omitempty"`
	Attributes map[string]any `json:"attributes,omitempty"`
	CreatedAt  time.Time      `json:"created_at"`
	UpdatedAt  time.Time      `json:"updated_at"`
	// ForgottenAt is set when the entity was forgotten: it leaves recall
	// with all its facts.
	ForgottenAt *time.Time `json:"forgotten_at,omitempty"`
	Seq         uint64     `json:"seq,omitempty"`
}

// Clone returns a copy of e that shares no slice or map with it (an
// attribute's own value excepted).
func (e Entity) Clone() Entity {
	e.Aliases = slices.Clone(e.Aliases)
	e.Attributes = maps.Clone(e.Attributes)
	return e
}

// Keys returns the normalised lookup keys of e: its name and every alias.
func (e *Entity) Keys() []string {
	keys := []string{Normalize(e.Name)}
	for _, a := range e.Aliases {
		k := Normalize(a)
		if k != "" && !contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// AddAlias adds name as an alias unless e is already known by it.
func (e *Entity) AddAlias(name string) bool {
	k := Normalize(name)
	if k == "" || contains(e.Keys(), k) {
		return false
	}
	e.Aliases = append(e.Aliases, name)
	return true
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
