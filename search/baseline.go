package search

import (
	"context"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// IndexRaw is the baseline of Sync's throughput: it indexes the records of
// scope into a fresh index in dir as a bare Bleve program would — the very
// documents Sync writes for them, built before the clock starts, in
// batches of the size Sync applies — with no change feed, no read of the
// store per change and no digest. It returns documents per second.
func IndexRaw(ctx context.Context, store graph.Store, scope entity.Scope, dir string) (float64, error) {
	type doc struct {
		id  string
		doc map[string]any
	}
	var docs []doc
	now := time.Now()
	err := store.View(ctx, scope, func(tx graph.Tx) error {
		for cursor := ""; ; {
			fs, next, err := tx.Facts(graph.FactFilter{Cursor: cursor, Limit: syncPage})
			if err != nil {
				return err
			}
			for i := range fs {
				docs = append(docs, doc{docID(TypeFact, scope, fs[i].ID), factDoc(&fs[i], now)})
			}
			if cursor = next; cursor == "" {
				break
			}
		}
		for cursor := ""; ; {
			es, next, err := tx.Entities(cursor, syncPage)
			if err != nil {
				return err
			}
			for i := range es {
				docs = append(docs, doc{docID(TypeEntity, scope, es[i].ID), entityDoc(&es[i])})
			}
			if cursor = next; cursor == "" {
				break
			}
		}
		for cursor := ""; ; {
			es, next, err := tx.Episodes("", cursor, syncPage)
			if err != nil {
				return err
			}
			for i := range es {
				docs = append(docs, doc{docID(TypeEpisode, scope, es[i].ID), episodeDoc(&es[i])})
			}
			if cursor = next; cursor == "" {
				break
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, d := range docs {
		h, _, err := digest(d.doc)
		if err != nil {
			return 0, entity.Wrap(entity.EINTERNAL, "search.IndexRaw", err)
		}
		d.doc[fHash] = h
	}
	m, err := newMapping()
	if err != nil {
		return 0, entity.Wrap(entity.EINTERNAL, "search.IndexRaw", err)
	}
	bi, err := bleve.New(dir, m)
	if err != nil {
		return 0, entity.Wrap(entity.EINTERNAL, "search.IndexRaw", err)
	}
	defer bi.Close()
	start := time.Now()
	for i := 0; i < len(docs); i += syncPage {
		b := bi.NewBatch()
		for _, d := range docs[i:min(i+syncPage, len(docs))] {
			if err := b.Index(d.id, d.doc); err != nil {
				return 0, entity.Wrap(entity.EINTERNAL, "search.IndexRaw", err)
			}
		}
		if err := bi.Batch(b); err != nil {
			return 0, entity.Wrap(entity.EINTERNAL, "search.IndexRaw", err)
		}
	}
	return float64(len(docs)) / time.Since(start).Seconds(), nil
}
