package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/graph/storetest"
)

// MustRunMain starts the real server on 127.0.0.1:0 with its data in a
// temporary folder; mod may change the configuration first. The server is
// closed when the test ends.
func MustRunMain(tb testing.TB, mod func(m *Main)) *Main {
	tb.Helper()
	m := NewMain()
	m.Config.Addr = "127.0.0.1:0"
	m.Config.Data = tb.TempDir()
	m.Config.ShutdownWait = 5 * time.Second
	m.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if storetest.Kind() == "neo4j" {
		m.Config.Store, m.Config.Neo4jURI = "neo4j", storetest.Neo4jURI(tb)
	}
	if mod != nil {
		mod(m)
	}
	// A new data folder means a new server: it gets an empty Neo4j too. A
	// restart on the same folder keeps the data.
	if _, err := os.Stat(filepath.Join(m.Config.Data, "index")); m.Config.Store == "neo4j" && os.IsNotExist(err) {
		storetest.Wipe(tb)
	}
	if err := m.Run(context.Background()); err != nil {
		tb.Fatalf("run: %v", err)
	}
	tb.Cleanup(func() {
		if err := m.Close(); err != nil {
			tb.Errorf("close: %v", err)
		}
	})
	return m
}

// client speaks HTTP to a test server. Every answer is checked: a 5xx
// fails the test, and an error answer must be the one error shape.
type client struct {
	tb    testing.TB
	base  string
	key   string
	scope string
	hc    *http.Client
}

func newClient(tb testing.TB, m *Main) client {
	return client{tb: tb, base: "http://" + m.Addr(), hc: &http.Client{Timeout: 30 * time.Second}}
}

// as returns a client sending key (may be "") and scope header (may be "").
func (c client) as(key, scope string) client {
	c.key, c.scope = key, scope
	return c
}

type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends a request; body is a string or []byte of raw JSON, or a value
// to marshal, or nil.
func (c client) do(method, path string, body any, header ...string) response {
	c.tb.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			c.tb.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.tb.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if c.scope != "" {
		req.Header.Set(api.ScopeHeader, c.scope)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.tb.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	r := response{status: resp.StatusCode, header: resp.Header, body: data}
	if r.status >= 500 {
		c.tb.Fatalf("%s %s: %d %s", method, path, r.status, data)
	}
	if r.status >= 400 {
		r.errorDetail(c.tb)
	}
	return r
}

// ok checks the status and decodes the body into v (nil: skip).
func (r response) ok(tb testing.TB, status int, v any) {
	tb.Helper()
	if r.status != status {
		tb.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	if v != nil {
		if err := json.Unmarshal(r.body, v); err != nil {
			tb.Fatalf("decoding %s: %v", r.body, err)
		}
	}
}

// errorDetail decodes the one error shape, strictly.
func (r response) errorDetail(tb testing.TB) api.ErrorDetail {
	tb.Helper()
	var body api.ErrorBody
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || body.Error.Code == "" || body.Error.Message == "" {
		tb.Fatalf("status %d: not the error shape (%v): %s", r.status, err, r.body)
	}
	return body.Error
}

// postFacts posts facts and returns the results, checking a 200.
func (c client) postFacts(facts ...map[string]any) []api.FactResult {
	c.tb.Helper()
	var out api.FactsResponse
	c.do("POST", "/v1/facts", map[string]any{"facts": facts}).ok(c.tb, 200, &out)
	if len(out.Results) != len(facts) {
		c.tb.Fatalf("%d results for %d facts", len(out.Results), len(facts))
	}
	return out.Results
}

func (c client) facts(query string) []api.Fact {
	c.tb.Helper()
	var out api.FactList
	c.do("GET", "/v1/facts?"+query, nil).ok(c.tb, 200, &out)
	return out.Items
}

// buildBinary builds graphmem into a temporary folder of the test.
func buildBinary(tb testing.TB) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "graphmem")
	if out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return path
}
