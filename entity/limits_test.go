package entity_test

import (
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
)

func TestCheckAttributes(t *testing.T) {
	big := strings.Repeat("x", entity.MaxAttributeBytes)
	many := map[string]any{}
	for i := range entity.MaxAttributes + 1 {
		many[strings.Repeat("k", i+1)] = i
	}
	tests := []struct {
		name  string
		attrs map[string]any
		field string // "" for no error
	}{
		{"OK", map[string]any{"reason": "cheaper", "alternatives": []any{"a", "b"}}, ""},
		{"ValueTooLarge", map[string]any{"reason": big}, "facts[0].attributes.reason"},
		{"NestedTooLarge", map[string]any{"why": map[string]any{"deep": []any{big}}}, "facts[0].attributes.why"},
		{"TooMany", many, "facts[0].attributes"},
		{"LongName", map[string]any{strings.Repeat("n", entity.MaxAttributeKeyLen+1): 1}, "facts[0].attributes." + strings.Repeat("n", entity.MaxAttributeKeyLen+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fe := entity.FieldErrors{}
			entity.CheckAttributes(fe, "facts[0].attributes", tt.attrs)
			if tt.field == "" {
				if len(fe) != 0 {
					t.Errorf("errors %v", fe)
				}
				return
			}
			if _, ok := fe[tt.field]; !ok || len(fe) != 1 {
				t.Errorf("errors %v, want one on %s", fe, tt.field)
			}
		})
	}
	// A stored fact too: import and every store write go through Validate.
	f := entity.Fact{Subject: "a", Predicate: "p", Value: "v", Attributes: map[string]any{"reason": big}}
	if err := f.Validate(); err == nil || !strings.Contains(err.Error(), "attributes.reason") {
		t.Errorf("Validate = %v", err)
	}
}

// TestStatedIntervalProblem: a statement's end comes after its start, while
// a stored fact may hold the empty interval a same-instant tie leaves.
func TestStatedIntervalProblem(t *testing.T) {
	at := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	later := at.Add(time.Hour)
	for _, tc := range []struct {
		name     string
		from, to *time.Time
		bad      bool
	}{
		{"open", &at, nil, false},
		{"end only", nil, &at, false},
		{"after", &at, &later, false},
		{"empty", &at, &at, true},
		{"backwards", &later, &at, true},
	} {
		if got := entity.StatedIntervalProblem(tc.from, tc.to); (got != "") != tc.bad {
			t.Errorf("%s: %q", tc.name, got)
		}
	}
	stored := entity.Fact{ID: "f", SubjectID: "s", Predicate: "port", Value: "1", ValidFrom: at, ValidTo: &at}
	if err := stored.Validate(); err != nil {
		t.Errorf("a stored empty interval is legal: %v", err)
	}
}
