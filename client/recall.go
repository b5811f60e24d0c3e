package client

import (
	"context"
	"net/http"
	"time"

	"github.com/graphmem/graphmem/api/wire"
)

// SearchRequest is the body of POST /v1/search; zero fields take the
// server's defaults.
type SearchRequest struct {
	Query string `json:"query"`
	// Limit is the most hits, 1 to entity.MaxSearchLimit (0: 10).
	Limit int `json:"limit,omitzero"`
	// AsOf is the valid time, KnownAt the transaction time (zero: now).
	AsOf           time.Time `json:"as_of,omitzero"`
	KnownAt        time.Time `json:"known_at,omitzero"`
	IncludeHistory bool      `json:"include_history,omitzero"`
	// Types keeps only these kinds of hits: fact, entity, episode.
	Types []string `json:"types,omitempty"`
}

// Search ranks facts, entities and episodes for a query (POST /v1/search),
// each hit with the explanation of its score.
func (c *Client) Search(ctx context.Context, req SearchRequest) (wire.SearchResponse, error) {
	var out wire.SearchResponse
	_, err := c.call(ctx, http.MethodPost, "/v1/search", req, &out)
	return out, err
}

// ContextRequest is the body of POST /v1/context; zero fields take the
// server's defaults.
type ContextRequest struct {
	Query   string    `json:"query"`
	AsOf    time.Time `json:"as_of,omitzero"`
	KnownAt time.Time `json:"known_at,omitzero"`
	// ReferenceTime is when the question is asked: relative times in it
	// are read against it (zero: AsOf, else now).
	ReferenceTime time.Time `json:"reference_time,omitzero"`
	// MaxTokens is the budget of the block, entity.MinMaxTokens to
	// entity.MaxMaxTokens (0: entity.DefaultMaxTokens).
	MaxTokens int `json:"max_tokens,omitzero"`
	// Mode is auto (""), current or history; Format text (""), markdown
	// or json.
	Mode   string `json:"mode,omitempty"`
	Format string `json:"format,omitempty"`
	// Focus names the entities the answer is about.
	Focus []string `json:"focus,omitempty"`
}

// Context returns what to put in a prompt for a question (POST
// /v1/context): dated, sourced facts packed into MaxTokens, with the items
// in it for citation.
func (c *Client) Context(ctx context.Context, req ContextRequest) (wire.ContextResponse, error) {
	var out wire.ContextResponse
	_, err := c.call(ctx, http.MethodPost, "/v1/context", req, &out)
	return out, err
}

// ForgetRequest is the body of POST /v1/forget: give at least one of
// FactIDs, Entity, Query and EpisodeID.
type ForgetRequest struct {
	FactIDs []string `json:"fact_ids,omitempty"`
	// Entity is an id or a name: the entity goes with all its facts.
	Entity string `json:"entity,omitempty"`
	// Query selects the facts search finds for it, at most Limit.
	Query     string `json:"query,omitempty"`
	EpisodeID string `json:"episode_id,omitempty"`
	// Mode is wire.ModeForget ("") or wire.ModePurge, which deletes
	// the facts with their source episodes.
	Mode   string `json:"mode,omitempty"`
	Reason string `json:"reason,omitempty"`
	// DryRun lists what would go, removing nothing.
	DryRun bool `json:"dry_run,omitzero"`
	Limit  int  `json:"limit,omitzero"`
}

// Forget forgets facts (they leave every recall path, and tombstones keep
// them from coming back) or purges them (POST /v1/forget).
func (c *Client) Forget(ctx context.Context, req ForgetRequest) (wire.ForgetResult, error) {
	var out wire.ForgetResult
	_, err := c.call(ctx, http.MethodPost, "/v1/forget", req, &out)
	return out, err
}

// Audit returns the scope's forget and purge records, most recent first,
// at most limit (0: the server's default) (GET /v1/audit).
func (c *Client) Audit(ctx context.Context, limit int) ([]wire.AuditRecord, error) {
	var out wire.AuditList
	_, err := c.call(ctx, http.MethodGet, params{}.int("limit", limit).path("/v1/audit"), nil, &out)
	return out.Items, err
}
