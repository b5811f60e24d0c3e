// Package client is graphmem's Go SDK: a typed method for every endpoint of
// the HTTP API (/v1), used by the CLI's client commands and the MCP
// server's remote backend alike.
//
// Every call takes a context and, but for the long ones (RememberAndWait,
// Export, Import), the client's timeout. Reads and Remember (which always
// sends an idempotency key) are sent again when the server answers 429 or
// 503, as Retry-After asks; other writes are sent once.
//
// A Client sends its API key and, when set, the scope that picks one of the
// key's scopes. Answers are the API's own types (package api/wire); lists page through iterators (Facts, Episodes) or one
// page at a time (FactsPage, EpisodesPage). Error answers come back as
// *entity.Error with the code, message and field names the server produced;
// an answer without the error shape (a proxy's) gets the code its status
// maps to (wire.CodeOf), and a server that cannot be reached is
// EUNAVAILABLE naming the URL. An error's Op names the request and the
// status: "POST /v1/facts (400)".
package client
