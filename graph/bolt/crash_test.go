package bolt_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/bolt"
	"github.com/graphmem/graphmem/graph/graphtest"
)

// The crash test re-runs this test binary as a child that writes batches
// and prints "acked N" after batch N commits; the parent kills it with
// SIGKILL in mid-stream, reopens the file and checks that every batch the
// child acknowledged is there in full and the store is consistent.
const (
	crashEnvPath  = "GRAPHMEM_BOLT_CRASH_PATH"
	crashEnvFirst = "GRAPHMEM_BOLT_CRASH_FIRST"
	crashScope    = "crash:test"
	crashBatch    = 200 // facts per batch
	crashMax      = 2000
)

func TestCrash(t *testing.T) {
	if path := os.Getenv(crashEnvPath); path != "" {
		first, _ := strconv.Atoi(os.Getenv(crashEnvFirst))
		crashChild(path, first)
		return
	}
	rounds := 5
	if testing.Short() {
		rounds = 1
	}
	path := filepath.Join(t.TempDir(), "graph.db")
	var acked []int
	for round := range rounds {
		first := round * crashMax
		got, killed := runCrashChild(t, path, first, 4+3*round)
		t.Logf("round %d: %d batches acknowledged, killed mid-stream: %v", round, len(got), killed)
		acked = append(acked, got...)

		s, err := bolt.Open(path)
		if err != nil {
			t.Fatalf("reopen after kill: %v", err)
		}
		for _, n := range acked {
			checkBatch(t, s, n)
		}
		checkAtomic(t, s, got[len(got)-1]+1)
		if err := s.Check(); err != nil {
			t.Errorf("Check after kill: %v", err)
		}
		graphtest.CheckInvariants(t, s)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if t.Failed() {
			return
		}
	}
}

// runCrashChild starts a writer and kills it once it has acknowledged
// killAfter batches. It returns every batch acknowledged before death.
func runCrashChild(t *testing.T, path string, first, killAfter int) (acked []int, killed bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrash$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnvPath+"="+path, crashEnvFirst+"="+strconv.Itoa(first))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		n, ok := strings.CutPrefix(sc.Text(), "acked ")
		if !ok {
			continue // test framework chatter
		}
		b, err := strconv.Atoi(n)
		if err != nil {
			t.Fatalf("child said %q", sc.Text())
		}
		acked = append(acked, b)
		if len(acked) == killAfter && !killed {
			// Kill after a random few milliseconds, so the child dies
			// at varying points of a batch: encoding, inside bbolt's
			// commit, during fsync. Lines already in the pipe still
			// count: the child acknowledged them before it died.
			killed = true
			time.AfterFunc(time.Duration(rand.IntN(15_000))*time.Microsecond, func() {
				cmd.Process.Signal(syscall.SIGKILL)
			})
		}
	}
	err = cmd.Wait()
	if state := cmd.ProcessState; killed && state.Exited() {
		killed = false // it finished before the signal; still a valid run
	}
	if !killed && err != nil {
		t.Fatalf("child failed: %v\n%s", err, stderr.String())
	}
	if len(acked) < killAfter {
		t.Fatalf("child acknowledged %d batches, want at least %d\n%s", len(acked), killAfter, stderr.String())
	}
	return acked, killed
}

// crashChild writes batches until killed: each batch adds crashBatch new
// facts and an episode, and rewrites one "progress" episode, so index
// entries and change-sequence entries are both added and replaced.
func crashChild(path string, first int) {
	s, err := bolt.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(2)
	}
	ctx := context.Background()
	for n := first; n < first+crashMax; n++ {
		fs := graphtest.GenFacts(n*crashBatch, crashBatch)
		err := s.Update(ctx, crashScope, func(tx graph.Tx) error {
			if err := tx.PutFacts(fs); err != nil {
				return err
			}
			ep := graphtest.NewEpisode(fmt.Sprintf("batch-%06d", n), entity.EpisodeDone, graphtest.Day(n))
			ep.FactIDs = []string{fs[0].ID, fs[len(fs)-1].ID}
			if err := tx.PutEpisode(ep); err != nil {
				return err
			}
			progress := graphtest.NewEpisode("progress", entity.EpisodeQueued, graphtest.Day(n))
			progress.Attempts = n
			return tx.PutEpisode(progress)
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "update:", err)
			os.Exit(2)
		}
		// os.Stdout is unbuffered: once this returns, the parent can read it.
		fmt.Printf("acked %d\n", n)
	}
	s.Close()
	os.Exit(0)
}

func checkBatch(t *testing.T, s graph.Store, n int) {
	t.Helper()
	want := graphtest.GenFacts(n*crashBatch, crashBatch)
	err := s.View(context.Background(), crashScope, func(tx graph.Tx) error {
		for _, w := range want {
			got, err := tx.Fact(w.ID)
			if err != nil {
				return fmt.Errorf("batch %d: fact %s: %w", n, w.ID, err)
			}
			if got.Text != w.Text || got.SubjectID != w.SubjectID || len(got.Claims) != len(w.Claims) {
				return fmt.Errorf("batch %d: fact %s differs: %+v", n, w.ID, got)
			}
		}
		if _, err := tx.Episode(fmt.Sprintf("batch-%06d", n)); err != nil {
			return fmt.Errorf("batch %d: %w", n, err)
		}
		p, err := tx.Episode("progress")
		if err != nil {
			return err
		}
		if p.Attempts < n {
			return fmt.Errorf("progress episode at batch %d, batch %d was acknowledged", p.Attempts, n)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// checkAtomic checks that batch n, which the child may or may not have
// committed before it died, is there entirely or not at all.
func checkAtomic(t *testing.T, s graph.Store, n int) {
	t.Helper()
	present := 0
	err := s.View(context.Background(), crashScope, func(tx graph.Tx) error {
		for _, f := range graphtest.GenFacts(n*crashBatch, crashBatch) {
			if _, err := tx.Fact(f.ID); err == nil {
				present++
			}
		}
		if _, err := tx.Episode(fmt.Sprintf("batch-%06d", n)); err == nil {
			present++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if present != 0 && present != crashBatch+1 {
		t.Errorf("batch %d, unacknowledged, is partly there: %d of %d records", n, present, crashBatch+1)
	}
}
