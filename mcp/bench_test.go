package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphmem/graphmem/mcp"
)

// BenchmarkHTTP measures a timeline call over the stateless HTTP handler
// ("timeline_call", one server per scope, reused) next to the cost of
// building a server ("new_server"), which a handler building one per
// request would add to every call.
func BenchmarkHTTP(b *testing.B) {
	e := newEnv(b)
	local := mcp.NewLocal(e.svc, e.engine, "repo:payments")
	if _, err := local.AddFacts(context.Background(), mustFacts(b)); err != nil {
		b.Fatal(err)
	}
	b.Run("new_server", func(b *testing.B) {
		for b.Loop() {
			mcp.NewServer(local, nil)
		}
	})
	b.Run("timeline_call", func(b *testing.B) {
		srv := httptest.NewServer(mcp.Handler(func(*http.Request) (string, bool) { return "repo:payments", true },
			func(*http.Request) mcp.Backend { return local }, nil))
		defer srv.Close()
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "v0"}, nil).
			Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: srv.URL}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		args := &sdk.CallToolParams{Name: "timeline", Arguments: map[string]any{"entity": "payments-db"}}
		for b.Loop() {
			res, err := cs.CallTool(context.Background(), args)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}
