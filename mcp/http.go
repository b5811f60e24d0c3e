package mcp

import (
	"net/http"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxCachedServers bounds the servers Handler keeps, one per key: API
// keys name few scopes, but in development mode a header can name any.
const maxCachedServers = 256

// Handler serves the tools over streamable HTTP. It is stateless: each
// request is answered by a server on the backend for that very request, so
// the scope of every call is the one its own credentials allow — a session
// id can never carry one caller's scope into another caller's request.
// keyOf names what a request's backend depends on (its scope and who
// asks); backendFor makes the backend of the first request with a key,
// and the server built on it answers every later request with that key.
// A request keyOf or backendFor rejects is answered 400, and so is a
// JSON-RPC batch over MaxBatchCalls or MaxBatchWork and a body with a
// string that is not valid UTF-8.
func Handler(keyOf func(r *http.Request) (string, bool), backendFor func(r *http.Request) Backend, opts *Options) http.Handler {
	if opts == nil {
		opts = &Options{}
	}
	var mu sync.Mutex
	servers := map[string]*sdk.Server{}
	maxBody := opts.MaxBodyBytes
	if maxBody <= 0 {
		maxBody = sdk.DefaultMaxRequestBodyBytes
	}
	return checkBodies(sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		key, ok := keyOf(r)
		if !ok {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		if s := servers[key]; s != nil {
			return s
		}
		b := backendFor(r)
		if b == nil {
			return nil
		}
		if len(servers) >= maxCachedServers {
			clear(servers)
		}
		s := NewServer(b, opts)
		servers[key] = s
		return s
	}, &sdk.StreamableHTTPOptions{
		Stateless: true, JSONResponse: true, Logger: opts.Logger,
		MaxRequestBodyBytes: maxBody, DisableLocalhostProtection: opts.AnyHost,
	}), maxBody)
}
