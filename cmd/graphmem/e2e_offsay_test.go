package main

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/ontology"
)

// TestE2E_SaysWhatIsOff: a server without an extraction model says so when
// it starts and on every episode it accepts; a predicate the ontology does
// not define is accepted with a warning that it became "many"; the
// ontology can be read.
func TestE2E_SaysWhatIsOff(t *testing.T) {
	var logs syncBuffer
	m := MustRunMain(t, func(m *Main) { m.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	if !strings.Contains(logs.String(), "extraction is off") {
		t.Errorf("start-up log does not say extraction is off:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "embeddings are off") {
		t.Errorf("start-up log does not say embeddings are off:\n%s", logs.String())
	}
	c := newClient(t, m)

	var ep api.EpisodeAccepted
	c.do("POST", "/v1/episodes", map[string]any{"content": "We moved the database to port 3307."}).ok(t, 202, &ep)
	if !strings.Contains(ep.Warning, "no extraction model") {
		t.Errorf("episode accepted without a model: %+v", ep)
	}

	r := c.postFacts(fact("payments-db", "replica_lag_budget", "5s", ""), fact("payments-db", "port", "3307", ""))
	if !strings.Contains(r[0].Warning, "replica_lag_budget") || !strings.Contains(r[0].Warning, `"many"`) {
		t.Errorf("unknown predicate: warning %q", r[0].Warning)
	}
	if r[1].Warning != "" {
		t.Errorf("known predicate: warning %q", r[1].Warning)
	}

	var onto ontology.Description
	c.do("GET", "/v1/ontology", nil).ok(t, 200, &onto)
	var port *ontology.PredicateDescription
	for i, p := range onto.Predicates {
		if p.Name == "port" {
			port = &onto.Predicates[i]
		}
	}
	if port == nil || port.Cardinality != ontology.One || len(onto.EntityTypes) == 0 || onto.Unknown == "" {
		t.Fatalf("ontology: port %+v, %d entity types, unknown %q", port, len(onto.EntityTypes), onto.Unknown)
	}
	var synonyms, ttl bool
	for _, p := range onto.Predicates {
		synonyms = synonyms || len(p.Synonyms) > 0
		ttl = ttl || p.TTL != nil
	}
	for _, e := range onto.EntityTypes {
		ttl = ttl || e.TTL != nil
	}
	if !synonyms {
		t.Error("no predicate lists synonyms")
	}
	t.Logf("some TTL listed: %v", ttl)
}
