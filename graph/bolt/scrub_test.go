package bolt_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/bolt"
)

// putEpisodes stores n episodes in scope "s", those of ids with content
// holding marker, the others filler.
func putEpisodes(tb testing.TB, s *bolt.Store, n int, marker string, ids ...string) {
	tb.Helper()
	err := s.Update(context.Background(), "s", func(tx graph.Tx) error {
		for i := range n {
			e := entity.Episode{ID: fmt.Sprintf("ep-%04d", i), Content: fmt.Sprintf("filler episode %d", i),
				Status: entity.EpisodeDone, ReferenceTime: time.Unix(1700000000, 0).UTC()}
			for _, id := range ids {
				if id == e.ID {
					e.Content = "the user said " + marker
				}
			}
			if err := tx.PutEpisode(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

func fileHolds(tb testing.TB, path, marker string) bool {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return bytes.Contains(b, []byte(marker))
}

func TestStore_Scrub(t *testing.T) {
	const marker = "zqscrubmarker7f3a"
	t.Run("OK", func(t *testing.T) {
		s := mustOpen(t)
		putEpisodes(t, s, 200, marker, "ep-0042")
		putEpisodes(t, s, 200, marker, "ep-0042") // a second copy of every page
		if !fileHolds(t, s.Path(), marker) {
			t.Fatal("the file does not hold the marker before the delete")
		}
		err := s.Update(context.Background(), "s", func(tx graph.Tx) error { return tx.DeleteEpisode("ep-0042") })
		if err != nil {
			t.Fatal(err)
		}
		if !fileHolds(t, s.Path(), marker) {
			t.Skip("bbolt left no free page with the marker: nothing to show")
		}
		if err := s.Scrub(context.Background()); err != nil {
			t.Fatal(err)
		}
		if fileHolds(t, s.Path(), marker) {
			t.Error("the file holds a deleted episode's text after Scrub")
		}
		// What is stored is untouched.
		err = s.View(context.Background(), "s", func(tx graph.Tx) error {
			e, err := tx.Episode("ep-0043")
			if err == nil && e.Content != "filler episode 43" {
				t.Errorf("ep-0043 after Scrub: %q", e.Content)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	t.Run("Reopen", func(t *testing.T) {
		// A crash between a purge's commit and its scrub leaves the file
		// as it is now; a copy of it stands for it. Open scrubs.
		s := mustOpen(t)
		ids := []string{"ep-0010", "ep-0100", "ep-0190"}
		for range 3 { // more copies than Open's own write reuses
			putEpisodes(t, s, 200, marker, ids...)
		}
		err := s.Update(context.Background(), "s", func(tx graph.Tx) error {
			for _, id := range ids {
				if err := tx.DeleteEpisode(id); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(s.Path())
		if err != nil {
			t.Fatal(err)
		}
		crashed := filepath.Join(t.TempDir(), "graph.db")
		if err := os.WriteFile(crashed, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if !fileHolds(t, crashed, marker) {
			t.Skip("bbolt left no free page with the marker: nothing to show")
		}
		r, err := bolt.Open(crashed)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if fileHolds(t, crashed, marker) {
			t.Error("the file holds a deleted episode's text after Open")
		}
		if err := r.Check(); err != nil {
			t.Error(err)
		}
	})
	t.Run("ErrReadOpen", func(t *testing.T) {
		// A read that began before the delete may still read the freed
		// pages: Scrub waits for it, and gives up when ctx ends.
		s := mustOpen(t)
		putEpisodes(t, s, 200, marker, "ep-0042")
		reading, done := make(chan struct{}), make(chan struct{})
		go s.View(context.Background(), "s", func(tx graph.Tx) error {
			close(reading)
			<-done
			_, err := tx.Episode("ep-0042")
			return err
		})
		<-reading
		err := s.Update(context.Background(), "s", func(tx graph.Tx) error { return tx.DeleteEpisode("ep-0042") })
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if err := s.Scrub(ctx); entity.ErrorCode(err) != entity.EUNAVAILABLE {
			t.Errorf("Scrub with a read open: %v, want EUNAVAILABLE", err)
		}
		close(done)
		if err := s.Scrub(context.Background()); err != nil {
			t.Fatal(err)
		}
		if fileHolds(t, s.Path(), marker) {
			t.Error("the file holds a deleted episode's text after Scrub")
		}
	})
}
