package recall_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/graphmem/graphmem/fixtures"
	"github.com/graphmem/graphmem/recall"
)

func TestZZShow(t *testing.T) {
	if os.Getenv("SHOW") == "" {
		t.Skip()
	}
	e := newEnv(t)
	e.now = day("2026-01-15")
	for _, name := range fixtures.Scenarios {
		in, err := fixtures.Facts(name)
		if err != nil {
			t.Fatal(err)
		}
		e.add(t, "demo", in...)
	}
	qs := []string{"why did booking-service move off MongoDB?", "What was the port of orders-service in March 2025?",
		"Who was Sam's manager before Bob?", "which port does the production database use?", "where did Alice Chen work?", "package manager"}
	for _, f := range []string{"text", "markdown"} {
		for _, q := range qs {
			res := e.context(t, "demo", recall.ContextRequest{Query: q, Format: f})
			fmt.Printf("### %s (%s, %d tokens)\n%s\n", q, f, res.Tokens, res.Context)
		}
	}
}
