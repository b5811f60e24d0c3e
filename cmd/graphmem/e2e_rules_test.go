package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/entity"
)

func obj(subject, predicate, object string, kv ...any) map[string]any {
	f := map[string]any{"subject": subject, "predicate": predicate, "object": object, "source_kind": "user_explicit"}
	for i := 0; i+1 < len(kv); i += 2 {
		f[kv[i].(string)] = kv[i+1]
	}
	return f
}

func objects(fs []api.Fact) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Object+f.Value)
	}
	return out
}

// TestE2E_EndBeforeStart: "Frank no longer works at Initech from
// 2023-08-01" arrives before "Frank works at Initech since 2020-01-01", in
// separate requests. The end waits for its start; together they give one
// ended fact [2020-01-01, 2023-08-01), as in the other order.
func TestE2E_EndBeforeStart(t *testing.T) {
	c := newClient(t, MustRunMain(t, nil))
	r := c.postFacts(obj("Frank", "works_at", "Initech", "valid_to", "2023-08-01T00:00:00Z"))
	if r[0].Action != "ended" || !strings.Contains(r[0].Warning, "start") {
		t.Fatalf("an end with nothing to end: %+v, want ended with a warning", r[0])
	}
	if fs := c.facts("subject=Frank&include_history=true"); len(fs) != 0 {
		t.Fatalf("the waiting end became a fact: %+v", fs)
	}
	c.postFacts(obj("Frank", "works_at", "Initech", "valid_from", "2020-01-01T00:00:00Z"))
	fs := c.facts("subject=Frank&include_history=true")
	if len(fs) != 1 || fs[0].ValidFrom == nil || !fs[0].ValidFrom.Equal(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)) ||
		fs[0].ValidTo == nil || !fs[0].ValidTo.Equal(time.Date(2023, 8, 1, 0, 0, 0, 0, time.UTC)) || fs[0].Status != entity.StatusEnded {
		t.Fatalf("Frank at Initech: %+v, want [2020-01-01, 2023-08-01) ended", fs)
	}
	if got := objects(c.facts("subject=Frank&as_of=2021-06-01T00:00:00Z")); len(got) != 1 || got[0] != "Initech" {
		t.Errorf("as of 2021: %v", got)
	}
	if got := c.facts("subject=Frank"); len(got) != 0 {
		t.Errorf("Frank still works at Initech: %v", objects(got))
	}
}

// TestE2E_Correction: the start of Bob's ownership is restated later with
// another date. The later statement revises the interval (action
// corrected), Alice is the owner as of a day between the two dates, and the
// former belief stays visible with known_at.
func TestE2E_Correction(t *testing.T) {
	c := newClient(t, MustRunMain(t, nil))
	c.postFacts(obj("payments-service", "owned_by", "Alice", "valid_from", "2025-01-01T00:00:00Z"))
	c.postFacts(obj("payments-service", "owned_by", "Bob", "valid_from", "2025-09-01T00:00:00Z"))
	if got := objects(c.facts("subject=payments-service&as_of=2025-09-15T00:00:00Z")); len(got) != 1 || got[0] != "Bob" {
		t.Fatalf("before the correction, as of 2025-09-15: %v", got)
	}
	time.Sleep(5 * time.Millisecond)
	before := time.Now().UTC()
	time.Sleep(5 * time.Millisecond)
	r := c.postFacts(obj("payments-service", "owned_by", "Bob", "valid_from", "2025-10-01T00:00:00Z"))
	if r[0].Action != "corrected" {
		t.Fatalf("restating Bob's start: %+v, want corrected", r[0])
	}
	if got := objects(c.facts("subject=payments-service&as_of=2025-09-15T00:00:00Z")); len(got) != 1 || got[0] != "Alice" {
		t.Errorf("as of 2025-09-15 after the correction: %v, want Alice", got)
	}
	if got := objects(c.facts("subject=payments-service&as_of=2025-10-02T00:00:00Z")); len(got) != 1 || got[0] != "Bob" {
		t.Errorf("as of 2025-10-02: %v, want Bob", got)
	}
	then := c.facts("subject=payments-service&as_of=2025-09-15T00:00:00Z&known_at=" + before.Format(time.RFC3339Nano))
	if got := objects(then); len(got) != 1 || got[0] != "Bob" {
		t.Errorf("as known before the correction: %v, want Bob", got)
	}
	hist := c.facts("subject=payments-service&include_history=true")
	if len(hist) != 2 {
		t.Fatalf("history: %+v", hist)
	}
}

// TestE2E_StartUnknownAndTies: a value true since an unknown time answers
// every as_of before its end and is marked in the context; two values of a
// "one" predicate stated for the same instant are decided by the tie rule,
// whatever the order, and the context shows the conflict.
func TestE2E_StartUnknownAndTies(t *testing.T) {
	c := newClient(t, MustRunMain(t, nil))
	c.postFacts(obj("Dana", "lives_in", "Lisbon", "start_unknown", true))
	if got := objects(c.facts("subject=Dana&as_of=1990-01-01T00:00:00Z")); len(got) != 1 || got[0] != "Lisbon" {
		t.Fatalf("start unknown, as of 1990: %v", got)
	}
	var cr api.ContextResponse
	c.do("POST", "/v1/context", map[string]any{"query": "where does Dana live?"}).ok(t, 200, &cr)
	if !strings.Contains(cr.Context, "start unknown") {
		t.Errorf("context does not mark the unknown start:\n%s", cr.Context)
	}
	c.postFacts(obj("Dana", "lives_in", "Porto", "valid_from", "2022-03-01T00:00:00Z"))
	if got := objects(c.facts("subject=Dana&as_of=2021-01-01T00:00:00Z")); len(got) != 1 || got[0] != "Lisbon" {
		t.Errorf("as of 2021: %v, want Lisbon", got)
	}
	if got := objects(c.facts("subject=Dana")); len(got) != 1 || got[0] != "Porto" {
		t.Errorf("now: %v, want Porto (a later dated value ends an unknown start)", got)
	}
	if r := c.do("POST", "/v1/facts", map[string]any{"facts": []any{obj("Dana", "lives_in", "Faro", "start_unknown", true, "valid_from", "2020-01-01T00:00:00Z")}}); r.status != 400 ||
		!strings.Contains(string(r.body), "start_unknown") {
		t.Errorf("start_unknown with valid_from: %d %s", r.status, r.body)
	}

	tool := fact("", "port", "8080", "2024-05-01T00:00:00Z")
	tool["source_kind"] = "tool"
	user := fact("", "port", "8443", "2024-05-01T00:00:00Z")
	for _, subject := range []string{"gateway-a", "gateway-b"} {
		tool["subject"], user["subject"] = subject, subject
		var second []api.FactResult
		if subject == "gateway-a" {
			c.postFacts(tool)
			second = c.postFacts(user)
		} else {
			c.postFacts(user)
			second = c.postFacts(tool)
		}
		if !strings.Contains(second[0].Warning, "same instant") {
			t.Errorf("%s: the second value stated for the same instant gets no warning: %+v", subject, second[0])
		}
		if got := objects(c.facts("subject=" + subject + "&predicate=port")); len(got) != 1 || got[0] != "8443" {
			t.Errorf("%s: %v, want 8443 (the user's statement wins the tie)", subject, got)
		}
	}
	c.do("POST", "/v1/context", map[string]any{"query": "gateway-a port", "mode": "current"}).ok(t, 200, &cr)
	if !strings.Contains(cr.Context, `conflicting statement for the same time: "8080"`) {
		t.Errorf("context hides the same-instant conflict:\n%s", cr.Context)
	}
}

// TestIngestStartUnknown: a JSON Lines file can say a start is unknown,
// and an end alone waits for its start, as through the API.
func TestIngestStartUnknown(t *testing.T) {
	m := MustRunMain(t, nil)
	lines := `{"subject": "Erin", "predicate": "lives_in", "object": "Madrid", "start_unknown": true, "valid_to": "2019-01-01T00:00:00Z"}
{"subject": "Erin", "predicate": "works_at", "object": "Acme", "valid_to": "2022-01-01T00:00:00Z"}
{"subject": "Erin", "predicate": "works_at", "object": "Acme", "valid_from": "2020-01-01T00:00:00Z"}
`
	recs, bad, err := readIngest(strings.NewReader(lines))
	if err != nil || len(bad) > 0 {
		t.Fatal(err, bad)
	}
	sink := &httpSink{c: newAPIClient(Config{URL: "http://" + m.Addr()}, "")}
	counts, refused, err := writeIngest(context.Background(), recs, sink, 500, false, func(int) {})
	if err != nil || len(refused) > 0 {
		t.Fatal(err, refused)
	}
	if counts["ended"] != 1 || counts["created"] != 2 {
		t.Errorf("counts %v", counts)
	}
	c := newClient(t, m)
	if got := objects(c.facts("subject=Erin&as_of=1970-01-01T00:00:00Z")); len(got) != 1 || got[0] != "Madrid" {
		t.Errorf("as of 1970: %v, want Madrid (start unknown)", got)
	}
	if got := objects(c.facts("subject=Erin&as_of=2021-01-01T00:00:00Z")); len(got) != 1 || got[0] != "Acme" {
		t.Errorf("as of 2021: %v, want Acme", got)
	}
	if got := c.facts("subject=Erin"); len(got) != 0 {
		t.Errorf("now: %v, want nothing", objects(got))
	}
}
