package recall_test

import (
	"slices"
	"testing"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/recall"
)

// TestContext_SuccessorWithinSlack: asked why a value ended, the value of
// the same subject and predicate that began within a month of the end is
// shown as what replaced it, in the ended value's block; one that began
// later is not.
func TestContext_SuccessorWithinSlack(t *testing.T) {
	for _, tc := range []struct {
		start string
		joins bool
	}{
		{"2024-03-20", true},  // 19 days after the end
		{"2024-04-20", false}, // 50 days after
	} {
		t.Run(tc.start, func(t *testing.T) {
			e := newEnv(t)
			const scope = "repo:orders"
			fact := func(obj string, from, to string) memory.FactInput {
				f := memory.FactInput{Subject: "orders-service", SubjectType: "service", Predicate: "uses", Object: obj, ObjectType: "tool",
					ValidFrom: at(from), Text: "orders-service uses " + obj, SourceKind: entity.UserExplicit}
				if to != "" {
					f.ValidTo = at(to)
				}
				return f
			}
			ids := e.add(t, scope, fact("MongoDB", "2023-01-01", "2024-03-01"), fact("PostgreSQL", tc.start, ""))
			res := e.context(t, scope, recall.ContextRequest{Query: "why did orders-service stop using MongoDB?"})
			t.Logf("\n%s", res.Context)
			i := slices.IndexFunc(res.Facts, func(f recall.ContextFact) bool { return f.Fact.ID == ids[1].FactID })
			if joins := i >= 0 && res.Facts[i].Role == "history"; joins != tc.joins {
				t.Errorf("PostgreSQL from %s shown as what replaced MongoDB: %v, want %v:\n%s", tc.start, joins, tc.joins, res.Context)
			}
		})
	}
}

// TestRecall_NameStoredJoined: a name stored joined is linked when a
// question writes its words apart — a person's ("jo anne" for JoAnne:
// the same letters, no typing error, which people never get) and a
// thing's ("payment gateway" for PaymentGateway) — and its facts answer;
// a name sharing a word with one ("payment-router") is refused, answered
// with no other subject's facts.
func TestRecall_NameStoredJoined(t *testing.T) {
	e := newEnv(t)
	const scope = "joined"
	fact := func(subj, typ, pred, obj, objType, text string) memory.FactInput {
		return memory.FactInput{Subject: subj, SubjectType: typ, Predicate: pred, Object: obj, ObjectType: objType,
			ValidFrom: at("2024-01-01"), Text: text, SourceKind: entity.UserExplicit}
	}
	e.add(t, scope,
		fact("JoAnne", "person", "works_at", "Initech", "organization", "JoAnne works at Initech"),
		fact("Bob Stone", "person", "works_at", "Globex", "organization", "Bob Stone works at Globex"),
		fact("PaymentGateway", "service", "uses_database", "ledger-db", "database", "PaymentGateway keeps its data in ledger-db"),
		fact("cart-api", "service", "uses_database", "carts-db", "database", "cart-api keeps its data in carts-db"),
	)
	for _, tc := range []struct{ q, subject, pred string }{
		{"where does jo anne work", "JoAnne", "works_at"},
		{"Where does Jo Anne work?", "JoAnne", "works_at"},
		{"which database does payment gateway use", "PaymentGateway", "uses_database"},
	} {
		res := e.context(t, scope, recall.ContextRequest{Query: tc.q})
		if len(res.Unresolved) > 0 || !slices.ContainsFunc(res.Facts, func(f recall.ContextFact) bool {
			return f.Fact.Subject == tc.subject && f.Fact.Predicate == tc.pred
		}) {
			t.Errorf("%q: unresolved %q, no %s fact of %s:\n%s", tc.q, names(res.Unresolved), tc.pred, tc.subject, res.Context)
		}
	}
	res := e.context(t, scope, recall.ContextRequest{Query: "which database does payment-router use"})
	if !slices.Equal(names(res.Unresolved), []string{"payment-router"}) || len(res.Facts) > 0 {
		t.Errorf("payment-router: unresolved %q, facts %q:\n%s", names(res.Unresolved), predicatesOf(res), res.Context)
	}
}
