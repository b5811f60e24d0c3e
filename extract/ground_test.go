package extract_test

import (
	"encoding/json"
	"testing"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/extract"
	"github.com/graphmem/graphmem/extract/extracttest"
	"github.com/graphmem/graphmem/fixtures"
)

// Every fact of the gold set, written as a model would write it, is
// grounded in its episode: grounding keeps out invention, not the facts a
// careful model finds (names as the episode or the known entities spell
// them, values as written, dates resolved).
func TestExtract_GroundingKeepsTheGoldFacts(t *testing.T) {
	cases, err := fixtures.ExtractGold()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if len(c.Facts) == 0 {
			continue
		}
		var facts []map[string]any
		for _, g := range c.Facts {
			f := map[string]any{"subject": g.Subject, "predicate": g.Predicate, "object": nil, "value": nil,
				"text": g.Subject + " " + g.Predicate + " " + g.Target(), "valid_from": nil, "valid_to": nil}
			if g.Object != "" {
				f["object"] = g.Object
			} else {
				f["value"] = g.Value
			}
			facts = append(facts, f)
		}
		b, _ := json.Marshal(map[string]any{"entities": []any{}, "facts": facts})
		srv := extracttest.NewServer(t, extracttest.Always(extracttest.Answer(string(b))))
		x, _ := MustNew(t, srv)
		out, _ := MustExtract(t, x, extract.Input{Episode: c.Episode, Known: c.Known})
		for _, d := range out.Dropped {
			if d.Reason == entity.DropNotGrounded {
				t.Errorf("%s: %s (%q)", c.ID, d.Detail, c.Episode.Content)
			}
		}
	}
}

// The answer of the bug report: well formed, made up. Its facts are
// dropped as not grounded, without a repair call (the model said what it
// meant), and the report says so.
func TestExtract_DropsUngroundedFacts(t *testing.T) {
	ep := entity.Episode{Content: "From March 1 our prod-db listens on port 3307 instead of 3306, because the old port clashed with the monitoring agent.",
		Speaker: "Sam", Role: "user", ReferenceTime: refTime}
	ans := `{"entities":[{"name":"100s","type":"thing","aliases":[]},{"name":"prod db","type":"service","aliases":[]}],
	"facts":[
	 {"subject":"100s","predicate":"is_staffed_by_me","object":"Sam","value":null,"text":"100s is staffed by me."},
	 {"subject":"prod-db","predicate":"port","object":null,"value":"5432","text":"prod-db port 5432"},
	 {"subject":"prod-db","predicate":"port","object":null,"value":"3307","text":"prod-db listens on port 3307"},
	 {"subject":"prod db","predicate":"port","object":null,"value":"3307","text":"prod-db listens on port 3307"},
	 {"subject":"Sam","predicate":"works_at","object":"Initech","value":null,"text":"Sam works at Initech"}]}`
	srv := extracttest.NewServer(t, extracttest.Always(extracttest.Answer(ans)))
	x, _ := MustNew(t, srv)
	out, u := MustExtract(t, x, extract.Input{Episode: ep})
	if u.Calls != 1 || out.Repaired {
		t.Errorf("calls %d repaired %v: ungrounded facts are dropped, not repaired", u.Calls, out.Repaired)
	}
	if out.Proposed != 5 || len(out.Facts) != 1 || out.Facts[0].Value != "3307" {
		t.Fatalf("proposed %d, facts %+v; want the port 3307 only", out.Proposed, out.Facts)
	}
	want := []string{entity.DropNotGrounded, entity.DropNotGrounded, entity.DropDuplicate, entity.DropNotGrounded}
	if len(out.Dropped) != len(want) {
		t.Fatalf("dropped %+v", out.Dropped)
	}
	for i, d := range out.Dropped {
		if d.Reason != want[i] || d.Detail == "" {
			t.Errorf("drop %d: %+v, want %s with a detail", i, d, want[i])
		}
	}

	// Every fact made up: no fact and no repair call.
	srv = extracttest.NewServer(t, extracttest.Always(extracttest.Answer(
		`{"entities":[],"facts":[{"subject":"100s","predicate":"is_staffed_by_me","object":null,"value":"yes","text":"x"}]}`)))
	x, _ = MustNew(t, srv)
	out, u = MustExtract(t, x, extract.Input{Episode: ep})
	if u.Calls != 1 || len(out.Facts) != 0 || len(out.Dropped) != 1 || out.Dropped[0].Reason != entity.DropNotGrounded {
		t.Errorf("calls %d facts %+v dropped %+v", u.Calls, out.Facts, out.Dropped)
	}
}
