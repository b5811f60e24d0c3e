// Package client is the Go client of graphmem's HTTP API (/v1), shared by
// the CLI's client commands and the MCP server's remote backend. It speaks
// JSON, sends the API key and the scope header, and turns the one error
// shape back into *entity.Error, so a caller sees the same codes, messages
// and field names as the server produced.
package client
