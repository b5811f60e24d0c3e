package memory

import (
	"errors"
	"testing"
)

func TestPipeline(t *testing.T) {
	for _, n := range []int{0, 3, pipelineMin, 500} {
		var made, used []int
		err := pipeline(n, func(i int) int { made = append(made, i); return i * i }, func(i, v int) error {
			if v != i*i {
				t.Fatalf("n=%d: step %d got %d", n, i, v)
			}
			used = append(used, i)
			return nil
		})
		if err != nil || len(used) != n || len(made) != n {
			t.Fatalf("n=%d: err %v, used %d, made %d", n, err, len(used), len(made))
		}
		for i := range used {
			if used[i] != i || made[i] != i {
				t.Fatalf("n=%d: out of order at %d", n, i)
			}
		}
	}
	boom := errors.New("boom")
	made := 0
	err := pipeline(1000, func(i int) int { made++; return i }, func(i, _ int) error {
		if i == 20 {
			return boom
		}
		return nil
	})
	if err != boom || made == 1000 {
		t.Fatalf("err %v after %d made: want boom, and produce stopped early", err, made)
	}
	defer func() {
		if p := recover(); p != "bad step" {
			t.Fatalf("recovered %v", p)
		}
	}()
	_ = pipeline(100, func(i int) int {
		if i == 30 {
			panic("bad step")
		}
		return i
	}, func(int, int) error { return nil })
	t.Fatal("no panic")
}
