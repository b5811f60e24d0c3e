package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/graphmem/graphmem/embed"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/vector"
)

// newEmbedder returns nil when no embedding model is configured: search
// then ranks by BM25, links and the graph alone.
func newEmbedder(cfg Config) (*embed.Client, string, error) {
	if cfg.EmbedBaseURL == "" || cfg.EmbedModel == "" {
		return nil, "", nil
	}
	var inputType bool
	switch cfg.EmbedType {
	case "", "off":
	case "on":
		inputType = true
	default:
		return nil, "", fmt.Errorf("embed_input_type: must be on or off, got %q", cfg.EmbedType)
	}
	c, err := embed.New(embed.Config{BaseURL: cfg.EmbedBaseURL, Model: cfg.EmbedModel, APIKey: cfg.EmbedAPIKey,
		QueryPrefix: cfg.EmbedQuery, PassagePrefix: cfg.EmbedPassage, InputType: inputType})
	if err != nil {
		return nil, "", err
	}
	// Vectors made another way are not comparable: the index file keeps
	// this and is discarded when it changes.
	identity := fmt.Sprintf("%s|%q|%q|%v", cfg.EmbedModel, cfg.EmbedQuery, cfg.EmbedPassage, inputType)
	return c, identity, nil
}

// openVectors opens the vector index of the data folder when embeddings
// are configured (nil otherwise) and says in the log which it is. It does
// not catch up here: embedding is slow, the follower does it in the
// background while the server answers from what is indexed.
func openVectors(cfg Config, log *slog.Logger) (*vector.Index, error) {
	emb, identity, err := newEmbedder(cfg)
	if err != nil {
		return nil, fmt.Errorf("embedding model: %w", err)
	}
	if emb == nil {
		log.Info("embeddings are off: no model is configured (GRAPHMEM_EMBED_BASE_URL, GRAPHMEM_EMBED_MODEL); " +
			"search ranks by BM25, linked entities and predicates and the graph")
		return nil, nil
	}
	x, err := vector.Open(filepath.Join(cfg.Data, "vectors"), emb, identity)
	if err != nil {
		return nil, err
	}
	log.Info("embeddings are on", "model", cfg.EmbedModel, "base_url", cfg.EmbedBaseURL, "vectors", x.Len())
	return x, nil
}

// followVectors keeps the vector index following the store until ctx
// ends; an embedder that is down is retried at each tick.
func followVectors(ctx context.Context, x *vector.Index, store graph.Store, log *slog.Logger) {
	x.Follow(ctx, store, followInterval, func(err error) { log.Warn("vector index sync failed", "err", err) })
}
