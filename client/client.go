package client

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"os"
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

// DefaultRetries is how many times a call that is safe to repeat (a read,
// Remember) is sent again when the server answers 429 or 503, unless
// WithRetries says otherwise. It waits as Retry-After asks, at most
// maxRetryWait, else firstRetryWait doubling.
const (
	DefaultRetries = 3
	maxRetryWait   = 30 * time.Second
	firstRetryWait = 500 * time.Millisecond
)

// Client calls one graphmem server. It is safe for concurrent use.
type Client struct {
	url     string
	key     string
	scope   string
	timeout time.Duration
	retries int
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

// WithRetries sets how many times a read or Remember is sent again after a
// 429 or 503 answer (DefaultRetries without it; 0: never).
func WithRetries(n int) Option { return func(c *Client) { c.retries = max(n, 0) } }

// DefaultURL is the server's address when neither New's baseURL nor
// GRAPHMEM_URL gives one, as in the Python and TypeScript clients and the
// CLI.
const DefaultURL = "http://127.0.0.1:8080"

// New returns a client of the server at baseURL (e.g.
// http://127.0.0.1:8080); "" means $GRAPHMEM_URL, or DefaultURL when
// that is unset.
func New(baseURL string, opts ...Option) *Client {
	if baseURL == "" {
		baseURL = cmp.Or(os.Getenv("GRAPHMEM_URL"), DefaultURL)
	}
	c := &Client{url: strings.TrimRight(baseURL, "/"), timeout: DefaultTimeout, retries: DefaultRetries, http: http.DefaultClient}
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
	var b []byte
	ctype := ""
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			return 0, entity.Wrap(entity.EINVALID, method+" "+path, err)
		}
		ctype = "application/json"
	}
	for attempt := 0; ; attempt++ {
		var rd io.Reader
		if b != nil {
			rd = bytes.NewReader(b)
		}
		resp, err := c.send(ctx, method, path, ctype, rd)
		if err != nil {
			return 0, err
		}
		if wait, ok := c.retryWait(resp, attempt, method, body); ok {
			resp.Body.Close()
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return 0, ctx.Err()
			case <-t.C:
			}
			continue
		}
		if err := refused(resp, method, path); err != nil {
			return resp.StatusCode, err
		}
		return resp.StatusCode, c.read(ctx, resp, method, path, out)
	}
}

// retryWait says whether to send a call again after its answer resp, and
// after how long: only a 429 or 503, only a call that is safe to repeat (a
// read, an episode with its idempotency key), at most c.retries times.
func (c *Client) retryWait(resp *http.Response, attempt int, method string, body any) (time.Duration, bool) {
	if attempt >= c.retries || (resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable) {
		return 0, false
	}
	ep, isEpisode := body.(wire.EpisodeInput)
	if method != http.MethodGet && !(isEpisode && ep.IdempotencyKey != "") {
		return 0, false
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
		return min(time.Duration(s)*time.Second, maxRetryWait), true
	}
	return firstRetryWait << attempt, true
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

// send sends one request and returns the answer, whatever its status, for
// the caller to read and close (refused).
func (c *Client) send(ctx context.Context, method, path, contentType string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.url+path, body)
	if err != nil {
		return nil, &entity.Error{Code: entity.EINVALID, Op: op(method, path), Message: err.Error(), Err: err}
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
	return resp, nil
}

// refused is the error of an answer that is not 2xx, which it reads and
// closes; nil for a 2xx answer, left to the caller to read.
func refused(resp *http.Response, method, path string) error {
	if resp.StatusCode/100 == 2 {
		return nil
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	e := wire.Err(resp.StatusCode, data).(*entity.Error)
	e.Op = fmt.Sprintf("%s (%d)", op(method, path), resp.StatusCode)
	return e
}

// op names a request in errors: its method and path, without the query.
func op(method, path string) string {
	p, _, _ := strings.Cut(path, "?")
	return method + " " + p
}

// failed is the error of a call the server did not answer in full: the
// context's own error when it ended, else EUNAVAILABLE.
func (c *Client) failed(ctx context.Context, method, path, msg string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &entity.Error{Code: entity.EUNAVAILABLE, Op: op(method, path), Message: msg, Err: err}
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
