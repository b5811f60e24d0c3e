package client

import (
	"context"
	"iter"
	"net/http"

	"github.com/google/uuid"

	"github.com/graphmem/graphmem/api/wire"
)

// Remember stores an episode durably and queues it for extraction (POST
// /v1/episodes). created is false when in.IdempotencyKey named an episode
// stored before: the answer is that episode's. An episode without a key is
// given a random one, so that a retry (after a 429 or 503) cannot store it
// twice. Warning is set when the server has no extraction model (the
// episode is kept and searchable, but yields no facts).
func (c *Client) Remember(ctx context.Context, in wire.EpisodeInput) (res wire.EpisodeAccepted, created bool, err error) {
	status, err := c.call(ctx, http.MethodPost, "/v1/episodes", withKey(in), &res)
	return res, status == http.StatusAccepted, err
}

// RememberAndWait is Remember waiting for the extraction (?wait=true, as
// long as the server's episode wait, GRAPHMEM_EPISODE_WAIT): the answer
// carries the facts the episode produced, or the status it had when the
// wait ran out. Only ctx bounds it.
func (c *Client) RememberAndWait(ctx context.Context, in wire.EpisodeInput) (wire.EpisodeAccepted, error) {
	var out wire.EpisodeAccepted
	_, err := c.callLong(ctx, http.MethodPost, "/v1/episodes?wait=true", withKey(in), &out)
	return out, err
}

// withKey is in with an idempotency key: its own, else a random one.
func withKey(in wire.EpisodeInput) wire.EpisodeInput {
	if in.IdempotencyKey == "" {
		in.IdempotencyKey = "client-" + uuid.NewString()
	}
	return in
}

// EpisodeQuery selects a page of episodes.
type EpisodeQuery struct {
	// Status is queued, processing, done or failed ("": any).
	Status string
	// Limit is the page size (0: the server's default); Cursor the
	// NextCursor of the page before.
	Limit  int
	Cursor string
}

// EpisodesPage returns one page of episodes (GET /v1/episodes).
func (c *Client) EpisodesPage(ctx context.Context, q EpisodeQuery) (wire.EpisodeList, error) {
	p := params{}.str("status", q.Status).int("limit", q.Limit).str("cursor", q.Cursor)
	var out wire.EpisodeList
	_, err := c.call(ctx, http.MethodGet, p.path("/v1/episodes"), nil, &out)
	return out, err
}

// Episodes yields every episode q selects, page by page.
func (c *Client) Episodes(ctx context.Context, q EpisodeQuery) iter.Seq2[wire.Episode, error] {
	return pages(func(cursor string) ([]wire.Episode, *string, error) {
		if cursor != "" {
			q.Cursor = cursor
		}
		l, err := c.EpisodesPage(ctx, q)
		return l.Items, l.NextCursor, err
	})
}

// Episode returns one episode with its status, error and the facts derived
// from it (GET /v1/episodes/{id}). Returns ENOTFOUND for an unknown id.
func (c *Client) Episode(ctx context.Context, id string) (wire.Episode, error) {
	var out wire.Episode
	_, err := c.call(ctx, http.MethodGet, "/v1/episodes/"+ref(id), nil, &out)
	return out, err
}

// RetryEpisode queues a failed episode for extraction again (POST
// /v1/episodes/{id}/retry). Returns ECONFLICT if it has not failed or the
// server has no extraction model.
func (c *Client) RetryEpisode(ctx context.Context, id string) (wire.EpisodeAccepted, error) {
	var out wire.EpisodeAccepted
	_, err := c.call(ctx, http.MethodPost, "/v1/episodes/"+ref(id)+"/retry", nil, &out)
	return out, err
}
