package cypher_test

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/cypher"
)

func TestStatementsSchema(t *testing.T) {
	stmts, err := cypher.Statements("schema.cypher")
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) < 10 {
		t.Fatalf("schema.cypher: %d statements, want the constraints and indexes", len(stmts))
	}
	for i, s := range stmts {
		if strings.Contains(s, ";") || strings.Contains(s, "//") {
			t.Errorf("statement %d not split cleanly: %q", i, s)
		}
		if strings.HasPrefix(s, "CREATE") && !strings.Contains(s, "IF NOT EXISTS") {
			t.Errorf("statement %d is not idempotent: %q", i, s)
		}
	}
}

func TestEveryFileIsOneStatementOrSchema(t *testing.T) {
	names, err := fs.Glob(cypher.FS, "*.cypher")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no statements embedded")
	}
	for _, name := range names {
		stmts, err := cypher.Statements(name)
		if err != nil {
			t.Fatal(err)
		}
		if name != "schema.cypher" && len(stmts) != 1 {
			t.Errorf("%s: %d statements, want 1", name, len(stmts))
		}
		if cypher.MustRead(name) == "" {
			t.Errorf("%s is empty", name)
		}
	}
}

func TestMustReadPanicsOnMissingFile(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustRead of a missing file did not panic")
		}
	}()
	cypher.MustRead("no_such_statement.cypher")
}
