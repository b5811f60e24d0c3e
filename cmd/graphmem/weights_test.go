package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecallWeightsSetting: GRAPHMEM_RECALL_WEIGHTS replaces the weights
// it names; a file that is not valid weights is refused by name before
// the server starts.
func TestRecallWeightsSetting(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	run := func(path string) (*Main, error) {
		m := NewMain()
		m.Config.Addr, m.Config.Data, m.Config.RecallWeights = "127.0.0.1:0", t.TempDir(), path
		m.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
		return m, m.Run(context.Background())
	}
	t.Run("OK", func(t *testing.T) {
		m, err := run(file("ok.json", `{"fact": {"pair": 1.5}}`))
		defer m.Close()
		if err != nil {
			t.Fatal(err)
		}
		if w := m.Recall.Weights; w == nil || w.Fact.Pair != 1.5 || w.Fact.Graph != 0.6 {
			t.Errorf("weights %+v, want pair 1.5 and the other defaults", w)
		}
	})
	for name, body := range map[string]string{"ErrUnknown": `{"fact": {"pairs": 1}}`, "ErrRange": `{"floor": {"share": 2}}`, "ErrJSON": `{`} {
		t.Run(name, func(t *testing.T) {
			m, err := run(file(name+".json", body))
			m.Close()
			if err == nil || !strings.Contains(err.Error(), "recall-weights") {
				t.Errorf("%s: %v, want an error naming the setting", body, err)
			}
		})
	}
	m, err := run(filepath.Join(dir, "missing.json"))
	m.Close()
	if err == nil || !strings.Contains(err.Error(), "recall-weights") {
		t.Errorf("missing file: %v", err)
	}
}
