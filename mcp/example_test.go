package mcp_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphmem/graphmem/graph/bolt"
	"github.com/graphmem/graphmem/mcp"
	"github.com/graphmem/graphmem/memory"
)

// A client of the tools, connected in process: record a change of port,
// then read the entity's timeline.
func ExampleNewServer() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "graphmem-example-")
	defer os.RemoveAll(dir)
	store, err := bolt.Open(filepath.Join(dir, "graph.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	// Without a recall engine, context and search answer "unavailable";
	// the other tools work.
	backend := mcp.NewLocal(memory.New(store, nil), nil, "repo:payments")

	st, ct := sdk.NewInMemoryTransports()
	if _, err := mcp.NewServer(backend, nil).Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	session, err := sdk.NewClient(&sdk.Implementation{Name: "example", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	call := func(tool string, args map[string]any) *sdk.CallToolResult {
		res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			log.Fatal(err)
		}
		return res
	}
	call("add_facts", map[string]any{"facts": []map[string]any{
		{"subject": "payments-db", "predicate": "port", "value": "5432", "valid_from": "2024-01-10"},
		{"subject": "payments-db", "predicate": "port", "value": "3307", "valid_from": "2024-03-01"},
	}})
	res := call("timeline", map[string]any{"entity": "payments-db", "predicate": "port"})
	for _, f := range res.StructuredContent.(map[string]any)["facts"].([]any) {
		f := f.(map[string]any)
		fmt.Println(f["value"], f["status"], f["valid_from"])
	}
	res = call("timeline", map[string]any{"entity": "payments-db", "scope": "user:someone-else"})
	fmt.Println(res.IsError, res.Content[0].(*sdk.TextContent).Text)
	// Output:
	// 5432 superseded 2024-01-10T00:00:00Z
	// 3307 current 2024-03-01T00:00:00Z
	// true invalid arguments — scope: unknown argument: the scope is set by graphmem's configuration, never by a tool call. Fix the named arguments and call again.
}
