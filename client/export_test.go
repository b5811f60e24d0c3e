package client

import (
	"context"
	"io"
)

// Send sends a request the typed methods never make (another method, a
// body of another media type), so a test can see how its error reads.
func (c *Client) Send(ctx context.Context, method, path, contentType string, body io.Reader) error {
	resp, err := c.send(ctx, method, path, contentType, body)
	if err != nil {
		return err
	}
	if err := refused(resp, method, path); err != nil {
		return err
	}
	return resp.Body.Close()
}
