package main

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/api"
)

// TestE2E_ImportCrash: a kill -9 while an import is being written leaves
// all of it once the server is back (the journal finishes it as the server
// starts), and one before it was checked leaves none of it. The kills fall
// as the first batch commits and at times after it.
func TestE2E_ImportCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and crashes it")
	}
	bin := buildBinary(t)
	body, err := io.ReadAll(importStream(4<<20, false))
	if err != nil {
		t.Fatal(err)
	}
	facts := bytes.Count(body, []byte(`{"fact":`))
	outcomes := map[string]int{}
	for _, after := range []time.Duration{-1, 0, 100 * time.Millisecond, 400 * time.Millisecond, 1500 * time.Millisecond} {
		data := t.TempDir()
		s := startServer(t, bin, data)
		done := make(chan int, 1)
		go func() { done <- postImport(s.base, body) }()
		if after >= 0 {
			waitWriting(t, s.base)
			time.Sleep(after)
		}
		s.cmd.Process.Kill()
		<-s.exited
		status := <-done
		s = startServer(t, bin, data)
		n := exportedFacts(t, s.base)
		switch {
		case n == facts:
			outcomes["all"]++
		case n == 0 && after < 0:
			outcomes["none"]++
		default:
			t.Errorf("killed %v after the first batch (status %d): %d of %d facts are there after a restart", after, status, n, facts)
		}
		s.cmd.Process.Kill()
		<-s.exited
	}
	t.Logf("after a kill -9 and a restart: %v", outcomes)
}

// waitWriting waits until the import's first batch has committed: its first
// entity is there.
func waitWriting(tb testing.TB, base string) {
	tb.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		resp, err := http.Get(base + "/v1/entities/ent-000000")
		if err != nil {
			tb.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 {
			return
		}
	}
	tb.Fatal("the import's first entity did not appear within a minute")
}

// postImport sends an import and returns its status (0 when the server
// went away).
func postImport(base string, body []byte) int {
	resp, err := http.Post(base+"/v1/import", api.NDJSON, bytes.NewReader(body))
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// exportedFacts counts the facts of the default scope's export.
func exportedFacts(tb testing.TB, base string) int {
	tb.Helper()
	resp, err := http.Get(base + "/v1/export")
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		tb.Fatalf("export: %d %v", resp.StatusCode, err)
	}
	return strings.Count(string(b), `{"fact":`)
}
