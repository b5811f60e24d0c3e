package neo4j

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	neo "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/graphmem/graphmem/cypher"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// planText renders a profiled plan, one operator a line.
func planText(p neo.ProfiledPlan, depth int) string {
	details, _ := p.Arguments()["Details"].(string)
	s := fmt.Sprintf("\n%s%s rows=%d hits=%d %s", strings.Repeat("  ", depth), p.Operator(), p.Records(), p.DbHits(), details)
	for _, c := range p.Children() {
		s += planText(c, depth+1)
	}
	return s
}

// Only the handful of Scope nodes may be found by scanning their label.
var badScan = regexp.MustCompile(`(AllNodesScan|NodeByLabelScan@\S+ .*\b\w+:(Entity|Fact|Episode|Tombstone|Meta|Name|Deleted|Counter)\b)`)

// keepPlan is the option of the statements whose plan Neo4j keeps (see
// package cypher).
const keepPlan = "CYPHER replan=skip"

// A statement whose plan is kept (CYPHER replan=skip, see package cypher)
// must not scan a record label's index either, nor seek one by scope alone.
var badKeptScan = regexp.MustCompile(`(NodeIndexScan@\S+ .*\b\w+:(Entity|Fact|Episode|Tombstone|Meta|Name|Deleted|Counter)\b|IndexSeek\S*@\S+ .*WHERE scope = \$scope AND \w+ IS NOT NULL(\s|,|$))`)

// TestStatementsSeekIndexes profiles every statement, in a transaction that
// is rolled back, on a store with some data, and fails on any full scan of
// a record label: one would make that call's cost grow with the store. The
// statements whose plan Neo4j keeps are profiled on the empty store first
// as well, where such a plan may be made. Each is planned anew for the
// store it runs on (replan=force in place of replan=skip).
func TestStatementsSeekIndexes(t *testing.T) {
	uri := os.Getenv("GRAPHMEM_NEO4J_URI")
	if uri == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("GRAPHMEM_NEO4J_URI is unset in CI")
		}
		t.Skip("GRAPHMEM_NEO4J_URI is unset: start Neo4j with scripts/neo4j-local.sh")
	}
	ctx := context.Background()
	s, err := Open(ctx, Config{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Wipe(ctx); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	stmts := map[string]string{}
	names, err := fs.Glob(cypher.FS, "*.cypher")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		switch {
		case n == "schema.cypher", n == "wipe.cypher", n == "bench_bare_create.cypher", n == "bench_raw_facts_delete.cypher":
			continue
		}
		stmts[n] = cypher.MustRead(n)
	}
	base := map[string]any{
		"scope": "s", "id": "e001", "key": "k", "value": "", "byValue": false, "subject": "e001", "predicate": "likes", "object": "",
		"after": "", "limit": 10, "bare": false, "hub": 0, "status": entity.EpisodeQueued, "now": t0, "asOf": t0,
		"ids": []string{"e001", "e002"}, "prefix": "entity 1", "prefixes": []string{"entity 1", "en"}, "fingerprints": []string{"x"}, "keys": []string{"entity 1"},
		"rows": []map[string]any{{"props": map[string]any{"id": "new", "subject_id": "e001", "predicate": "likes", "name": "new"},
			"keys": []string{"new"}}},
		"props":   map[string]any{"id": "new", "fingerprint": "new", "status": entity.EpisodeQueued, "idempotency_key": "k"},
		"counter": counterName("s"), "cap": int64(5), "over": int64(6), "seq": int64(1 << 40), "head": int64(1 << 40), "above": int64(0), "n": int64(10),
	}
	override := map[string]map[string]any{
		"fact_chains.cypher":              {"keys": []map[string]any{{"subject": "e001", "predicate": "likes"}}},
		"facts_by_value.cypher":           {"value": "1", "byValue": true},
		"facts_by_object.cypher":          {"object": "e002"},
		"bench_raw_facts.cypher":          {"rows": []map[string]any{{"id": "new", "subject_id": "e001", "predicate": "likes", "object_id": "e002"}}},
		"facts_and_entities_by_id.cypher": {"facts": []string{"f001", "g002"}, "entities": []string{"e001"}},
		"facts_write.cypher": {
			"created":  []map[string]any{{"props": map[string]any{"id": "new", "scope": "s", "subject_id": "e001", "predicate": "likes", "object_id": "e002"}}},
			"replaced": []map[string]any{{"id": "f001", "props": map[string]any{"text": "changed"}}},
		},
	}
	profile := func(name, stmt, store string) {
		params := map[string]any{}
		for k, v := range base {
			params[k] = v
		}
		for k, v := range override[name] {
			params[k] = v
		}
		keeps := strings.Contains(stmt, keepPlan)
		stmt = strings.Replace(stmt, keepPlan, "CYPHER replan=force", 1)
		var plan string
		errRollback := errors.New("rollback")
		sess := s.session(ctx, neo.AccessModeWrite)
		_, err := sess.ExecuteWrite(ctx, func(tx neo.ManagedTransaction) (any, error) {
			res, err := tx.Run(ctx, "PROFILE "+stmt, params)
			if err != nil {
				return nil, err
			}
			sum, err := res.Consume(ctx)
			if err != nil {
				return nil, err
			}
			plan = planText(sum.Profile(), 0)
			return nil, errRollback
		})
		sess.Close(ctx)
		switch {
		case !errors.Is(err, errRollback):
			t.Errorf("%s, %s: %v", name, store, err)
		case badScan.MatchString(plan):
			t.Errorf("%s scans a record label, %s:%s", name, store, plan)
		case keeps && badKeptScan.MatchString(plan):
			t.Errorf("%s keeps its plan and scans an index, %s: %s in%s", name, store, badKeptScan.FindString(plan), plan)
		}
	}
	// Index statistics as a new database has them: sampled on the empty
	// store, not left from the data of earlier tests.
	if err := s.autoCommit(ctx, neo.AccessModeWrite, "CALL db.prepareForReplanning(60)"); err != nil {
		t.Fatal(err)
	}
	kept := 0
	for name, stmt := range stmts {
		if strings.Contains(stmt, keepPlan) {
			kept++
			profile(name, stmt, "on the empty store")
		}
	}
	if kept < 12 {
		t.Errorf("%d statements keep their plan, want the write path's 12 at least", kept)
	}

	err = s.Update(ctx, "s", func(tx graph.Tx) error {
		var es []entity.Entity
		var fs []entity.Fact
		for i := range 200 {
			es = append(es, entity.Entity{ID: fmt.Sprintf("e%03d", i), Name: fmt.Sprintf("entity %d", i)})
			fs = append(fs, entity.Fact{ID: fmt.Sprintf("f%03d", i), SubjectID: fmt.Sprintf("e%03d", i%20),
				Predicate: []string{"likes", "knows"}[i%2], ObjectID: fmt.Sprintf("e%03d", (i+1)%200), ValidFrom: t0})
			fs = append(fs, entity.Fact{ID: fmt.Sprintf("g%03d", i), SubjectID: fmt.Sprintf("e%03d", i%20),
				Predicate: "port", Value: fmt.Sprint(i), ValidFrom: t0})
		}
		if err := tx.PutEntities(es); err != nil {
			return err
		}
		return tx.PutFacts(fs)
	})
	if err != nil {
		t.Fatal(err)
	}

	for name, stmt := range stmts {
		profile(name, stmt, "with data")
	}
}
