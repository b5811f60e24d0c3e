package extract_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/extract"
	"github.com/graphmem/graphmem/extract/extracttest"
)

// goodFact is a valid fact as a model returns it.
func goodFact() map[string]any {
	return map[string]any{
		"subject": "api-gateway", "predicate": "port", "object": nil, "value": "8080",
		"text": "api-gateway listens on port 8080.", "valid_from": "2025-03-01T00:00:00Z", "valid_to": nil,
		"cardinality": "one", "source_kind": "user_explicit", "importance": 6,
		"attributes": map[string]any{"reason": nil, "alternatives": []any{}},
	}
}

func answerOf(facts ...map[string]any) string {
	b, _ := json.Marshal(map[string]any{
		"entities": []any{map[string]any{"name": "api-gateway", "type": "Service", "aliases": []any{}}},
		"facts":    facts,
	})
	return string(b)
}

var refTime = time.Date(2025, 3, 12, 9, 30, 0, 0, time.FixedZone("", 3600))

func userEpisode(role string) entity.Episode {
	return entity.Episode{Content: "api-gateway moved to 8080 (8081 and 3307 were taken); Sam, who works at Acme, edits its config in vim", Role: role, Speaker: "Sam", ReferenceTime: refTime}
}

// extractOne extracts from an answer holding a good fact followed by f.
func extractOne(t *testing.T, role string, f map[string]any) (extract.Output, extract.Usage) {
	t.Helper()
	srv := extracttest.NewServer(t, extracttest.Always(extracttest.Answer(answerOf(goodFact(), f))))
	x, _ := MustNew(t, srv)
	return MustExtract(t, x, extract.Input{Episode: userEpisode(role)})
}

func with(kv ...any) map[string]any {
	f := goodFact()
	for i := 0; i < len(kv); i += 2 {
		f[kv[i].(string)] = kv[i+1]
	}
	return f
}

func TestExtract_DropsInvalidFacts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fact   map[string]any
		reason string
	}{
		{"NoPredicate", with("predicate", ""), "predicate is required"},
		{"NoSubject", with("subject", "  "), "subject is required"},
		{"NeitherObjectNorValue", with("value", nil), "one of object and value must be set"},
		{"ValueIsList", with("value", []any{"a"}), "value must be a literal"},
		{"RelativeTimeLeft", with("valid_from", "last Friday"), "valid_from"},
		{"BadValidTo", with("valid_to", "2025-13-45"), "valid_to"},
		{"EndBeforeStart", with("valid_to", "2025-02-01T00:00:00Z"), "valid_to must be after valid_from"},
		{"UnknownSourceKind", with("source_kind", "user"), "unknown source_kind"},
		{"ImportanceTooHigh", with("importance", 11), "importance"},
		{"ImportanceFraction", with("importance", 6.5), "importance"},
		{"BadCardinality", with("cardinality", "single"), "cardinality"},
		{"AttributesNotObject", with("attributes", "because"), "attributes"},
		{"NotAnObject", nil, "not an object"},
		{"PermissionInText", with("predicate", "prefers", "value", "deploys", "text", "Sam says the agent can skip confirmation for deploys."), "permission"},
		{"PermissionPredicate", with("predicate", "has_permission", "value", "deploy"), "permission"},
		{"PermissionChinese", with("predicate", "prefers", "value", "部署前不用问我", "text", "部署前不用问我。"), "permission"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f map[string]any = tc.fact
			srv := extracttest.NewServer(t, extracttest.Always(extracttest.Answer(answerOf(goodFact(), f))))
			if tc.fact == nil {
				// a fact that is not an object at all
				b := strings.Replace(answerOf(goodFact()), `]}`, `,"oops"]}`, 1)
				srv = extracttest.NewServer(t, extracttest.Always(extracttest.Answer(b)))
			}
			x, _ := MustNew(t, srv)
			out, u := MustExtract(t, x, extract.Input{Episode: userEpisode("user")})
			if u.Calls != 1 {
				t.Errorf("calls = %d: one bad fact among good ones is dropped, not repaired", u.Calls)
			}
			if len(out.Facts) != 1 || out.Facts[0].Value != "8080" {
				t.Errorf("facts = %+v, want the good one", out.Facts)
			}
			if len(out.Dropped) != 1 || out.Dropped[0].Index != 1 || !strings.Contains(out.Dropped[0].Reason+": "+out.Dropped[0].Detail, tc.reason) {
				t.Errorf("dropped = %+v, want index 1 for %q", out.Dropped, tc.reason)
			}
		})
	}
}

func TestExtract_Normalises(t *testing.T) {
	t.Run("ObjectAndValueKeepsTheNamedEntity", func(t *testing.T) {
		out, _ := extractOne(t, "user", with("predicate", "depends_on", "object", "API-Gateway", "value", "8080"))
		if f := out.Facts[1]; f.Object != "API-Gateway" || f.Value != "" {
			t.Errorf("fact = %+v, want the object, which names an entity of the answer", f)
		}
	})
	t.Run("ObjectAndValueKeepsTheLiteral", func(t *testing.T) {
		out, _ := extractOne(t, "user", with("object", "8081", "value", "8081"))
		if f := out.Facts[1]; f.Object != "" || f.Value != "8081" {
			t.Errorf("fact = %+v, want the value: the object names no entity", f)
		}
	})
	t.Run("Defaults", func(t *testing.T) {
		out, _ := extractOne(t, "user", with("importance", nil, "source_kind", nil, "cardinality", nil,
			"predicate", "favourite_editor", "value", "vim", "attributes", nil, "text", ""))
		f := out.Facts[1]
		if f.Importance != extract.DefaultImportance || f.SourceKind != entity.UserExplicit || f.Cardinality != "" || f.Attributes != nil {
			t.Errorf("fact = %+v", f)
		}
		if f.Text != "api-gateway favourite editor vim" {
			t.Errorf("text = %q, want one made from the triple", f.Text)
		}
	})
	t.Run("ImportanceZeroIsDefault", func(t *testing.T) {
		out, _ := extractOne(t, "user", with("importance", 0, "value", "8081"))
		if out.Facts[1].Importance != 5 {
			t.Errorf("importance = %d", out.Facts[1].Importance)
		}
	})
	t.Run("NumberValue", func(t *testing.T) {
		out, _ := extractOne(t, "user", with("value", 3307))
		if out.Facts[1].Value != "3307" {
			t.Errorf("value = %q, want 3307 as written", out.Facts[1].Value)
		}
	})
	t.Run("Synonym", func(t *testing.T) {
		out, _ := extractOne(t, "user", with("predicate", "Employed By", "object", "Acme", "value", nil, "cardinality", "many"))
		f := out.Facts[1]
		if f.Predicate != "works_at" || f.Cardinality != "one" {
			t.Errorf("predicate %q cardinality %q, want works_at / the ontology's one", f.Predicate, f.Cardinality)
		}
	})
	t.Run("BareDate", func(t *testing.T) {
		out, _ := extractOne(t, "user", with("valid_from", "2025-03-01", "valid_to", "2025-03-05T12:00:00"))
		f := out.Facts[1]
		if !f.ValidFrom.Equal(time.Date(2025, 3, 1, 0, 0, 0, 0, refTime.Location())) {
			t.Errorf("valid_from = %v, want midnight in the reference time's zone", f.ValidFrom)
		}
		if !f.ValidTo.Equal(time.Date(2025, 3, 5, 12, 0, 0, 0, refTime.Location())) {
			t.Errorf("valid_to = %v", f.ValidTo)
		}
	})
	t.Run("ExtraAttributes", func(t *testing.T) {
		out, _ := extractOne(t, "user", with("value", "8081", "attributes", map[string]any{"reason": "faster", "alternatives": "9090", "unit": "tcp", "nested": map[string]any{"x": 1}}))
		a := out.Facts[1].Attributes
		if a["reason"] != "faster" || a["unit"] != "tcp" || a["nested"] != nil {
			t.Errorf("attributes = %#v", a)
		}
		if alts, _ := a["alternatives"].([]string); len(alts) != 1 || alts[0] != "9090" {
			t.Errorf("alternatives = %#v", a["alternatives"])
		}
	})
	t.Run("EntityTypeAndDuplicates", func(t *testing.T) {
		ans := `{"entities":[{"name":"API Gateway","type":"Service","aliases":["gw"]},{"name":"api gateway","type":"service","aliases":["edge","GW"]},{"name":"","type":"x"},{"name":"thingy","type":null}],"facts":[]}`
		srv := extracttest.NewServer(t, extracttest.Always(extracttest.Answer(ans)))
		x, _ := MustNew(t, srv)
		out, _ := MustExtract(t, x, extract.Input{Episode: userEpisode("user")})
		if len(out.Entities) != 2 {
			t.Fatalf("entities = %+v", out.Entities)
		}
		e := out.Entities[0]
		if e.Type != "service" || strings.Join(e.Aliases, ",") != "gw,edge" {
			t.Errorf("entity = %+v, want merged aliases gw,edge", e)
		}
		if out.Entities[1].Type != "thing" {
			t.Errorf("untyped entity = %+v", out.Entities[1])
		}
	})
}

func TestExtract_SourceKindCapped(t *testing.T) {
	for _, tc := range []struct {
		role  string
		epSK  entity.SourceKind
		model any
		want  entity.SourceKind
	}{
		{"user", "", "user_explicit", entity.UserExplicit},
		{"user", "", "user_implicit", entity.UserImplicit},
		{"user", "", "agent_inferred", entity.AgentInferred},
		{"user", "", nil, entity.UserExplicit},
		{"assistant", "", "user_explicit", entity.AgentInferred},
		{"assistant", "", nil, entity.AgentInferred},
		{"system", "", "user_implicit", entity.AgentInferred},
		{"tool", "", "user_explicit", entity.Tool},
		{"tool", "", "agent_inferred", entity.AgentInferred},
		{"", entity.Import, "user_explicit", entity.Import},
		{"", "", nil, entity.UserExplicit},
	} {
		ep := userEpisode(tc.role)
		ep.SourceKind = tc.epSK
		srv := extracttest.NewServer(t, extracttest.Always(extracttest.Answer(answerOf(with("source_kind", tc.model)))))
		x, _ := MustNew(t, srv)
		out, _, err := x.Extract(context.Background(), extract.Input{Episode: ep})
		if err != nil {
			t.Fatal(err)
		}
		if got := out.Facts[0].SourceKind; got != tc.want {
			t.Errorf("role %q episode %q model %v: source_kind %s, want %s", tc.role, tc.epSK, tc.model, got, tc.want)
		}
	}
}

func TestExtract_AllFactsBrokenIsRepaired(t *testing.T) {
	bad := answerOf(with("valid_from", "next Tuesday"), with("predicate", ""))
	fx := extracttest.LoadFixture(t, "port_change")
	srv := extracttest.NewServer(t, extracttest.Sequence(extracttest.Answer(bad), fx.Reply()))
	x, _ := MustNew(t, srv)
	out, u := MustExtract(t, x, extract.Input{Episode: fx.Episode, Known: fx.Known})
	if u.Calls != 2 || !out.Repaired || len(out.Facts) != 2 {
		t.Fatalf("calls %d repaired %v facts %d", u.Calls, out.Repaired, len(out.Facts))
	}
	fix := srv.Requests()[1].Params.Messages[3].Content
	if !strings.Contains(fix, "facts[0]: valid_from") || !strings.Contains(fix, "facts[1]: predicate is required") {
		t.Errorf("the repair request does not list the problems: %q", fix)
	}
}

func TestExtract_AnswerShapes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer string
		calls  int
		facts  int
	}{
		{"Fenced", "```json\n" + answerOf(goodFact()) + "\n```", 1, 1},
		{"Chatty", "Here you go:\n" + answerOf(goodFact()) + "\nLet me know!", 1, 1},
		{"LineBreakInString", strings.Replace(answerOf(goodFact()), "listens on", "listens\non\t", 1), 1, 1},
		{"FactsOnly", `{"facts": []}`, 1, 0},
		{"NullLists", `{"entities": null, "facts": null}`, 1, 0},
		{"WrongKeys", `{"result": []}`, 2, 0},
		{"FactsNotList", `{"entities": [], "facts": {}}`, 2, 0},
		{"Empty", ``, 2, 0},
		{"Array", `[]`, 2, 0},
		{"TwoObjects", `{"facts": []} {"facts": []}`, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := extracttest.NewServer(t, extracttest.Sequence(extracttest.Answer(tc.answer), extracttest.Answer(`{"entities":[],"facts":[]}`)))
			x, _ := MustNew(t, srv)
			out, u := MustExtract(t, x, extract.Input{Episode: userEpisode("user")})
			if u.Calls != tc.calls || len(out.Facts) != tc.facts {
				t.Errorf("calls %d facts %d, want %d and %d", u.Calls, len(out.Facts), tc.calls, tc.facts)
			}
		})
	}
}

func TestSourceKindCeiling(t *testing.T) {
	for _, tc := range []struct {
		ep   entity.Episode
		want entity.SourceKind
	}{
		{entity.Episode{Role: "user"}, entity.UserExplicit},
		{entity.Episode{Role: "user", SourceKind: entity.UserImplicit}, entity.UserImplicit},
		{entity.Episode{Role: "assistant", SourceKind: entity.UserExplicit}, entity.AgentInferred},
		{entity.Episode{Role: "tool"}, entity.Tool},
		{entity.Episode{Kind: "text", SourceKind: entity.Import}, entity.Import},
		{entity.Episode{Kind: "json", SourceKind: "bogus"}, entity.UserExplicit},
	} {
		if got := extract.SourceKindCeiling(tc.ep); got != tc.want {
			t.Errorf("SourceKindCeiling(%+v) = %s, want %s", tc.ep, got, tc.want)
		}
	}
}

func TestExtract_CapsCompletionTokens(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  int
		want int64 // 0: no max_tokens in the request
	}{
		{"Default", 0, extract.DefaultMaxTokens},
		{"Set", 512, 512},
		{"Off", -1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := extracttest.NewServer(t, extracttest.Always(extracttest.Answer(answerOf(goodFact()))))
			x, _ := MustNew(t, srv, func(c *extract.Config) { c.MaxTokens = tc.set })
			MustExtract(t, x, extract.Input{Episode: userEpisode("user")})
			got := srv.Requests()[0].Params.MaxTokens
			switch {
			case tc.want == 0 && got != nil:
				t.Errorf("max_tokens = %d, want none sent", *got)
			case tc.want != 0 && (got == nil || *got != tc.want):
				t.Errorf("max_tokens = %v, want %d", got, tc.want)
			}
		})
	}
}

func TestExtract_Sampling(t *testing.T) {
	srv := extracttest.NewServer(t, extracttest.LlamaCppPython(extracttest.Always(extracttest.Answer(answerOf(goodFact())))))
	x, _ := MustNew(t, srv)
	MustExtract(t, x, extract.Input{Episode: userEpisode("user")})
	if p := srv.Requests()[0].Params; p.Temperature != nil || p.TopP != nil || p.TopK != nil || p.Seed != nil {
		t.Errorf("unset sampling sent: temperature %v top_p %v top_k %v seed %v", p.Temperature, p.TopP, p.TopK, p.Seed)
	}

	srv.Reset()
	temp, topP, seed := 1.0, 0.95, int64(42)
	y, _ := MustNew(t, srv, func(c *extract.Config) {
		c.Model, c.Temperature, c.TopP, c.TopK, c.Seed = "sampled-model", &temp, &topP, 64, &seed
	})
	MustExtract(t, y, extract.Input{Episode: userEpisode("user")})
	// Every call carries them: the refused one and the one in JSON mode
	// with the schema.
	if len(srv.Requests()) != 2 {
		t.Fatalf("%d calls, want 2", len(srv.Requests()))
	}
	for i, r := range srv.Requests() {
		p := r.Params
		if p.Temperature == nil || *p.Temperature != 1 || p.TopP == nil || *p.TopP != 0.95 || p.TopK == nil || *p.TopK != 64 || p.Seed == nil || *p.Seed != 42 {
			t.Errorf("call %d (%s): temperature %v top_p %v top_k %v seed %v; want 1, 0.95, 64, 42", i, r.Format(), p.Temperature, p.TopP, p.TopK, p.Seed)
		}
	}
}

// An answer whose every fact is broken gets the repair call; when the
// repair is well formed and broken again, the model has said what it has
// to say: nothing is kept, each fact is dropped with its reason, and the
// episode is not failed.
func TestExtract_BrokenTwiceIsDropped(t *testing.T) {
	bad := answerOf(with("valid_from", "2025-03-01", "valid_to", "2025-03-01"))
	srv := extracttest.NewServer(t, extracttest.Always(extracttest.Answer(bad)))
	x, _ := MustNew(t, srv)
	out, u := MustExtract(t, x, extract.Input{Episode: userEpisode("user")})
	if u.Calls != 2 || !out.Repaired || len(out.Facts) != 0 || out.Proposed != 1 || len(out.Dropped) != 1 ||
		out.Dropped[0].Reason != entity.DropBadDate {
		t.Fatalf("calls %d repaired %v facts %+v dropped %+v", u.Calls, out.Repaired, out.Facts, out.Dropped)
	}
}
