package bolt_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/bolt"
)

// Example stores two entities and a fact in one transaction, finds the
// fact again through the object's alias, and reads the change feed a
// search index would follow.
func Example() {
	dir, err := os.MkdirTemp("", "graphmem-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	store, err := bolt.Open(filepath.Join(dir, "graph.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	ctx := context.Background()
	since := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	err = store.Update(ctx, "user:alice", func(tx graph.Tx) error {
		err := tx.PutEntities([]entity.Entity{
			{ID: "e1", Name: "Alice", Type: "person"},
			{ID: "e2", Name: "Acme Corporation", Aliases: []string{"Acme"}, Type: "organization"},
		})
		if err != nil {
			return err
		}
		return tx.PutFacts([]entity.Fact{{
			ID: "f1", SubjectID: "e1", Subject: "Alice", Predicate: "works_at",
			ObjectID: "e2", Object: "Acme Corporation", Text: "Alice works at Acme",
			ValidFrom: since, RecordedAt: since, SourceKind: entity.UserExplicit,
			Confidence: 1, Importance: 6,
		}})
	})
	if err != nil {
		log.Fatal(err)
	}

	err = store.View(ctx, "user:alice", func(tx graph.Tx) error {
		found, err := tx.EntitiesByKey([]string{entity.Normalize("ACME")})
		if err != nil {
			return err
		}
		acme := found["acme"][0]
		facts, err := tx.FactsOf(acme.ID, 10)
		for _, f := range facts {
			fmt.Printf("%s (since %s)\n", f.Text, f.ValidFrom.Format(time.DateOnly))
		}
		return err
	})
	if err != nil {
		log.Fatal(err)
	}

	changes, err := store.Changes(ctx, 0, 10)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range changes {
		fmt.Println(c.Seq, c.Scope, c.Kind, c.ID)
	}
	// Output:
	// Alice works at Acme (since 2024-03-01)
	// 1 user:alice entity e1
	// 2 user:alice entity e2
	// 3 user:alice fact f1
}
