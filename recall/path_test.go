package recall_test

import (
	"strings"
	"testing"

	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/recall"
)

// pathCatalog is a small service catalog: services, teams, people and a
// database, with a lead that changed.
func pathCatalog(t *testing.T) *env {
	e := newEnv(t)
	e.now = day("2025-09-01")
	one := ontology.One
	e.add(t, "u",
		memory.FactInput{Subject: "cart-api", SubjectType: "service", Predicate: "owned_by", Object: "search team", ObjectType: "team", ValidFrom: at("2024-01-01"), Cardinality: one},
		memory.FactInput{Subject: "search team", SubjectType: "team", Predicate: "led_by", Object: "Frank Ode", ObjectType: "person", ValidFrom: at("2024-01-01"), Cardinality: one},
		memory.FactInput{Subject: "search team", SubjectType: "team", Predicate: "led_by", Object: "Bob Aziz", ObjectType: "person", ValidFrom: at("2025-06-01"), Cardinality: one},
		memory.FactInput{Subject: "Bob Aziz", SubjectType: "person", Predicate: "reports_to", Object: "Carol Lim", ObjectType: "person", ValidFrom: at("2024-01-01"), Cardinality: one},
		memory.FactInput{Subject: "cart-api", SubjectType: "service", Predicate: "on_call", Object: "Dana Ruiz", ObjectType: "person", ValidFrom: at("2024-01-01"), Cardinality: one},
		memory.FactInput{Subject: "Dana Ruiz", SubjectType: "person", Predicate: "reports_to", Object: "Erin Park", ObjectType: "person", ValidFrom: at("2024-01-01"), Cardinality: one},
		memory.FactInput{Subject: "cart-api", SubjectType: "service", Predicate: "uses_database", Object: "orders-db", ObjectType: "database", ValidFrom: at("2024-01-01"), Cardinality: one},
		memory.FactInput{Subject: "orders-db", SubjectType: "database", Predicate: "version", Value: "PostgreSQL 15.4", ValidFrom: at("2024-01-01"), Cardinality: one},
		memory.FactInput{Subject: "payments-api", SubjectType: "service", Predicate: "owned_by", Object: "billing team", ObjectType: "team", ValidFrom: at("2024-01-01"), Cardinality: one},
		memory.FactInput{Subject: "billing team", SubjectType: "team", Predicate: "slack_channel", Value: "#billing", ValidFrom: at("2024-01-01"), Cardinality: one},
		memory.FactInput{Subject: "Erin Park", SubjectType: "person", Predicate: "reports_to", Object: "Gus Hale", ObjectType: "person", ValidFrom: at("2024-01-01"), Cardinality: one},
		memory.FactInput{Subject: "orders-db", SubjectType: "database", Predicate: "backup_schedule", Value: "nightly at 02:00 UTC", ValidFrom: at("2024-01-01"), Cardinality: one},
		memory.FactInput{Subject: "Dana Ruiz", SubjectType: "person", Predicate: "member_of", Object: "platform team", ObjectType: "team", ValidFrom: at("2024-01-01"), Cardinality: one},
		memory.FactInput{Subject: "Hana Sato", SubjectType: "person", Predicate: "member_of", Object: "search team", ObjectType: "team", ValidFrom: at("2024-01-01"), Cardinality: one},
		memory.FactInput{Subject: "checkout-api", SubjectType: "service", Predicate: "on_call", Object: "Hana Sato", ObjectType: "person", ValidFrom: at("2024-01-01"), Cardinality: one},
		memory.FactInput{Subject: "reports-api", SubjectType: "service", Predicate: "on_call", Object: "Ivan Kim", ObjectType: "person", ValidFrom: at("2024-01-01"), Cardinality: one},
		memory.FactInput{Subject: "Ivan Kim", SubjectType: "person", Predicate: "reports_to", Object: "Erin Park", ObjectType: "person", ValidFrom: at("2024-01-01"), Cardinality: one},
	)
	return e
}

// A question that crosses an entity gets every fact of its path, in walk
// order with the answer last, and a line showing the chain.
func TestContext_Walk(t *testing.T) {
	e := pathCatalog(t)
	for _, c := range []struct {
		q      string
		preds  []string
		answer string
	}{
		{"who leads the team that owns cart-api?", []string{"owned_by", "led_by"}, "Bob Aziz"},
		{"who's the lead of cart-api's owning team?", []string{"owned_by", "led_by"}, "Bob Aziz"},
		{"who does the on-call engineer for cart-api report to?", []string{"on_call", "reports_to"}, "Erin Park"},
		{"which version of the database that cart-api uses do we run?", []string{"uses_database", "version"}, "PostgreSQL 15.4"},
		{"who is the manager of the lead of the team that owns cart-api?", []string{"owned_by", "led_by", "reports_to"}, "Carol Lim"},
		{"in March 2025, who led the team that owned cart-api?", []string{"owned_by", "led_by"}, "Frank Ode"},
		{"cart-api所属团队的负责人是谁?", []string{"owned_by", "led_by"}, "Bob Aziz"},
		// A word only one predicate holds names its hop before one
		// several hold ("in charge": owned_by and led_by).
		{"who is in charge of the squad accountable for cart-api?", []string{"owned_by", "led_by"}, "Bob Aziz"},
		// "what team": the path ends at a team, not at the service some
		// member of the owning team is on call for.
		{"what team does the person on call for cart-api belong to?", []string{"on_call", "affiliated_to"}, "platform team"},
		// Idioms: a skip-level is a manager's manager; backed up, a backup.
		{"who is Dana Ruiz's skip-level?", []string{"reports_to", "reports_to"}, "Gus Hale"},
		{"when is the database behind cart-api backed up?", []string{"uses_database", "backup_schedule"}, "nightly at 02:00 UTC"},
		// "report" in the anchor's name still names the hop elsewhere.
		{"who does the on-call engineer for reports-api report to?", []string{"on_call", "reports_to"}, "Erin Park"},
	} {
		res := e.context(t, "u", recall.ContextRequest{Query: c.q})
		if len(res.Paths) != 1 {
			t.Errorf("%q: %d paths, want 1:\n%s", c.q, len(res.Paths), res.Context)
			continue
		}
		p := res.Paths[0]
		var preds []string
		for _, h := range p.Hops {
			preds = append(preds, h.Predicate)
		}
		if strings.Join(preds, ",") != strings.Join(c.preds, ",") || !p.Complete || p.Hops[len(p.Hops)-1].To != c.answer {
			t.Errorf("%q: path %+v, want %v to %s", c.q, p, c.preds, c.answer)
		}
		if !strings.Contains(res.Context, "[path]") || !strings.Contains(res.Context, c.answer) {
			t.Errorf("%q: the block lacks the chain or the answer:\n%s", c.q, res.Context)
		}
	}
}

// A direct question is no path; a broken one says where it broke, and no
// other subject's fact stands in for the missing hop.
func TestContext_WalkBroken(t *testing.T) {
	e := pathCatalog(t)
	res := e.context(t, "u", recall.ContextRequest{Query: "who leads the search team?"})
	if len(res.Paths) != 0 {
		t.Errorf("a direct question walked: %+v", res.Paths)
	}
	res = e.context(t, "u", recall.ContextRequest{Query: "who leads the team that owns payments-api?"})
	if len(res.Paths) != 1 || res.Paths[0].Complete || res.Paths[0].Missing != "led_by" {
		t.Fatalf("broken path: %+v\n%s", res.Paths, res.Context)
	}
	if !strings.Contains(res.Context, `memory holds no led_by for "billing team"`) {
		t.Errorf("the block does not say where the path broke:\n%s", res.Context)
	}
	for _, f := range res.Facts {
		if f.Fact.Predicate == "led_by" {
			t.Errorf("another team's lead stands in for the missing hop: %s", f.Fact.Text)
		}
	}
}
