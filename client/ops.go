package client

import (
	"context"
	"io"
	"net/http"

	"github.com/graphmem/graphmem/api/wire"
)

// Health reports whether the server process answers (GET /healthz).
func (c *Client) Health(ctx context.Context) error {
	_, err := c.call(ctx, http.MethodGet, "/healthz", nil, nil)
	return err
}

// Ready reports whether the server can serve: its store answers (GET
// /readyz). Returns EUNAVAILABLE when it cannot.
func (c *Client) Ready(ctx context.Context) (wire.Health, error) {
	var out wire.Health
	_, err := c.call(ctx, http.MethodGet, "/readyz", nil, &out)
	return out, err
}

// Session returns the scope the client's requests use and the scopes its
// key may pick (GET /v1/session).
func (c *Client) Session(ctx context.Context) (wire.Session, error) {
	var out wire.Session
	_, err := c.call(ctx, http.MethodGet, "/v1/session", nil, &out)
	return out, err
}

// Ontology describes the entity types and predicates the server knows
// (GET /v1/ontology).
func (c *Client) Ontology(ctx context.Context) (wire.Ontology, error) {
	var out wire.Ontology
	_, err := c.call(ctx, http.MethodGet, "/v1/ontology", nil, &out)
	return out, err
}

// Overview counts what the scope holds and lists its latest changes, at
// most limit (0: the server's default) (GET /v1/overview).
func (c *Client) Overview(ctx context.Context, limit int) (wire.Overview, error) {
	var out wire.Overview
	_, err := c.call(ctx, http.MethodGet, params{}.int("limit", limit).path("/v1/overview"), nil, &out)
	return out, err
}

// Export writes everything in the scope to w as JSON Lines (GET
// /v1/export), for Import to load losslessly. An export the server cuts
// short is EUNAVAILABLE: what w got is not the whole scope.
func (c *Client) Export(ctx context.Context, w io.Writer) error {
	resp, err := c.send(ctx, http.MethodGet, "/v1/export", "", nil)
	if err != nil {
		return err
	}
	if err := refused(resp, http.MethodGet, "/v1/export"); err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(w, resp.Body); err != nil {
		return c.failed(ctx, http.MethodGet, "/v1/export", "the export was cut short", err)
	}
	return nil
}

// Import loads an export (JSON Lines, as Export writes) into the scope
// (POST /v1/import), keeping ids and times. A refused import writes
// nothing: EINVALID names the line and the field.
func (c *Client) Import(ctx context.Context, r io.Reader) (wire.ImportResult, error) {
	var out wire.ImportResult
	resp, err := c.send(ctx, http.MethodPost, "/v1/import", wire.NDJSON, r)
	if err != nil {
		return out, err
	}
	if err := refused(resp, http.MethodPost, "/v1/import"); err != nil {
		return out, err
	}
	return out, c.read(ctx, resp, http.MethodPost, "/v1/import", &out)
}
