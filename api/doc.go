// Package api is graphmem's HTTP API (docs/design.md §6): a Gin router whose
// handlers parse a request, call the memory service and render the answer.
//
// The package owns the transport concerns and nothing else: request ids and
// structured logs, recovery, authentication (an API key maps to the scopes it
// may use; the scope of a request comes from its credentials, never from its
// body), the refusal of browsers' cross-site requests (Origin,
// Sec-Fetch-Site) and of bodies not said to be JSON, request decoding and
// shape validation, the one error shape (its types and code↔status table
// are in package wire, which clients share), metrics
// and the OpenAPI document. Domain rules live in the memory service so every
// entry point (HTTP, CLI, MCP) enforces them alike.
//
// Each resource has one file with its request types and a register…Routes
// method (its answers are types of package wire); a route added anywhere must also be described with
// Server.Document, and a test checks that the OpenAPI document and the router
// agree.
package api
