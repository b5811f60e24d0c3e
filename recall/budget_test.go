package recall_test

import (
	"strings"
	"testing"

	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/recall"
)

// The biggest fact memory accepts is shown shortened, with a marker, not
// dropped, and every format keeps to max_tokens and reports what it holds
// (a block never goes below its header: about 52 tokens in json).
func TestContext_OversizedFactAndHonestTokens(t *testing.T) {
	e := newEnv(t)
	subject := "svc-" + strings.Repeat("a", 196)
	e.add(t, "u",
		memory.FactInput{Subject: subject, Predicate: "port", Value: strings.Repeat("9 ", 1000), Text: strings.Repeat("the port of it ", 266)},
		memory.FactInput{Subject: "payments-db", Predicate: "port", Value: "5432", Text: "payments-db listens on port 5432"},
		memory.FactInput{Subject: "payments-db", Predicate: "runs_on", Value: "PostgreSQL 16", Text: "payments-db runs PostgreSQL 16"},
		memory.FactInput{Subject: "payments-db", Predicate: "deployed_in", Value: "eu-west-1", Text: "payments-db is hosted in eu-west-1"},
	)
	for _, max := range []int{0, 500} {
		res := e.context(t, "u", recall.ContextRequest{Query: "which port does " + subject + " use?", MaxTokens: max})
		if !strings.Contains(res.Context, "shortened]") || !strings.Contains(res.Context, subject[:40]) {
			t.Errorf("max_tokens %d: the oversized fact is not shown shortened:\n%s", max, res.Context)
		}
	}
	for _, format := range []string{recall.FormatText, recall.FormatMarkdown, recall.FormatJSON} {
		for _, max := range []int{64, 120, 400} {
			res := e.context(t, "u", recall.ContextRequest{Query: "what about payments-db?", MaxTokens: max, Format: format})
			if res.Tokens > max || recall.EstimateTokens(res.Context) != res.Tokens {
				t.Errorf("%s at max_tokens %d: %d tokens reported, %d in the block", format, max, res.Tokens, recall.EstimateTokens(res.Context))
			}
		}
	}
}
