// Package mcp serves graphmem's memory as Model Context Protocol tools —
// remember, add_facts, context (and recall, its deprecated old name),
// search, timeline and forget — so any MCP
// client (a desktop assistant, an agent framework, a coding agent) can
// use graphmem with one line of configuration.
//
// The tools talk to a Backend: Local works on a memory service and a
// recall engine in the same process, for one scope fixed by
// configuration; Remote sends each call to a running graphmem server's
// /v1 endpoints with an API key, and the server derives the scope from
// the key. No tool takes a scope argument: a model never chooses whose
// memory it reads or writes.
//
// NewServer builds the MCP server for a backend; Handler serves it over
// streamable HTTP with a backend per request (the API mounts it at /mcp
// behind the same keys as /v1).
package mcp
