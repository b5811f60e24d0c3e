package neo4j

import (
	"context"
	"fmt"
	"time"

	neo "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/graphmem/graphmem/cypher"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

var (
	stmtRawFacts       = cypher.MustRead("bench_raw_facts.cypher")
	stmtRawFactsDelete = cypher.MustRead("bench_raw_facts_delete.cypher")
)

// RawFactsPerSec is the ingest baseline of `graphmem bench`: what Neo4j
// allows on this server and driver. It writes n fact nodes — copies of the
// facts stored in scope, every property as PutFacts stores it, taken in
// turn as often as needed, each under an id of its own — with their
// SUBJECT_OF and OBJECT links to the scope's entities, in UNWIND batches of
// batch rows, one write transaction each (bench_raw_facts.cypher). Only
// those transactions are timed. The nodes are deleted afterwards. Returns
// fact nodes per second.
func (s *Store) RawFactsPerSec(ctx context.Context, scope entity.Scope, n, batch int) (float64, error) {
	const op = "neo4j.RawFactsPerSec"
	if n < 1 || batch < 1 {
		return 0, invalid(op, "n and batch must be positive")
	}
	if err := s.autoCommit(ctx, neo.AccessModeWrite, stmtRawFactsDelete); err != nil {
		return 0, translate(op, err)
	}
	var (
		spent  time.Duration
		cursor string
		round  int
	)
	for written := 0; written < n; {
		var fs []entity.Fact
		err := s.View(ctx, scope, func(tx graph.Tx) error {
			var err error
			fs, cursor, err = tx.Facts(graph.FactFilter{Cursor: cursor, Limit: min(batch, n-written)})
			return err
		})
		if err != nil {
			return 0, err
		}
		if len(fs) == 0 {
			return 0, &entity.Error{Code: entity.ENOTFOUND, Op: op, Message: fmt.Sprintf("scope %q holds no facts", scope)}
		}
		rows := make([]map[string]any, len(fs))
		for i := range fs {
			p, err := factProps(&fs[i])
			if err != nil {
				return 0, internal(op, err)
			}
			p["id"] = fmt.Sprintf("%s.%d", fs[i].ID, round)
			rows[i] = p
		}
		start := time.Now()
		if err := s.writeRaw(ctx, scope, rows); err != nil {
			return 0, translate(op, err)
		}
		spent += time.Since(start)
		written += len(rows)
		if cursor == "" {
			round++
		}
	}
	if err := s.autoCommit(ctx, neo.AccessModeWrite, stmtRawFactsDelete); err != nil {
		return 0, translate(op, err)
	}
	return float64(n) / spent.Seconds(), nil
}

// writeRaw runs bench_raw_facts.cypher on rows in a write transaction.
func (s *Store) writeRaw(ctx context.Context, scope entity.Scope, rows []map[string]any) error {
	sess := s.session(ctx, neo.AccessModeWrite)
	defer sess.Close(ctx)
	_, err := sess.ExecuteWrite(ctx, func(tx neo.ManagedTransaction) (any, error) {
		res, err := tx.Run(ctx, stmtRawFacts, map[string]any{"rows": rows, "scope": scope})
		if err != nil {
			return nil, err
		}
		return res.Consume(ctx)
	})
	return err
}
