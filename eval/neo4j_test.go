package eval_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/eval"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/neo4j"
)

// TestSameFiguresOnNeo4j: the catalog and LoCoMo's dev part give the same
// figures on Neo4j as on the embedded store — the recall a user gets does
// not depend on the store. Latencies (the *_ms fields) are left out. Skips
// without GRAPHMEM_NEO4J_URI; the Neo4j database is wiped.
func TestSameFiguresOnNeo4j(t *testing.T) {
	uri := os.Getenv("GRAPHMEM_NEO4J_URI")
	if uri == "" {
		t.Skip("GRAPHMEM_NEO4J_URI is unset: start Neo4j with scripts/neo4j-local.sh")
	}
	if testing.Short() {
		t.Skip("loads the catalog and three conversations twice")
	}
	ctx := context.Background()
	fresh := func(t *testing.T) graph.Store {
		s, err := neo4j.Open(ctx, neo4j.Config{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if err := s.Wipe(ctx); err != nil {
			t.Fatal(err)
		}
		return s
	}
	// both runs one evaluation on the embedded store (a nil store) and on
	// a fresh Neo4j, and compares their figures.
	both := func(t *testing.T, run func(graph.Store) (any, error)) {
		t.Helper()
		embedded, err := run(nil)
		if err != nil {
			t.Fatal(err)
		}
		onNeo4j, err := run(fresh(t))
		if err != nil {
			t.Fatal(err)
		}
		sameFigures(t, embedded, onNeo4j)
	}
	t.Run("catalog", func(t *testing.T) {
		both(t, func(s graph.Store) (any, error) {
			return eval.Catalog(ctx, eval.CatalogOptions{Seed: eval.ReportSeed, Questions: 100, Store: s})
		})
	})
	// The walk answers relational questions alike on both stores.
	t.Run("relational", func(t *testing.T) {
		both(t, func(s graph.Store) (any, error) {
			return eval.Catalog(ctx, eval.CatalogOptions{Seed: eval.ReportSeed, PathQuestions: 100, PathsOnly: true, Store: s})
		})
	})
	t.Run("locomo dev", func(t *testing.T) {
		dir := "../../shared/data/locomo"
		if _, err := os.Stat(dir); err != nil {
			t.Skipf("no LoCoMo data: %v", err)
		}
		both(t, func(s graph.Store) (any, error) {
			return eval.LoCoMo(ctx, eval.Options{DataDir: dir, Part: eval.PartDev, NoAblation: true, Store: s})
		})
	})
}

// sameFigures compares two reports as JSON without their latencies.
func sameFigures(t *testing.T, embedded, onNeo4j any) {
	t.Helper()
	a, b := figures(t, embedded), figures(t, onNeo4j)
	if !reflect.DeepEqual(a, b) {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		t.Errorf("figures differ\nembedded: %s\nneo4j:    %s", ja, jb)
	}
}

func figures(t *testing.T, report any) any {
	t.Helper()
	b, err := json.Marshal(report)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var drop func(any)
	drop = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if strings.HasSuffix(k, "_ms") {
					delete(x, k)
				} else {
					drop(e)
				}
			}
		case []any:
			for _, e := range x {
				drop(e)
			}
		}
	}
	drop(v)
	return v
}
