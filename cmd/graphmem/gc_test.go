package main

import (
	"os"
	"runtime/debug"
	"testing"
)

func TestCollectLessOften(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, c := range []struct {
		gogc   string // "-": unset
		before int
		want   int
	}{
		{"-", 100, cachedGCPercent},
		{"-", 400, 400}, // higher already
		{"-", -1, -1},   // collection off stays off
		{"100", 100, 100},
		{"50", 50, 50}, // the operator's GOGC stands
	} {
		t.Setenv("GOGC", c.gogc) // restored after the test
		if c.gogc == "-" {
			if err := os.Unsetenv("GOGC"); err != nil {
				t.Fatal(err)
			}
		}
		debug.SetGCPercent(c.before)
		got := collectLessOften()
		if now := debug.SetGCPercent(c.before); got != c.want || now != c.want {
			t.Errorf("GOGC %s, target %d before: returned %d, target now %d, want %d", c.gogc, c.before, got, now, c.want)
		}
	}
}
