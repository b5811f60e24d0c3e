package recall_test

import (
	"testing"

	"github.com/graphmem/graphmem/memory"
)

// A forget or purge by query acts only on what resolves: a name memory
// does not know, or knows only as a near spelling or a shared word, selects
// nothing and is reported with its candidates (the probe's cases).
func TestFindFacts_NoGuess(t *testing.T) {
	e := newEnv(t)
	e.add(t, "u",
		memory.FactInput{Subject: "Bob Lindqvist", SubjectType: "person", SubjectAliases: []string{"Bob"}, Predicate: "works_at", Object: "Acme"},
		memory.FactInput{Subject: "Bob Lindqvist", SubjectType: "person", Predicate: "lives_in", Object: "Uppsala"},
		memory.FactInput{Subject: "gateway-service", SubjectType: "service", Predicate: "port", Value: "8443"},
		memory.FactInput{Subject: "production database", SubjectType: "database", Predicate: "port", Value: "3307"},
		memory.FactInput{Subject: "payments-db", SubjectType: "database", Predicate: "runs_on", Value: "PostgreSQL 16"},
		memory.FactInput{Subject: "bob-service", SubjectType: "service", Predicate: "uses_database", Object: "bob-secret-db", ObjectType: "database"},
		memory.FactInput{Subject: "bob-secret-db", SubjectType: "database", Predicate: "port", Value: "5433"},
	)
	for _, q := range []string{"Bob Marley", "bob marley", "zebra-gateway", "staging database", "payments-api", "alice-db",
		"alice-secret-db", "Bob Lindqvst"} {
		sel, err := e.engine.FindFacts(ctx, "u", q, 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(sel.FactIDs) > 0 || len(sel.Unresolved) == 0 {
			t.Errorf("%q: selected %d facts, unresolved %+v; want nothing selected and the name unresolved", q, len(sel.FactIDs), sel.Unresolved)
		}
	}
	sel, err := e.engine.FindFacts(ctx, "u", "Bob Lindqvist", 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.FactIDs) != 2 || len(sel.Unresolved)+len(sel.Ambiguous) != 0 || len(sel.Resolved) != 1 || sel.Resolved[0].Entity != "Bob Lindqvist" {
		t.Errorf("Bob Lindqvist: %+v, want his two facts, resolved to him", sel)
	}
	// A fact of a named entity is selected, not another's sharing words.
	sel, err = e.engine.FindFacts(ctx, "u", "bob-secret-db port", 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.FactIDs) != 1 {
		t.Errorf("bob-secret-db port: selected %d facts, want its port only", len(sel.FactIDs))
	}
}

// A scope that holds only a near name refuses the query too.
func TestFindFacts_NearNameOnly(t *testing.T) {
	e := newEnv(t)
	e.add(t, "u", memory.FactInput{Subject: "payments-db", SubjectType: "database", Predicate: "port", Value: "5432"})
	sel, err := e.engine.FindFacts(ctx, "u", "payments-api", 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.FactIDs) > 0 || len(sel.Unresolved) != 1 {
		t.Fatalf("payments-api: %+v, want nothing selected and the name unresolved", sel)
	}
}
