package bolt

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// TestGroupCommit holds one Update open until 63 more are waiting, then
// lets them go: the waiting ones commit in one transaction, except one
// that fails and one that panics, which run alone and leave nothing
// behind, while their callers get their own error and panic.
func TestGroupCommit(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const n = 64
	const failing, panicking = 10, 20
	errFail := errors.New("refused")
	put := func(tx graph.Tx, i int) error {
		return tx.PutEntities([]entity.Entity{{ID: fmt.Sprintf("e%02d", i), Name: fmt.Sprintf("entity %d", i)}})
	}
	var (
		mu      sync.Mutex
		commits = map[*bbolt.Tx]int{} // transactions that committed, and the calls in each
		runs    = map[int]int{}       // runs of each call's function
		errs    = make([]error, n)
		panics  = make([]any, n)
		wg      sync.WaitGroup
	)
	release := make(chan struct{})
	record := func(gtx graph.Tx, i int) {
		mu.Lock()
		defer mu.Unlock()
		runs[i]++
		btx := gtx.(*tx).btx
		btx.OnCommit(func() {
			mu.Lock()
			defer mu.Unlock()
			commits[btx]++
		})
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		errs[0] = s.Update(ctx, "a", func(tx graph.Tx) error {
			<-release
			record(tx, 0)
			return put(tx, 0)
		})
	}()
	waiting := func() (int, bool) {
		s.group.mu.Lock()
		defer s.group.mu.Unlock()
		return len(s.group.queue), s.group.leading
	}
	for q, leading := waiting(); q != 0 || !leading; q, leading = waiting() {
		time.Sleep(time.Millisecond) // the first Update runs alone
	}
	for i := 1; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { panics[i] = recover() }()
			errs[i] = s.Update(ctx, "a", func(tx graph.Tx) error {
				record(tx, i)
				if err := put(tx, i); err != nil {
					return err
				}
				switch i {
				case failing:
					return errFail
				case panicking:
					var m map[string]int
					m["boom"]++ // a nil map write: a panic
				}
				return nil
			})
		}()
	}
	for q, _ := waiting(); q != n-1; q, _ = waiting() {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()

	for i := range n {
		want := error(nil)
		if i == failing {
			want = errFail
		}
		if !errors.Is(errs[i], want) {
			t.Errorf("Update %d: %v, want %v", i, errs[i], want)
		}
		if (panics[i] != nil) != (i == panicking) {
			t.Errorf("Update %d: panic %v", i, panics[i])
		}
	}
	// The first alone, the waiting ones but two together, then the two
	// failing ones alone (their commits roll back).
	sizes := map[int]int{}
	for _, calls := range commits {
		sizes[calls]++
	}
	if len(commits) != 2 || sizes[1] != 1 || sizes[n-3] != 1 {
		t.Errorf("calls per committed transaction: %v, want one of 1 and one of %d", sizes, n-3)
	}
	for _, i := range []int{failing, panicking} {
		if runs[i] != 2 {
			t.Errorf("call %d ran %d times, want 2 (in the group, then alone)", i, runs[i])
		}
	}
	err = s.View(ctx, "a", func(tx graph.Tx) error {
		for i := range n {
			_, err := tx.Entity(fmt.Sprintf("e%02d", i))
			switch {
			case i == failing || i == panicking:
				if entity.ErrorCode(err) != entity.ENOTFOUND {
					t.Errorf("entity %d of a failed Update: %v", i, err)
				}
			case err != nil:
				t.Errorf("entity %d: %v", i, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}
