package mcp

import (
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves the tools over streamable HTTP. It is stateless: every
// request gets a server on the backend backendFor returns for that very
// request, so the scope of each call is the one its credentials allow —
// a session id can never carry one caller's scope into another's request.
// When backendFor returns nil the request is answered 400.
func Handler(backendFor func(r *http.Request) Backend, opts *Options) http.Handler {
	return sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		b := backendFor(r)
		if b == nil {
			return nil
		}
		return NewServer(b, opts)
	}, &sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}
