package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/graphmem/graphmem/api"
)

// apiClient talks to a running graphmem server for the client commands.
type apiClient struct {
	base string
	key  string
	http *http.Client
}

func newAPIClient(cfg Config) *apiClient {
	return &apiClient{base: strings.TrimRight(cfg.URL, "/"), key: cfg.APIKey, http: &http.Client{Timeout: 60 * time.Second}}
}

// do sends body as JSON (nil: none) and decodes a 2xx answer into out (nil:
// discard). Error answers become errors carrying the server's message and
// field messages.
func (c *apiClient) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("graphmem server at %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %w", method, path, resp.StatusCode, api.ParseError(resp.StatusCode, data))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}
