package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/entity"
)

// DefaultTimeout bounds one call when HTTP is nil.
const DefaultTimeout = time.Minute

// maxAnswerBytes bounds what one answer may take in memory.
const maxAnswerBytes = 64 << 20

// Client calls one graphmem server. It is safe for concurrent use once its
// fields are set.
type Client struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:8080.
	URL string
	// Key is sent as "Authorization: Bearer <key>"; empty for a server in
	// development mode.
	Key string
	// Scope, when set, picks one of the key's scopes (ScopeHeader).
	Scope string
	// HTTP is the client used; one with DefaultTimeout when nil.
	HTTP *http.Client
}

// New returns a client of the server at url.
func New(url, key, scope string) *Client {
	return &Client{URL: strings.TrimRight(url, "/"), Key: key, Scope: scope, HTTP: &http.Client{Timeout: DefaultTimeout}}
}

// Do sends body as JSON (nil: no body) to path (with its query) and decodes
// a 2xx answer into out (nil: discard). It returns the answer's status.
// Error answers are *entity.Error as the server sent them (wire.Err); a
// server that cannot be reached is EUNAVAILABLE naming the URL.
func (c *Client) Do(ctx context.Context, method, path string, body, out any) (int, error) {
	var rd io.Reader
	ctype := ""
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, entity.Wrap(entity.EINTERNAL, "client: encoding "+path, err)
		}
		rd, ctype = bytes.NewReader(b), "application/json"
	}
	return c.Send(ctx, method, path, ctype, rd, out)
}

// Send is Do with a body already encoded as contentType (e.g. JSON Lines
// for /v1/import); rd may be nil.
func (c *Client) Send(ctx context.Context, method, path, contentType string, rd io.Reader, out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.URL, "/")+path, rd)
	if err != nil {
		return 0, entity.Wrap(entity.EINVALID, "client", err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	if c.Scope != "" {
		req.Header.Set(wire.ScopeHeader, c.Scope)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: DefaultTimeout}
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, &entity.Error{Code: entity.EUNAVAILABLE, Message: fmt.Sprintf("graphmem server at %s is not reachable", c.URL), Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return resp.StatusCode, &entity.Error{Code: entity.EUNAVAILABLE, Message: "reading the server's answer failed", Err: err}
	}
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, wire.Err(resp.StatusCode, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, entity.Wrap(entity.EINTERNAL, "client: decoding the answer of "+path, err)
		}
	}
	return resp.StatusCode, nil
}
