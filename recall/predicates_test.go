package recall_test

import (
	"fmt"
	"testing"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/recall"
	"github.com/graphmem/graphmem/search"
)

// catalog writes a small service catalog: every entity has several facts
// that share words, so only the predicate tells them apart.
func catalog(tb testing.TB, e *env, scope string) {
	tb.Helper()
	f := func(s, st, p, o, ot, v, text, from string) memory.FactInput {
		return memory.FactInput{Subject: s, SubjectType: st, Predicate: p, Object: o, ObjectType: ot, Value: v, Text: text,
			ValidFrom: at(from), SourceKind: entity.UserExplicit, Cardinality: "one"}
	}
	e.add(tb, scope,
		f("Hiro Sato", "person", "reports_to", "Mia Berg", "person", "", "Hiro Sato reports to Mia Berg", "2023-01-01"),
		f("Hiro Sato", "person", "job_title", "", "", "Engineering Manager", "Hiro Sato works as Engineering Manager", "2023-01-01"),
		f("Hiro Sato", "person", "member_of", "Team Falcon", "team", "", "Hiro Sato is a member of Team Falcon", "2023-01-01"),
		f("Hiro Sato", "person", "located_in", "Berlin", "place", "", "Hiro Sato works from the Berlin office", "2023-01-01"),
		f("profiles-worker", "service", "owned_by", "Team Falcon", "team", "", "profiles-worker is owned by Team Falcon", "2023-02-01"),
		f("profiles-worker", "service", "deployed_in", "eu-west-1", "place", "", "profiles-worker is deployed in eu-west-1", "2023-02-01"),
		f("profiles-worker", "service", "uses_database", "profiles-db", "database", "", "profiles-worker keeps its data in profiles-db", "2023-02-01"),
		f("cart-api", "service", "deployed_in", "us-east-1", "place", "", "cart-api is deployed in us-east-1", "2023-02-01"),
		f("cart-api", "service", "owned_by", "Team Heron", "team", "", "cart-api is owned by Team Heron", "2023-02-01"),
		f("cart-api", "service", "port", "", "", "8443", "cart-api listens on port 8443", "2023-02-01"),
		f("shipping-api", "service", "uses_database", "orders-db", "database", "", "shipping-api keeps its data in orders-db", "2023-03-01"),
		f("shipping-api", "service", "deployed_in", "eu-central-1", "place", "", "shipping-api is deployed in eu-central-1", "2023-03-01"),
		f("shipping-api", "service", "had_incident", "", "", "lost its database connection pool", "shipping-api lost its database connection pool", "2023-05-01"),
		f("orders-db", "database", "runs_on", "", "", "PostgreSQL 16", "orders-db runs PostgreSQL 16", "2023-03-01"),
		f("orders-db", "database", "storage_size", "", "", "400 GB", "orders-db stores 400 GB", "2023-03-01"),
		f("Team Falcon", "team", "led_by", "Ana Costa", "person", "", "Team Falcon is led by Ana Costa", "2023-01-01"),
		f("Mia Berg", "person", "reports_to", "Ana Costa", "person", "", "Mia Berg reports to Ana Costa", "2023-01-01"),
		f("Team Falcon", "team", "budget", "", "", "$900k", "Team Falcon has a yearly budget of $900k", "2023-01-01"),
		f("identity-worker", "service", "memory_limit", "", "", "512Mi", "identity-worker has a memory limit of 512Mi", "2023-01-01"),
		f("identity-worker", "service", "memory_limit", "", "", "2Gi", "identity-worker has a memory limit of 2Gi", "2024-01-01"),
		f("identity-worker", "service", "cpu_limit", "", "", "500m", "identity-worker has a CPU limit of 500m", "2023-01-01"),
		f("identity-worker", "service", "rate_limit", "", "", "200 requests/s", "identity-worker has a rate limit of 200 requests/s", "2023-01-01"),
		f("identity-worker", "service", "had_incident", "", "", "hit its memory limit", "identity-worker was OOM-killed after it hit its memory limit", "2023-06-01"),
	)
}

func firstFact(res recall.SearchResult) *entity.Fact {
	for _, h := range res.Hits {
		if h.Fact != nil {
			return h.Fact
		}
	}
	return nil
}

// TestSearch_PredicateLinking: question words reach predicates through
// their stemmed names, the built-in lexicon (English and Chinese) and
// ontology synonyms; the asked fact is the first hit, before the card of
// the entity it is about.
func TestSearch_PredicateLinking(t *testing.T) {
	e := newEnv(t)
	catalog(t, e, "s")
	for _, tc := range []struct{ q, subject, predicate string }{
		{"who is Hiro Sato's manager?", "Hiro Sato", "reports_to"},
		{"who is the boss of Hiro Sato", "Hiro Sato", "reports_to"},
		{"Hiro Sato的上级是谁?", "Hiro Sato", "reports_to"},
		{"which team owns profiles-worker?", "profiles-worker", "owned_by"},
		{"where is cart-api hosted?", "cart-api", "deployed_in"},
		{"cart-api region", "cart-api", "deployed_in"},
		{"where does shipping-api store its data?", "shipping-api", "uses_database"},
		{"what engine does orders-db run?", "orders-db", "runs_on"},
		{"who leads Team Falcon?", "Team Falcon", "led_by"},
		{"who is Mia Berg's manager?", "Mia Berg", "reports_to"},
		{"who reports to Mia Berg?", "Hiro Sato", "reports_to"},
		{"what is the memory limit of identity-worker?", "identity-worker", "memory_limit"},
		{"what is the rate limit of identity-worker?", "identity-worker", "rate_limit"},
		{"what is the storage size of orders-db?", "orders-db", "storage_size"},
	} {
		t.Run(tc.q, func(t *testing.T) {
			res := e.search(t, "s", recall.SearchRequest{Query: tc.q})
			if len(res.Hits) == 0 || res.Hits[0].Fact == nil {
				t.Fatalf("first hit is not a fact: %+v", res.Hits)
			}
			f := res.Hits[0].Fact
			if f.Subject != tc.subject || f.Predicate != tc.predicate {
				t.Fatalf("first hit %s %s %s, want %s %s (signals %v)", f.Subject, f.Predicate, f.ObjectText(),
					tc.subject, tc.predicate, res.Hits[0].Signals)
			}
			if f.Predicate == "memory_limit" && f.Value != "2Gi" {
				t.Errorf("first hit is the superseded limit %s", f.Value)
			}
		})
	}

	t.Run("EntitiesOnly", func(t *testing.T) {
		res := e.search(t, "s", recall.SearchRequest{Query: "who is Hiro Sato's manager?", Types: []string{search.TypeEntity}})
		if len(res.Hits) == 0 || res.Hits[0].Entity == nil || res.Hits[0].Entity.Name != "Hiro Sato" {
			t.Fatalf("entities only: first hit %+v", res.Hits)
		}
	})

	t.Run("HistoryNeverAboveCurrent", func(t *testing.T) {
		res := e.search(t, "s", recall.SearchRequest{Query: "what was the memory limit of identity-worker before?", IncludeHistory: true})
		var limits []string
		for _, h := range res.Hits {
			if h.Fact != nil && h.Fact.Predicate == "memory_limit" {
				limits = append(limits, h.Fact.Value)
			}
		}
		if len(limits) != 2 || limits[0] != "2Gi" {
			t.Fatalf("memory limits in order %v, want the current 2Gi first, then 512Mi", limits)
		}
	})
}

// TestSearch_OntologySynonymsExtendLinking: an operator's ontology file
// links new words to a predicate through its synonyms, without code.
func TestSearch_OntologySynonymsExtendLinking(t *testing.T) {
	e := newEnv(t)
	catalog(t, e, "s")
	e.add(t, "s", memory.FactInput{Subject: "cart-api", Predicate: "sre_contact", Object: "Omar Ali", ObjectType: "person",
		// Older than the catalog's facts: without the synonym, nothing lifts it.
		Text: "Omar Ali is the SRE contact of cart-api", ValidFrom: at("2023-01-15"), SourceKind: entity.UserExplicit})
	q := recall.SearchRequest{Query: "who handles escalations for cart-api?"}
	if f := firstFact(e.search(t, "s", q)); f != nil && f.Predicate == "sre_contact" {
		t.Fatalf("sre_contact linked without a synonym; the test proves nothing")
	}
	onto, err := ontology.Parse([]byte(`predicates:
  - {name: sre_contact, cardinality: one, description: "Who to call when a service breaks.", synonyms: [escalation]}
`))
	if err != nil {
		t.Fatal(err)
	}
	e.engine.Ontology = onto
	f := firstFact(e.search(t, "s", q))
	if f == nil || f.Predicate != "sre_contact" {
		t.Fatalf("first fact %v, want sre_contact", f)
	}
}

// TestSearch_DiscriminatingTermsKept: words common across the scope
// ("memory", "limit" in thousands of facts) that tell one service's facts
// apart still reach the search.
func TestSearch_DiscriminatingTermsKept(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 2,500 facts")
	}
	e := newEnv(t)
	catalog(t, e, "s")
	var in []memory.FactInput
	for i := range 2500 {
		s := fmt.Sprintf("svc-%04d", i)
		p := []string{"memory_limit", "cpu_limit", "rate_limit"}[i%3]
		in = append(in, memory.FactInput{Subject: s, Predicate: p, Value: fmt.Sprint(i),
			Text: fmt.Sprintf("%s has a %s of %d with a memory and limit note", s, p, i), ValidFrom: at("2023-01-01"),
			SourceKind: entity.UserExplicit})
		if len(in) == entity.MaxBatch {
			e.add(t, "s", in...)
			in = nil
		}
	}
	e.add(t, "s", in...)
	res := e.search(t, "s", recall.SearchRequest{Query: "identity-worker memory limit"})
	f := firstFact(res)
	if f == nil || f.Subject != "identity-worker" || f.Predicate != "memory_limit" || f.Value != "2Gi" {
		t.Fatalf("first fact %+v, want identity-worker's memory limit 2Gi", f)
	}
	// "memory" is in every svc fact, but of identity-worker's facts only
	// in the memory limit: it must still count in the BM25 score.
	bm25 := map[string]float64{}
	for _, h := range res.Hits {
		if h.Fact != nil && h.Fact.Subject == "identity-worker" && h.Fact.ValidAt(e.now) {
			bm25[h.Fact.Predicate] = h.Signals["bm25"]
		}
	}
	if bm25["memory_limit"] < 1.2*bm25["cpu_limit"] {
		t.Errorf("BM25 of the memory limit %.3f, of the CPU limit %.3f: \"memory\" was dropped as common", bm25["memory_limit"], bm25["cpu_limit"])
	}
}
