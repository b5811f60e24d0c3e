package mcp

import (
	"net/http"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxCachedServers bounds the servers Handler keeps, one per scope: keys
// name few scopes, but in development mode a header can name any.
const maxCachedServers = 256

// Handler serves the tools over streamable HTTP. It is stateless: each
// request is answered by the server for the scope scopeOf derives from that
// very request (its credentials), so a session id can never carry one
// caller's scope into another caller's request. backendFor makes the
// backend of a scope; the server built on it is reused by later requests
// in the same scope. A request scopeOf rejects is answered 400.
func Handler(scopeOf func(r *http.Request) (string, bool), backendFor func(scope string) Backend, opts *Options) http.Handler {
	if opts == nil {
		opts = &Options{}
	}
	var mu sync.Mutex
	servers := map[string]*sdk.Server{}
	return sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		scope, ok := scopeOf(r)
		if !ok {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		if s := servers[scope]; s != nil {
			return s
		}
		b := backendFor(scope)
		if b == nil {
			return nil
		}
		if len(servers) >= maxCachedServers {
			clear(servers)
		}
		s := NewServer(b, opts)
		servers[scope] = s
		return s
	}, &sdk.StreamableHTTPOptions{
		Stateless: true, JSONResponse: true, Logger: opts.Logger,
		MaxRequestBodyBytes: opts.MaxBodyBytes, DisableLocalhostProtection: opts.AnyHost,
	})
}
