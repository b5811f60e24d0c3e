package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/search"
)

// rawBleveBatch is the batch size of the bare Bleve baseline, the page
// size of the index follower.
const rawBleveBatch = 1000

// BareBleve is the second index baseline: the records of scope — every fact,
// entity and episode — indexed as bare documents (their text with Bleve's
// standard analyzer, type and scope as keywords, nothing stored) into a
// fresh Bleve index in dir, rawBleveBatch documents per batch. The records
// are read before the clock starts; it returns documents per second.
func BareBleve(ctx context.Context, store graph.Store, scope entity.Scope, dir string) (float64, error) {
	type doc struct {
		Type  string `json:"type"`
		Scope string `json:"scope"`
		ID    string `json:"-"`
		Text  string `json:"text"`
	}
	var docs []doc
	err := store.View(ctx, scope, func(tx graph.Tx) error {
		for cursor := ""; ; {
			fs, next, err := tx.Facts(graph.FactFilter{Cursor: cursor, Limit: 1000})
			if err != nil {
				return err
			}
			for i := range fs {
				docs = append(docs, doc{search.TypeFact, scope, fs[i].ID, search.FactText(&fs[i])})
			}
			if cursor = next; cursor == "" {
				break
			}
		}
		for cursor := ""; ; {
			es, next, err := tx.Entities(cursor, 1000)
			if err != nil {
				return err
			}
			for _, e := range es {
				names := append([]string{e.Name}, e.Aliases...)
				docs = append(docs, doc{search.TypeEntity, scope, e.ID, strings.Join(names, "\n") + "\n" + e.Summary})
			}
			if cursor = next; cursor == "" {
				break
			}
		}
		for cursor := ""; ; {
			es, next, err := tx.Episodes("", cursor, 1000)
			if err != nil {
				return err
			}
			for i := range es {
				docs = append(docs, doc{search.TypeEpisode, scope, es[i].ID, es[i].Said()})
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
	bi, err := bleve.New(dir, rawMapping())
	if err != nil {
		return 0, err
	}
	defer bi.Close()
	start := time.Now()
	for i := 0; i < len(docs); i += rawBleveBatch {
		b := bi.NewBatch()
		for _, d := range docs[i:min(i+rawBleveBatch, len(docs))] {
			if err := b.Index(d.Type+"|"+d.ID, d); err != nil {
				return 0, err
			}
		}
		if err := bi.Batch(b); err != nil {
			return 0, fmt.Errorf("raw bleve batch: %w", err)
		}
	}
	return float64(len(docs)) / time.Since(start).Seconds(), nil
}

// rawMapping indexes a bare document: text analysed by Bleve's standard
// analyzer, type and scope as keywords; nothing stored, no composite field.
func rawMapping() mapping.IndexMapping {
	m := bleve.NewIndexMapping()
	m.IndexDynamic, m.StoreDynamic, m.DocValuesDynamic = false, false, false
	d := bleve.NewDocumentStaticMapping()
	text := bleve.NewTextFieldMapping()
	text.Analyzer = standard.Name
	text.Store, text.IncludeTermVectors, text.IncludeInAll, text.DocValues = false, false, false, false
	d.AddFieldMappingsAt("text", text)
	for _, f := range []string{"type", "scope"} {
		k := bleve.NewKeywordFieldMapping()
		k.Store, k.IncludeTermVectors, k.IncludeInAll, k.DocValues = false, false, false, false
		d.AddFieldMappingsAt(f, k)
	}
	m.DefaultMapping = d
	return m
}
