package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/entity"
)

// DefaultTimeout bounds one call, unless WithTimeout says otherwise.
// RememberAndWait, Export and Import are bounded only by their context: the
// server may take minutes over them.
const DefaultTimeout = time.Minute

// maxAnswerBytes bounds what one JSON answer may take in memory.
const maxAnswerBytes = 64 << 20

// Client calls one graphmem server. It is safe for concurrent use.
type Client struct {
	url     string
	key     string
	scope   string
	timeout time.Duration
	http    *http.Client
}

// Option configures a Client.
type Option func(*Client)

// WithAPIKey sends key as "Authorization: Bearer <key>"; without it the
// server must run in development mode.
func WithAPIKey(key string) Option { return func(c *Client) { c.key = key } }

// WithScope picks one of the key's scopes (the X-Graphmem-Scope header);
// without it the server uses the key's first.
func WithScope(scope string) Option { return func(c *Client) { c.scope = scope } }

// WithHTTPClient sends the requests through hc (for a proxy, TLS settings
// or a test transport); http.DefaultClient without it.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// WithTimeout bounds each call but RememberAndWait, Export and Import
// (DefaultTimeout without it); 0 leaves the bound to the caller's context.
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// New returns a client of the server at baseURL (e.g.
// http://127.0.0.1:8080).
func New(baseURL string, opts ...Option) *Client {
	c := &Client{url: strings.TrimRight(baseURL, "/"), timeout: DefaultTimeout, http: http.DefaultClient}
	for _, o := range opts {
		o(c)
	}
	return c
}

// URL is the server's base URL.
func (c *Client) URL() string { return c.url }

// call sends body as JSON (nil: no body) and decodes a 2xx answer into out
// (nil: discard), within the client's timeout. It returns the answer's
// status.
func (c *Client) call(ctx context.Context, method, path string, body, out any) (int, error) {
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	return c.callLong(ctx, method, path, body, out)
}

// callLong is call bounded only by ctx, for calls that may take longer
// than the timeout.
func (c *Client) callLong(ctx context.Context, method, path string, body, out any) (int, error) {
	var rd io.Reader
	ctype := ""
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, entity.Wrap(entity.EINVALID, method+" "+path, err)
		}
		rd, ctype = bytes.NewReader(b), "application/json"
	}
	resp, err := c.send(ctx, method, path, ctype, rd)
	if err != nil {
		return 0, err
	}
	return resp.StatusCode, c.read(ctx, resp, method, path, out)
}

// read decodes a 2xx answer into out (nil: discard) and closes it.
func (c *Client) read(ctx context.Context, resp *http.Response, method, path string, out any) error {
	defer resp.Body.Close()
	if out == nil {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err == nil {
		err = json.Unmarshal(data, out)
	}
	if err != nil {
		return c.failed(ctx, method, path, "reading the answer failed", err)
	}
	return nil
}

// send sends one request and returns a 2xx answer for the caller to read
// and close; any other answer is read and returned as its error.
func (c *Client) send(ctx context.Context, method, path, contentType string, body io.Reader) (*http.Response, error) {
	op := method + " " + strings.SplitN(path, "?", 2)[0]
	req, err := http.NewRequestWithContext(ctx, method, c.url+path, body)
	if err != nil {
		return nil, &entity.Error{Code: entity.EINVALID, Op: op, Message: err.Error(), Err: err}
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if c.scope != "" {
		req.Header.Set(wire.ScopeHeader, c.scope)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.failed(ctx, method, path, fmt.Sprintf("graphmem server at %s is not reachable", c.url), err)
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	e := wire.Err(resp.StatusCode, data).(*entity.Error)
	e.Op = fmt.Sprintf("%s (%d)", op, resp.StatusCode)
	return nil, e
}

// failed is the error of a call the server did not answer in full: the
// context's own error when it ended, else EUNAVAILABLE.
func (c *Client) failed(ctx context.Context, method, path, msg string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &entity.Error{Code: entity.EUNAVAILABLE, Op: method + " " + strings.SplitN(path, "?", 2)[0], Message: msg, Err: err}
}

// params builds a query string; empty values are left out, as the server
// reads them as absent.
type params url.Values

func (p params) str(k, v string) params {
	if v != "" {
		url.Values(p).Set(k, v)
	}
	return p
}

func (p params) time(k string, t time.Time) params {
	if !t.IsZero() {
		url.Values(p).Set(k, t.UTC().Format(time.RFC3339Nano))
	}
	return p
}

func (p params) int(k string, n int) params {
	if n != 0 {
		url.Values(p).Set(k, strconv.Itoa(n))
	}
	return p
}

func (p params) bool(k string, b bool) params {
	if b {
		url.Values(p).Set(k, "true")
	}
	return p
}

// path is path with the query, if any.
func (p params) path(path string) string {
	if len(p) == 0 {
		return path
	}
	return path + "?" + url.Values(p).Encode()
}

// ref is an id, name or alias as a path segment.
func ref(s string) string { return url.PathEscape(s) }

// pages yields the items of each page fetch returns, asking for the next
// with the cursor of the last, until a page says it is the last. An error
// is yielded once and ends the sequence.
func pages[T any](fetch func(cursor string) ([]T, *string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		cursor := ""
		for {
			items, next, err := fetch(cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if next == nil || *next == "" {
				return
			}
			cursor = *next
		}
	}
}
