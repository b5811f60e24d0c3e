package bolt

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/graphtest"
)

// mappedKB is how much of the file at path the process holds resident
// through its mapping, from /proc/self/smaps.
func mappedKB(tb testing.TB, path string) int {
	tb.Helper()
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		tb.Skipf("no /proc: %v", err)
	}
	in, kb := false, 0
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			in = strings.HasSuffix(line, path)
		} else if v, ok := strings.CutPrefix(line, "Rss:"); ok && in {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			kb += n
		}
	}
	return kb
}

// TestStore_Trim: after 40 MB of writes and a read of all of it, the
// process does not hold the whole file resident once the change feed (what
// the indexes follow) has been read: what a bulk write and the index
// reading it back touch is let go every trimEvery. A question's read does
// not trim: its pages stay mapped for the next question.
func TestStore_Trim(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 40 MB")
	}
	path := filepath.Join(t.TempDir(), "graph.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for i := 0; i < 40000; i += 1000 {
		fs := graphtest.GenFacts(i, 1000)
		if err := s.Update(ctx, "b", func(tx graph.Tx) error { return tx.PutFacts(fs) }); err != nil {
			t.Fatal(err)
		}
	}
	readAll := func() {
		err := s.View(ctx, "b", func(tx graph.Tx) error {
			_, _, err := tx.Facts(graph.FactFilter{Limit: 40000})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	readAll()
	time.Sleep(trimEvery)
	if _, err := s.Changes(ctx, 0, 1); err != nil { // the feed trims
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if kb := mappedKB(t, path); kb > 4<<10 {
		t.Errorf("%d MB of the %d MB file resident after the feed's read", kb>>10, st.Size()>>20)
	}
	readAll()
	time.Sleep(trimEvery)
	readAll()
	if kb := mappedKB(t, path); kb < 8<<10 {
		t.Errorf("%d MB of the %d MB file resident after reads: a question's read trimmed", kb>>10, st.Size()>>20)
	}
}
