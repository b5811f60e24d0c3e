package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/memory"
)

// TestE2E_PurgeLeavesNoBytes: once a purge is answered, no file under the
// data folder holds the purged text — not graph.db's free pages, not the
// index's segments — whether the server then stops cleanly or is killed.
func TestE2E_PurgeLeavesNoBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	for _, stop := range []struct {
		name string
		sig  syscall.Signal
	}{{"clean shutdown", syscall.SIGTERM}, {"kill -9", syscall.SIGKILL}} {
		t.Run(stop.name, func(t *testing.T) {
			data := t.TempDir()
			s := startServer(t, bin, data)
			c := client{tb: t, base: s.base, hc: &http.Client{Timeout: 30 * time.Second}}
			marker := newMarker(t)
			// Neighbours, so the purged records share pages with others.
			for i := range 20 {
				facts := make([]map[string]any, 0, 50)
				for j := range 50 {
					facts = append(facts, map[string]any{"subject": fmt.Sprintf("host %d", i), "predicate": fmt.Sprintf("note_%d", j),
						"value": fmt.Sprintf("kept value %d.%d", i, j)})
				}
				c.postFacts(facts...)
			}
			res := c.postFacts(map[string]any{"subject": "alice", "predicate": "secret",
				"value": marker + " value", "text": "alice told us " + marker})
			var ep api.EpisodeAccepted
			c.do("POST", "/v1/episodes", map[string]any{"content": "remember " + marker + " for me"}).ok(t, 202, &ep)
			waitEpisode(c, ep.EpisodeID)
			// The index has taken the records up: their terms are in it.
			deadline := time.Now().Add(30 * time.Second)
			for len(searchHits(c, marker)) < 2 {
				if time.Now().After(deadline) {
					t.Fatalf("search does not find %s", marker)
				}
				time.Sleep(100 * time.Millisecond)
			}
			if found := filesHolding(t, data, marker); len(found) == 0 {
				t.Fatalf("no file holds %s before the purge: the test looks in the wrong place", marker)
			}
			var purged memory.ForgetResult
			c.do("POST", "/v1/forget", map[string]any{"fact_ids": []string{res[0].FactID}, "mode": "purge"}).ok(t, 200, &purged)
			c.do("POST", "/v1/forget", map[string]any{"episode_id": ep.EpisodeID, "mode": "purge"}).ok(t, 200, &purged)
			if err := s.cmd.Process.Signal(stop.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-s.exited:
			case <-time.After(30 * time.Second):
				t.Fatal("server did not stop")
			}
			for _, f := range filesHolding(t, data, marker) {
				t.Errorf("%s holds the purged text", f)
			}
		})
	}
}

// newMarker is a word no record holds by chance.
func newMarker(t *testing.T) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "zq" + hex.EncodeToString(b)
}

// filesHolding lists the files under dir whose bytes contain s.
func filesHolding(t *testing.T, dir, s string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(s)) {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMCP_PurgeLeavesNoBytes: a purge through the MCP forget tool leaves no
// copy in the data folder either (it skipped the index's merge, which only
// the REST handler ran).
func TestMCP_PurgeLeavesNoBytes(t *testing.T) {
	m := MustRunMain(t, nil)
	c := newClient(t, m)
	marker := newMarker(t)
	res := c.postFacts(map[string]any{"subject": "alice", "predicate": "secret", "value": marker + " value", "text": "alice told us " + marker})
	deadline := time.Now().Add(30 * time.Second)
	for len(searchHits(c, marker)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("search does not find %s", marker)
		}
		time.Sleep(100 * time.Millisecond)
	}
	cs, err := connectHTTP(t, m, "")
	if err != nil {
		t.Fatal(err)
	}
	mcpOK(t, cs, "forget", map[string]any{"fact_ids": []string{res[0].FactID}, "mode": "purge"})
	for _, f := range filesHolding(t, m.Config.Data, marker) {
		t.Errorf("%s holds the purged text", f)
	}
}
