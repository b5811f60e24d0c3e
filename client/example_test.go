package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/client"
	"github.com/graphmem/graphmem/entity"
)

// A program that tells graphmem a fact that changed, asks for the context
// of a question now and as of a past date, walks the history page by page,
// and reads a refusal's fields. The README's "From Go" section is this
// program.
func Example() {
	ctx := context.Background()
	g := client.New("", client.WithAPIKey(os.Getenv("GRAPHMEM_API_KEY")))

	jan, mar := time.Date(2024, 1, 10, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	if _, err := g.AddFacts(ctx,
		wire.FactInput{Subject: "payments-db", Predicate: "port", Value: "5432", ValidFrom: &jan},
		wire.FactInput{Subject: "payments-db", Predicate: "port", Value: "3307", ValidFrom: &mar},
	); err != nil {
		log.Fatal(err)
	}

	for _, asOf := range []time.Time{{}, jan.AddDate(0, 0, 7)} {
		ans, err := g.Context(ctx, client.ContextRequest{Query: "Which port does payments-db listen on?", AsOf: asOf})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("3307:", strings.Contains(ans.Context, "3307"), "5432:", strings.Contains(ans.Context, "5432"))
	}

	for f, err := range g.Facts(ctx, client.FactQuery{Subject: "payments-db", IncludeHistory: true, Limit: 1}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(f.Value, f.ValidFrom.Format(time.DateOnly), f.Status)
	}

	_, err := g.AddFacts(ctx, wire.FactInput{Subject: "payments-db", Predicate: "port"})
	var e *entity.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Fields["facts[0].object"])
	}
	// Output:
	// 3307: true 5432: false
	// 3307: false 5432: true
	// 5432 2024-01-10 superseded
	// 3307 2024-03-01 current
	// invalid_argument required unless one of value is given
}

// TestExample_IsTheREADMEs: the README's "From Go" program is Example,
// line for line (comments aside), so the README shows code that runs.
func TestExample_IsTheREADMEs(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "## From Go")
	_, block, _ := strings.Cut(section, "```go\n")
	block, _, _ = strings.Cut(block, "```")
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(src), "func Example() {\n")
	body, _, _ = strings.Cut(body, "\t// Output:")
	code := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if i := strings.Index(l, " // "); i >= 0 {
				l = l[:i]
			}
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "//") {
				out = append(out, l)
			}
		}
		return out
	}
	want := code(body)
	got := code(block)
	if i := slices.Index(got, want[0]); i < 0 || !slices.Equal(got[i:i+min(len(want), len(got)-i)], want) {
		t.Errorf("the README's program is not Example's:\nREADME:\n%s\nExample:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
