package client

import (
	"context"
	"net/http"
	"time"

	"github.com/graphmem/graphmem/api/wire"
)

// FindEntities finds entities by name (GET /v1/entities): exact matches,
// then aliases, then fuzzy ones, at most limit (0: the server's default).
func (c *Client) FindEntities(ctx context.Context, name string, limit int) ([]wire.EntityMatch, error) {
	var out wire.EntityMatchList
	_, err := c.call(ctx, http.MethodGet, params{}.str("name", name).int("limit", limit).path("/v1/entities"), nil, &out)
	return out.Items, err
}

// Entity returns an entity, by id, name or alias, with the facts about it
// valid now (GET /v1/entities/{id}). Returns ENOTFOUND, or ECONFLICT for a
// name several entities share (the message lists their ids).
func (c *Client) Entity(ctx context.Context, id string) (wire.EntityDetail, error) {
	var out wire.EntityDetail
	_, err := c.call(ctx, http.MethodGet, "/v1/entities/"+ref(id), nil, &out)
	return out, err
}

// TimelineQuery narrows a timeline.
type TimelineQuery struct {
	Predicate string
	// KnownAt shows what graphmem believed then (zero: now).
	KnownAt time.Time
	// Limit is the page size (0: every fact at once); Cursor the
	// NextCursor of the page before.
	Limit  int
	Cursor string
}

// Timeline returns an entity, by id, name or alias, with every fact of it
// over time in valid-time order (GET /v1/entities/{id}/timeline). Errors as
// Entity.
func (c *Client) Timeline(ctx context.Context, id string, q TimelineQuery) (wire.Timeline, error) {
	p := params{}.str("predicate", q.Predicate).time("known_at", q.KnownAt).int("limit", q.Limit).str("cursor", q.Cursor)
	var out wire.Timeline
	_, err := c.call(ctx, http.MethodGet, p.path("/v1/entities/"+ref(id)+"/timeline"), nil, &out)
	return out, err
}

// GraphQuery bounds the graph around an entity.
type GraphQuery struct {
	// AsOf is the valid time (zero: now); later facts are left out.
	AsOf time.Time
	// Depth is the hops from the entity, 1 or 2 (0: 2).
	Depth int
	// Limit is the most entities returned, the centre included (0: the
	// server's default).
	Limit int
}

// EntityGraph returns the graph around an entity (GET
// /v1/entities/{id}/graph): its relationships and its neighbours', and its
// literal values. Errors as Entity.
func (c *Client) EntityGraph(ctx context.Context, id string, q GraphQuery) (wire.EntityGraph, error) {
	p := params{}.time("as_of", q.AsOf).int("depth", q.Depth).int("limit", q.Limit)
	var out wire.EntityGraph
	_, err := c.call(ctx, http.MethodGet, p.path("/v1/entities/"+ref(id)+"/graph"), nil, &out)
	return out, err
}
