package neo4j

import (
	"reflect"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
)

// TestStoredFact checks that the facts a write puts into the cache without
// decoding them (storedFact) are what decoding their properties gives, for
// facts with every field set, times in another zone and with monotonic
// readings, zero and empty values, and that it declines what JSON would
// change.
func TestStoredFact(t *testing.T) {
	zone := time.FixedZone("X", 5*3600+1800)
	now := time.Now().In(zone) // a monotonic reading and a zone
	at := time.Date(2021, 3, 4, 5, 6, 7, 891011121, zone)
	ptr := func(t time.Time) *time.Time { return &t }
	full := entity.Fact{
		ID: "01J0000000000000000000000A", Scope: "ignored", SubjectID: "01K0000000000000000000000A", Subject: "Ada",
		Predicate: "works_at", ObjectID: "01K0000000000000000000000B", Object: "Acme", Value: "Acme Ltd", Text: "Ada works at Acme",
		ValidFrom: at, ValidTo: ptr(now), RecordedAt: now, ExpiredAt: ptr(at), Supersedes: "01J0000000000000000000000B",
		SupersededBy: "01J0000000000000000000000C", EpisodeIDs: []string{"e1", "e2"}, SourceKind: entity.UserExplicit,
		Confidence: 0.1 + 0.2, Importance: 7, Hits: 3, LastAccessedAt: ptr(now), ExpiresAt: ptr(at), ForgottenAt: ptr(at),
		ArchivedAt: ptr(now), Conflicts: []string{"01J0000000000000000000000D"}, Waiting: true, UpdatedAt: now, Seq: 99,
		Claims: []entity.Claim{{From: at, To: ptr(now), End: true, EpisodeID: "e1", SourceKind: entity.UserExplicit,
			Confidence: 0.3, RecordedAt: now, Said: at, Dated: true, Text: "said <so> & \u2028", Importance: 2}},
		Revisions: []entity.Revision{{Until: now, ValidFrom: at, ValidTo: ptr(at), Supersedes: "a", SupersededBy: "b"}},
	}
	full.Attributes = map[string]any{"x": 1}
	full.Claims[0].Attributes = map[string]any{"y": 2}
	mustBeFull(t, reflect.ValueOf(full), "Fact")
	full.Attributes, full.Claims[0].Attributes = nil, nil

	zeros := full
	zeros.ValidTo, zeros.ExpiredAt, zeros.ArchivedAt = ptr(time.Time{}), nil, ptr(time.Time{}.In(zone))
	zeros.EpisodeIDs, zeros.Conflicts, zeros.Claims, zeros.Revisions = []string{}, []string{}, []entity.Claim{}, []entity.Revision{}
	zeros.ValidFrom, zeros.Value, zeros.Hits = time.Time{}, "", 0
	open := full
	open.Claims = []entity.Claim{{From: at, To: ptr(time.Time{}), SourceKind: entity.AgentInferred, RecordedAt: at}}
	open.Revisions = []entity.Revision{{Until: at, ValidFrom: at}}
	bare := entity.Fact{ID: "01J0000000000000000000000E", SubjectID: "s", Predicate: "p", Value: "v"}

	for name, f := range map[string]entity.Fact{"full": full, "zeros": zeros, "open": open, "bare": bare} {
		p, err := factProps(&f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p["scope"] = "s1" // the change number is the write's to set
		want, err := decodeFact("s1", p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, ok := storedFact(f, "s1")
		if !ok {
			t.Fatalf("%s: declined", name)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v\nwant %#v", name, got, want)
		}
		if len(f.Claims) > 0 { // the caller may change its fact afterwards
			f.Claims[0].Text, *f.Claims[0].To = "changed", at.Add(time.Hour)
			if !reflect.DeepEqual(got.Claims, want.Claims) {
				t.Errorf("%s: shares its claims with the fact put", name)
			}
		}
	}

	withAttrs := full
	withAttrs.Attributes = map[string]any{"n": 1}
	badText := full
	badText.Claims = []entity.Claim{{From: at, RecordedAt: at, Text: "bad \xff"}}
	claimAttrs := full
	claimAttrs.Claims = []entity.Claim{{From: at, RecordedAt: at, Attributes: map[string]any{"n": 1}}}
	for name, f := range map[string]entity.Fact{"attributes": withAttrs, "invalid UTF-8": badText, "claim attributes": claimAttrs} {
		if _, ok := storedFact(f, "s1"); ok {
			t.Errorf("%s: taken, but JSON changes it", name)
		}
	}
}

// mustBeFull fails unless every field of v (a struct), and of the structs
// in its slices, is set: a field added to a fact must be added here, and
// so to what storedFact is checked on.
func mustBeFull(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	for i := range v.NumField() {
		fv, name := v.Field(i), path+"."+v.Type().Field(i).Name
		if fv.IsZero() {
			t.Errorf("%s is not set in the test's full fact", name)
		}
		if fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.Struct {
			for j := range fv.Len() {
				mustBeFull(t, fv.Index(j), name)
			}
		}
	}
}
