package recall_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/recall"
)

// unknownDemo is the README demo's people and services, and a gateway.
func unknownDemo(tb testing.TB, e *env, scope string) {
	tb.Helper()
	fact := func(subj, typ string, aliases []string, pred, obj, objType, value, text string) memory.FactInput {
		return memory.FactInput{Subject: subj, SubjectType: typ, SubjectAliases: aliases, Predicate: pred, Object: obj,
			ObjectType: objType, Value: value, Text: text, ValidFrom: at("2024-01-01"), SourceKind: entity.UserExplicit}
	}
	e.add(tb, scope,
		fact("Alice Chen", "person", nil, "works_at", "Acme Corp", "organization", "", "Alice Chen works at Acme Corp"),
		fact("Alice Chan", "person", nil, "works_at", "Umbrella", "organization", "", "Alice Chan works at Umbrella"),
		fact("Zed", "person", nil, "works_at", "Initech", "organization", "", "Zed works at Initech"),
		fact("Bob Lindqvist", "person", []string{"Bob"}, "works_at", "Globex", "organization", "", "Bob Lindqvist works at Globex"),
		fact("Bob Stone", "person", []string{"Bob"}, "lives_in", "Oslo", "place", "", "Bob Stone lives in Oslo"),
		fact("Sam Okafor", "person", nil, "likes", "", "", "Peter Tosh", "Sam Okafor likes Peter Tosh"),
		fact("production database", "service", nil, "port", "", "", "3307", "The production database listens on port 3307"),
		fact("gateway-service", "service", nil, "uses_database", "orders-db", "database", "", "gateway-service keeps its data in orders-db"),
		fact("gateway-service", "service", nil, "port", "", "", "8443", "gateway-service listens on port 8443"),
		fact("cart-api", "service", nil, "uses_database", "PostgreSQL", "database", "", "cart-api keeps its data in PostgreSQL"),
		fact("Sam Okafor", "person", []string{"Sam"}, "reports_to", "Bob Lindqvist", "person", "", "Sam Okafor reports to Bob Lindqvist"),
		fact("Sam Okafor", "person", []string{"Sam"}, "works_on", "orders-service", "service", "", "Sam Okafor works on orders-service"),
	)
}

func names(ns []recall.NameLink) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Name)
	}
	return out
}

func predicatesOf(res recall.ContextResult) []string {
	var out []string
	for _, f := range res.Facts {
		out = append(out, f.Fact.Predicate)
	}
	return out
}

// TestRecall_UnknownNames: a name that resolves to nothing is answered
// with "memory holds nothing about it", never with another entity's
// facts; names that resolve, typing errors and names memory holds only as
// words stay answered; an alias of two people is ambiguous.
func TestRecall_UnknownNames(t *testing.T) {
	e := newEnv(t)
	const scope = "demo"
	unknownDemo(t, e, scope)
	for _, tc := range []struct {
		q          string
		unresolved []string
		suggest    string // one of the candidates offered
		ambiguous  []string
		wantPred   string // a predicate the context must hold ("": none at all)
		notPred    string // a predicate it must not hold
	}{
		{q: "Where does Bob Marley work?", unresolved: []string{"Bob Marley"}, suggest: "Bob Lindqvist", notPred: "works_at"},
		{q: "what port does the staging database use?", unresolved: []string{"staging database"}, suggest: "production database", notPred: "port"},
		{q: "which database does zebra-gateway use", unresolved: []string{"zebra-gateway"}, suggest: "gateway-service", notPred: "uses_database"},
		{q: "Where does Alice Chen work?", wantPred: "works_at"},
		{q: "what port does the production database use?", wantPred: "port"},
		{q: "which database does gateway-service use", wantPred: "uses_database"},
		{q: "which database does gatway-service use", wantPred: "uses_database"},
		{q: "Where does Zed work?", wantPred: "works_at"},
		{q: "Who likes Peter Tosh?", wantPred: "likes"},
		{q: "Where does Bob live?", ambiguous: []string{"Bob"}, wantPred: "lives_in"},
		// Names written in lower case: a known name, then a word memory
		// does not hold after it, before the question's verb.
		{q: "where does bob marley work", unresolved: []string{"bob marley"}, suggest: "Bob Lindqvist", notPred: "works_at"},
		{q: "who is bob marley's manager", unresolved: []string{"bob marley"}, suggest: "Bob Lindqvist", notPred: "reports_to"},
		{q: "where does sam smith work", unresolved: []string{"sam smith"}, suggest: "Sam Okafor", notPred: "works_on"},
		{q: "where does alice wong work", unresolved: []string{"alice wong"}, suggest: "Alice Chen", notPred: "works_at"},
		{q: "where does bob lindqvist work", wantPred: "works_at"},
		{q: "where does alice chan work", wantPred: "works_at"},
		{q: "what port does the production database listen on", wantPred: "port"},
		{q: "who does sam report to", wantPred: "reports_to"},
		{q: "does bob lindqvist still work at globex", wantPred: "works_at"},
		{q: "what does sam okafor work on", wantPred: "works_on"},
		// A name written as a known variant of a stored one.
		{q: "Which service uses Postgres?", wantPred: "uses_database"},
		{q: "which service keeps its data in postgres", wantPred: "uses_database"},
	} {
		t.Run(tc.q, func(t *testing.T) {
			res := e.context(t, scope, recall.ContextRequest{Query: tc.q})
			sr := e.search(t, scope, recall.SearchRequest{Query: tc.q, Limit: 5})
			for _, got := range [][]recall.NameLink{res.Unresolved, sr.Unresolved} {
				if !slices.Equal(names(got), tc.unresolved) {
					t.Errorf("unresolved %q, want %q", names(got), tc.unresolved)
				}
			}
			if !slices.Equal(names(res.Ambiguous), tc.ambiguous) {
				t.Errorf("ambiguous %q, want %q", names(res.Ambiguous), tc.ambiguous)
			}
			preds := predicatesOf(res)
			if tc.wantPred != "" && !slices.Contains(preds, tc.wantPred) {
				t.Errorf("context facts %q, want a %s fact:\n%s", preds, tc.wantPred, res.Context)
			}
			if tc.notPred != "" {
				if slices.Contains(preds, tc.notPred) {
					t.Errorf("context answers with another entity's %s:\n%s", tc.notPred, res.Context)
				}
				for _, h := range sr.Hits {
					if h.Fact != nil && h.Fact.Predicate == tc.notPred {
						t.Errorf("search answers with another entity's %s: %s", tc.notPred, h.Text)
					}
				}
			}
			if len(tc.unresolved) > 0 {
				t.Log("\n" + res.Context)
				l := lineWith(res.Context, "[unknown] memory holds nothing about \""+tc.unresolved[0]+"\"")
				if l == "" || !strings.Contains(l, tc.suggest) {
					t.Errorf("no line saying memory holds nothing about %q (did you mean %s):\n%s", tc.unresolved[0], tc.suggest, res.Context)
				}
				if len(res.Unresolved) == 0 || !slices.Contains(res.Unresolved[0].Candidates, tc.suggest) {
					t.Errorf("unresolved %v, want %s among the candidates", res.Unresolved, tc.suggest)
				}
				if len(res.Facts) > 0 {
					t.Errorf("facts of other entities in the context: %q", preds)
				}
			}
		})
	}
}

// TestContext_UnknownFocus: a focus name memory knows nothing about is
// unresolved like a name of the question.
func TestContext_UnknownFocus(t *testing.T) {
	e := newEnv(t)
	const scope = "demo"
	unknownDemo(t, e, scope)
	res := e.context(t, scope, recall.ContextRequest{Query: "which port does it listen on?", Focus: []string{"zebra-gateway"}})
	if !slices.Equal(names(res.Unresolved), []string{"zebra-gateway"}) || len(res.Facts) > 0 {
		t.Errorf("unresolved %v, facts %q:\n%s", res.Unresolved, predicatesOf(res), res.Context)
	}
	res = e.context(t, scope, recall.ContextRequest{Query: "which port does it listen on?", Focus: []string{"gateway-service"}})
	if len(res.Unresolved) > 0 || !slices.Contains(predicatesOf(res), "port") {
		t.Errorf("unresolved %v, facts %q:\n%s", res.Unresolved, predicatesOf(res), res.Context)
	}
}

// anyCasingDemo is unknownDemo with a payments database, a booking
// service, two teams and databases of an engine each: names a question in
// lower case may run into.
func anyCasingDemo(tb testing.TB, e *env, scope string) {
	tb.Helper()
	unknownDemo(tb, e, scope)
	fact := func(subj, typ, pred, obj, objType, value, text string) memory.FactInput {
		return memory.FactInput{Subject: subj, SubjectType: typ, Predicate: pred, Object: obj, ObjectType: objType, Value: value,
			Text: text, ValidFrom: at("2024-01-01"), SourceKind: entity.UserExplicit}
	}
	e.add(tb, scope,
		fact("booking-service", "service", "uses_database", "payments-db", "database", "", "booking-service keeps its data in payments-db"),
		fact("payments-db", "database", "runs_on", "", "", "PostgreSQL 16", "payments-db runs on PostgreSQL 16"),
		fact("orders-db", "database", "runs_on", "", "", "MySQL 8", "orders-db runs on MySQL 8"),
		fact("Team Kite", "team", "led_by", "Alice Chen", "person", "", "Alice Chen leads Team Kite"),
		fact("Team Egret", "team", "led_by", "Zed", "person", "", "Zed leads Team Egret"),
		fact("Bob Lindqvist", "person", "reports_to", "Dana Whitfield", "person", "", "Bob Lindqvist reports to Dana Whitfield"),
	)
}

// TestRecall_NamesInAnyCasing: in a question written in lower case, a
// name memory does not hold is unresolved, not answered with another
// subject's facts, whether it looks like a person's ("bob marley") or a
// thing's ("zebra gateway", "payments api", "audit db", "team
// albatross"); known names are found in lower case, joined or with their
// words apart; a question that names nothing gains no unknown name.
func TestRecall_NamesInAnyCasing(t *testing.T) {
	e := newEnv(t)
	const scope = "casing"
	anyCasingDemo(t, e, scope)
	for _, tc := range []struct {
		q, unresolved string
		wantPred      string // a predicate the context must hold
		notPred       string // a predicate no fact of the context or search may have
		wantSubject   string // the subject of a fact of the context
	}{
		{q: "where does bob marley work", unresolved: "bob marley", notPred: "works_at"},
		{q: "which company employs bob marley", unresolved: "bob marley", notPred: "works_at"},
		{q: "which database does zebra gateway use", unresolved: "zebra gateway", notPred: "uses_database"},
		{q: "which database does payments api use", unresolved: "payments api", notPred: "uses_database"},
		{q: "what engine does audit db run on", unresolved: "audit db", notPred: "runs_on"},
		{q: "who leads team albatross", unresolved: "team albatross", notPred: "led_by"},
		{q: "which database does Bookingservice use", wantPred: "uses_database", wantSubject: "booking-service"},
		{q: "which database does bookingservice use", wantPred: "uses_database", wantSubject: "booking-service"},
		{q: "which database does booking service use", wantPred: "uses_database", wantSubject: "booking-service"},
		{q: "which database does cart api use", wantPred: "uses_database", wantSubject: "cart-api"},
		{q: "which database does cartapi use", wantPred: "uses_database", wantSubject: "cart-api"},
		{q: "what engine does payments db run on", wantPred: "runs_on", wantSubject: "payments-db"},
		{q: "who leads team kite", wantPred: "led_by", wantSubject: "Team Kite"},
		{q: "who is bob lindqvist's manager", wantPred: "reports_to", wantSubject: "Bob Lindqvist"},
		{q: "where does alice chen work", wantPred: "works_at", wantSubject: "Alice Chen"},
		{q: "what do we use for caching"},
		{q: "which service keeps its data in a database"},
		{q: "how do i deploy a new service"},
		{q: "which db does the gateway service use", wantPred: "uses_database", wantSubject: "gateway-service"},
	} {
		t.Run(tc.q, func(t *testing.T) {
			res := e.context(t, scope, recall.ContextRequest{Query: tc.q})
			sr := e.search(t, scope, recall.SearchRequest{Query: tc.q, Limit: 5})
			var want []string
			if tc.unresolved != "" {
				want = []string{tc.unresolved}
			}
			for _, got := range [][]recall.NameLink{res.Unresolved, sr.Unresolved} {
				if !slices.Equal(names(got), want) {
					t.Errorf("unresolved %q, want %q:\n%s", names(got), want, res.Context)
				}
			}
			preds := predicatesOf(res)
			if tc.wantPred != "" && !slices.ContainsFunc(res.Facts, func(f recall.ContextFact) bool {
				return f.Fact.Predicate == tc.wantPred && f.Fact.Subject == tc.wantSubject
			}) {
				t.Errorf("no %s fact of %s in the context:\n%s", tc.wantPred, tc.wantSubject, res.Context)
			}
			if tc.notPred != "" {
				if slices.Contains(preds, tc.notPred) {
					t.Errorf("context answers with another subject's %s:\n%s", tc.notPred, res.Context)
				}
				for _, h := range sr.Hits {
					if h.Fact != nil && h.Fact.Predicate == tc.notPred {
						t.Errorf("search answers with another subject's %s: %s", tc.notPred, h.Text)
					}
				}
			}
		})
	}
}
