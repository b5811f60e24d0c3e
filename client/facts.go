package client

import (
	"context"
	"iter"
	"net/http"
	"time"

	"github.com/graphmem/graphmem/api/wire"
)

// AddFacts applies structured facts (POST /v1/facts, at most
// entity.MaxBatch at once): the temporal rules decide what each one does,
// and the results say so, one per fact, in order. A refused batch writes
// nothing and is EINVALID naming each field by its path
// ("facts[2].valid_to").
func (c *Client) AddFacts(ctx context.Context, facts ...wire.FactInput) ([]wire.FactResult, error) {
	body := struct {
		Facts []wire.FactInput `json:"facts"`
	}{facts}
	var out wire.FactsResponse
	_, err := c.call(ctx, http.MethodPost, "/v1/facts", body, &out)
	return out.Results, err
}

// FactQuery selects facts (GET /v1/facts). Subject and Object are names,
// resolved exactly or by alias; an Object that names no entity is matched
// as a literal value.
type FactQuery struct {
	Subject   string
	Predicate string
	Object    string
	// AsOf selects facts valid at that instant (zero: now) unless
	// IncludeHistory is set.
	AsOf time.Time
	// KnownAt shows what graphmem believed at that instant (zero: now).
	KnownAt        time.Time
	IncludeHistory bool
	// Limit is the page size (0: the server's default), Cursor the
	// NextCursor of the page before.
	Limit  int
	Cursor string
}

// FactsPage returns one page of the facts matching q (GET /v1/facts): those
// valid at q.AsOf (zero: now) as known at q.KnownAt, or their whole
// history. q.Limit is the page size (0: the server's default) and q.Cursor
// the NextCursor of the page before.
func (c *Client) FactsPage(ctx context.Context, q FactQuery) (wire.FactList, error) {
	p := params{}.str("subject", q.Subject).str("predicate", q.Predicate).str("object", q.Object).
		time("as_of", q.AsOf).time("known_at", q.KnownAt).bool("include_history", q.IncludeHistory).
		int("limit", q.Limit).str("cursor", q.Cursor)
	var out wire.FactList
	_, err := c.call(ctx, http.MethodGet, p.path("/v1/facts"), nil, &out)
	return out, err
}

// Facts yields every fact matching q, page by page (q.Limit is the page
// size, q.Cursor where to start).
func (c *Client) Facts(ctx context.Context, q FactQuery) iter.Seq2[wire.Fact, error] {
	return pages(func(cursor string) ([]wire.Fact, *string, error) {
		if cursor != "" {
			q.Cursor = cursor
		}
		l, err := c.FactsPage(ctx, q)
		return l.Items, l.NextCursor, err
	})
}

// Fact returns one fact with its supersession chain and the episodes it
// came from (GET /v1/facts/{id}), as graphmem believed it at knownAt
// (zero: now). Returns ENOTFOUND for an unknown id, and for a fact
// retracted by knownAt.
func (c *Client) Fact(ctx context.Context, id string, knownAt time.Time) (wire.FactDetail, error) {
	var out wire.FactDetail
	_, err := c.call(ctx, http.MethodGet, params{}.time("known_at", knownAt).path("/v1/facts/"+ref(id)), nil, &out)
	return out, err
}

// Retract says a fact was never true (DELETE /v1/facts/{id}): from then on
// it is not found, and reads of what was known before still see it. It
// returns the fact as it now stands.
func (c *Client) Retract(ctx context.Context, id string) (wire.Fact, error) {
	var out wire.Fact
	_, err := c.call(ctx, http.MethodDelete, "/v1/facts/"+ref(id)+"?mode=retract", nil, &out)
	return out, err
}

// ForgetFact forgets one fact (DELETE /v1/facts/{id}?mode=forget): it
// leaves every recall path and a tombstone keeps it from coming back.
func (c *Client) ForgetFact(ctx context.Context, id string) (wire.ForgetResult, error) {
	var out wire.ForgetResult
	_, err := c.call(ctx, http.MethodDelete, "/v1/facts/"+ref(id)+"?mode=forget", nil, &out)
	return out, err
}
