package main

import (
	"context"
	"fmt"

	gmclient "github.com/graphmem/graphmem/client"
)

// apiClient is the API client of the client commands; its errors name the
// request and keep the HTTP status.
type apiClient struct{ c *gmclient.Client }

func newAPIClient(cfg Config, scope string) *apiClient {
	return &apiClient{c: gmclient.New(cfg.URL, cfg.APIKey, scope)}
}

func (a *apiClient) do(ctx context.Context, method, path string, body, out any) error {
	status, err := a.c.Do(ctx, method, path, body, out)
	if err != nil && status != 0 {
		return fmt.Errorf("%s %s: %d %w", method, path, status, err)
	}
	return err
}
