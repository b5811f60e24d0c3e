// Package ui is graphmem's web view, served at /ui/ by `graphmem serve`:
// entity timelines and the graph around them, the context an agent gets
// for a question, forgetting with a preview, and the extraction queue.
//
// The assets are plain HTML, CSS and JavaScript embedded in the binary;
// the pages call only the public /v1 API, with the API key a person signs
// in with (kept in the browser's sessionStorage).
package ui
