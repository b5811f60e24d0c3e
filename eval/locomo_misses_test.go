package eval

import (
	"strings"
	"testing"
)

func TestMissedTurns(t *testing.T) {
	c := conversation{name: "x", turns: []turn{
		{DiaID: "D1:1", Speaker: "Ann", Text: "I took up pottery."},
		{DiaID: "D1:2", Speaker: "Bob", Text: "Nice!"},
		{DiaID: "D2:1", Speaker: "Ann", Text: "We went camping.", Caption: "a tent"},
	}}
	q := question{Question: "What does Ann do?", Evidence: []string{"D1:1; D2:1"}, Category: 1, Answer: []byte(`"pottery, camping"`)}
	var b strings.Builder
	missedTurns(&b, &c, q, []string{"D1:1", "D1:2", "D2:1"}, 3)
	if b.Len() != 0 {
		t.Fatalf("all evidence in the first 3, yet written:\n%s", b.String())
	}
	missedTurns(&b, &c, q, []string{"D1:2", "D1:1", "D2:1"}, 2)
	out := b.String()
	for _, want := range []string{
		`MISS x multi-hop "What does Ann do?"`,
		"want D1:1 rank 2",
		"want D2:1 rank 3  Ann (0001-01-01): We went camping. [shares an image: a tent]",
		"got  1 D1:2  Bob",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
