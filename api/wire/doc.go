// Package wire is the contract of graphmem's HTTP API without the server:
// the JSON shapes its answers take, the one error shape, the table that
// maps each error code to its HTTP status and back, and the headers it
// reads. The server (package api) answers in these types and the Go
// client (package client) decodes them, so the two cannot disagree; the
// package imports neither Gin nor the search engine, so a program that only
// calls graphmem stays small.
package wire
