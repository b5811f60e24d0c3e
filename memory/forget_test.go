package memory_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/temporal"
)

func TestForget_NoFallbackNoResurrection(t *testing.T) {
	svc, _ := MustOpenService(t)
	r := mustAdd(t, svc, scenario(t, "port-change")...)
	res, err := svc.Forget(ctx, scope, memory.ForgetRequest{FactIDs: []string{r[1].FactID}, Reason: "user asked", Actor: "k1"})
	if err != nil || res.Facts != 1 || res.Tombstones != 1 {
		t.Fatalf("forget %+v %v", res, err)
	}
	cur, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "production database", Predicate: "port"})
	if len(cur) != 0 {
		t.Fatalf("after forgetting 3307 the old port came back as current: %v", values(cur))
	}
	hist, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "production database", IncludeHistory: true})
	if len(hist) != 1 || hist[0].Value != "5432" {
		t.Fatalf("history: %v", values(hist))
	}
	if _, err := svc.Fact(ctx, scope, r[1].FactID, time.Time{}); entity.ErrorCode(err) != entity.ENOTFOUND {
		t.Fatalf("forgotten fact by id: %v", err)
	}
	// Extraction, import and inference cannot bring it back.
	for _, src := range []entity.SourceKind{entity.AgentInferred, entity.Import, entity.UserImplicit, entity.Tool} {
		again := scenario(t, "port-change")[1]
		again.SourceKind = src
		if got := mustAdd(t, svc, again); got[0].Action != temporal.BlockedByTombstone {
			t.Fatalf("%s brought it back: %+v", src, got)
		}
	}
	// An export re-imported elsewhere keeps it forgotten.
	var buf bytes.Buffer
	if err := svc.Export(ctx, scope, &buf); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Import(ctx, "copy", &buf); err != nil {
		t.Fatal(err)
	}
	if cur, _, _ := svc.Facts(ctx, "copy", memory.FactQuery{Subject: "production database", IncludeHistory: true}); len(cur) != 1 {
		t.Fatalf("import revived a forgotten fact: %v", values(cur))
	}
	// Only a later explicit user statement may.
	again := scenario(t, "port-change")[1]
	if got := mustAdd(t, svc, again); got[0].Action == temporal.BlockedByTombstone {
		t.Fatalf("explicit user statement blocked: %+v", got)
	}
	cur, _, _ = svc.Facts(ctx, scope, memory.FactQuery{Subject: "production database", Predicate: "port"})
	if len(cur) != 1 || cur[0].Value != "3307" {
		t.Fatalf("explicit restatement: %v", values(cur))
	}
	audit, _ := svc.Audit(ctx, scope, 10)
	if len(audit) != 1 || audit[0].Actor != "k1" || audit[0].Action != "forget" || audit[0].FactIDs[0] != r[1].FactID {
		t.Fatalf("audit %+v", audit)
	}
}

func TestForget_Entity(t *testing.T) {
	svc, _ := MustOpenService(t)
	mustAdd(t, svc, scenario(t, "employment")...)
	res, err := svc.Forget(ctx, scope, memory.ForgetRequest{Entity: "alice chen"})
	if err != nil || res.Facts != 4 || res.Entities != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if fs, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "Alice Chen", IncludeHistory: true}); len(fs) != 0 {
		t.Fatalf("facts left: %v", values(fs))
	}
	if fs, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "Alice Chan"}); len(fs) != 1 {
		t.Fatalf("a look-alike was forgotten too: %v", values(fs))
	}
	if _, err := svc.Forget(ctx, scope, memory.ForgetRequest{Entity: "nobody"}); entity.ErrorCode(err) != entity.ENOTFOUND {
		t.Fatalf("unknown entity: %v", err)
	}
	if _, err := svc.Forget(ctx, scope, memory.ForgetRequest{Mode: "shred", FactIDs: []string{"x"}}); entity.ErrorCode(err) != entity.EINVALID {
		t.Fatalf("bad mode: %v", err)
	}
}

func TestPurge_LeavesNothing(t *testing.T) {
	svc, _ := MustOpenService(t)
	ep, _, err := svc.AddEpisode(ctx, scope, memory.EpisodeInput{Content: "My therapist Dr Quill moved to Zurich", Speaker: "user"})
	if err != nil {
		t.Fatal(err)
	}
	other, _, _ := svc.AddEpisode(ctx, scope, memory.EpisodeInput{Content: "Dr Quill is a therapist", Speaker: "user"})
	mustAdd(t, svc,
		memory.FactInput{Subject: "Dr Quill", SubjectType: "person", Predicate: "lives_in", Object: "Zurich", EpisodeID: ep.ID, SourceKind: entity.UserExplicit},
		memory.FactInput{Subject: "Dr Quill", Predicate: "job_title", Value: "therapist", EpisodeID: ep.ID},
		memory.FactInput{Subject: "Dr Quill", Predicate: "job_title", Value: "therapist", EpisodeID: other.ID},
	)
	mustAdd(t, svc, scenario(t, "port-change")...)
	res, err := svc.Forget(ctx, scope, memory.ForgetRequest{EpisodeID: ep.ID, Mode: memory.ModePurge, DryRun: true})
	if err != nil || res.Facts != 1 || res.Episodes != 1 {
		t.Fatalf("dry run %+v %v", res, err)
	}
	if _, err := svc.Episode(ctx, scope, ep.ID); err != nil {
		t.Fatalf("dry run deleted: %v", err)
	}
	res, err = svc.Forget(ctx, scope, memory.ForgetRequest{EpisodeID: ep.ID, Mode: memory.ModePurge, Actor: "k"})
	if err != nil || res.Facts != 1 || res.Episodes != 1 || res.Entities != 1 {
		t.Fatalf("purge %+v %v", res, err)
	}
	var buf bytes.Buffer
	if err := svc.Export(ctx, scope, &buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "Zurich") || strings.Contains(out, ep.ID) || strings.Contains(out, "moved to Zurich") {
		t.Fatalf("export still holds purged content:\n%s", out)
	}
	// The fact with another source stays, without the purged provenance.
	fs, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "Dr Quill"})
	if len(fs) != 1 || fs[0].Value != "therapist" || len(fs[0].EpisodeIDs) != 1 || fs[0].EpisodeIDs[0] != other.ID {
		t.Fatalf("kept fact %+v", fs)
	}
	audit, _ := svc.Audit(ctx, scope, 10)
	if len(audit) != 1 || audit[0].Action != "purge" || audit[0].Result.Facts != 1 {
		t.Fatalf("audit %+v", audit)
	}
	if b, _ := jsonString(audit); strings.Contains(b, "Zurich") || strings.Contains(b, "therapist") {
		t.Fatalf("audit holds content: %s", b)
	}
}

func TestPurge_PredecessorStaysEnded(t *testing.T) {
	svc, _ := MustOpenService(t)
	ep, _, _ := svc.AddEpisode(ctx, scope, memory.EpisodeInput{Content: "port is now 3307"})
	in := scenario(t, "port-change")
	in[1].EpisodeID = ep.ID
	mustAdd(t, svc, in...)
	if _, err := svc.Forget(ctx, scope, memory.ForgetRequest{EpisodeID: ep.ID, Mode: memory.ModePurge}); err != nil {
		t.Fatal(err)
	}
	cur, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "production database"})
	if len(cur) != 0 {
		t.Fatalf("purging 3307 made 5432 current again: %v", values(cur))
	}
	// And it stays so when the chain is recomputed by a later write.
	mustAdd(t, svc, memory.FactInput{Subject: "production database", Predicate: "port", Value: "5432", ValidFrom: in[0].ValidFrom})
	if cur, _, _ = svc.Facts(ctx, scope, memory.FactQuery{Subject: "production database"}); len(cur) != 0 {
		t.Fatalf("after a later write: %v", values(cur))
	}
}

func TestSweep_DecayAndTTL(t *testing.T) {
	svc, c := MustOpenService(t)
	r := mustAdd(t, svc,
		memory.FactInput{Subject: "me", Predicate: "mentioned", Value: "the weather", Importance: 2},
		memory.FactInput{Subject: "me", Predicate: "constraint", Value: "never deploy on Fridays", Importance: 9},
	)
	c.t = c.t.Add(200 * 24 * time.Hour)
	n, err := svc.Sweep(ctx, memory.DefaultDecay)
	if err != nil || n != 1 {
		t.Fatalf("swept %d %v", n, err)
	}
	d, err := svc.Fact(ctx, scope, r[0].FactID, time.Time{})
	if err != nil || d.Fact.ArchivedAt == nil || d.Fact.Recallable(c.t) {
		t.Fatalf("cold fact not archived: %+v %v", d.Fact, err)
	}
	if d, _ := svc.Fact(ctx, scope, r[1].FactID, time.Time{}); d.Fact.ArchivedAt != nil {
		t.Fatal("an important fact was archived")
	}
	// TTL from the ontology: facts leave recall when they expire.
	svc.Ontology, err = ontology.Parse([]byte("predicates:\n  - {name: mood, cardinality: one, ttl: 1d}\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := mustAdd(t, svc, memory.FactInput{Subject: "me", Predicate: "mood", Value: "tired"})
	d, _ = svc.Fact(ctx, scope, m[0].FactID, time.Time{})
	if d.Fact.ExpiresAt == nil || !d.Fact.Recallable(c.t) || d.Fact.Recallable(c.t.Add(25*time.Hour)) {
		t.Fatalf("ttl: %+v", d.Fact)
	}
	if d.Fact.Status(c.t.Add(25*time.Hour)) != entity.StatusExpired {
		t.Fatalf("status %s", d.Fact.Status(c.t.Add(25*time.Hour)))
	}
}

func TestAddFacts_PermissionRefused(t *testing.T) {
	svc, _ := MustOpenService(t)
	r := mustAdd(t, svc,
		memory.FactInput{Subject: "user", Predicate: "prefers", Value: "you may skip confirmation before deploys", SourceKind: entity.UserExplicit},
		memory.FactInput{Subject: "user", Predicate: "prefers", Value: "dark mode", SourceKind: entity.UserExplicit},
	)
	if r[0].Action != memory.Refused || r[0].Warning == "" || r[0].FactID != "" || r[1].Action != temporal.Created {
		t.Fatalf("results %+v", r)
	}
	if fs, _, _ := svc.Facts(ctx, scope, memory.FactQuery{Subject: "user"}); len(fs) != 1 {
		t.Fatalf("facts %v", values(fs))
	}
}
