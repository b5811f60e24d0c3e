package memory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/memory"
)

var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func entityRec(id string) memory.Record {
	return memory.Record{Entity: &entity.Entity{ID: id, Name: "name of " + id, CreatedAt: t0, UpdatedAt: t0}}
}

func episodeRec(id string) memory.Record {
	return memory.Record{Episode: &entity.Episode{ID: id, Kind: entity.KindMessage, Content: "hello", Status: entity.EpisodeDone,
		ReferenceTime: t0, RecordedAt: t0, SourceKind: entity.UserExplicit}}
}

func factRec(id, subjectID string) memory.Record {
	return memory.Record{Fact: &entity.Fact{ID: id, SubjectID: subjectID, Subject: "db", Predicate: "port", Value: "5432",
		Text: "db port 5432", ValidFrom: t0, RecordedAt: t0, UpdatedAt: t0, SourceKind: entity.UserExplicit, Confidence: 1, Importance: 5}}
}

// jsonLines writes records as an import.
func jsonLines(tb testing.TB, recs ...memory.Record) *bytes.Buffer {
	tb.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			tb.Fatal(err)
		}
	}
	return &b
}

// mustRefuse imports r into the scope and wants EINVALID with msg (a
// prefix) under field, and the scope exactly as it was.
func mustRefuse(tb testing.TB, svc *memory.Service, r io.Reader, field, msg string) {
	tb.Helper()
	refuse(tb, svc, r, entity.EINVALID, field, msg)
}

// refuse checks that importing r fails with code, naming field with a
// message starting with msg, and changes nothing.
func refuse(tb testing.TB, svc *memory.Service, r io.Reader, code entity.Code, field, msg string) {
	tb.Helper()
	var before bytes.Buffer
	if err := svc.Export(ctx, scope, &before); err != nil {
		tb.Fatal(err)
	}
	_, err := svc.Import(ctx, scope, r)
	e, ok := err.(*entity.Error)
	if ok {
		_, ok = e.Fields[field]
	}
	if !ok || e.Code != code || !strings.HasPrefix(e.Fields[field], msg) {
		tb.Fatalf("want %s: %q…, got %v", field, msg, err)
	}
	var after bytes.Buffer
	if err := svc.Export(ctx, scope, &after); err != nil {
		tb.Fatal(err)
	}
	if after.String() != before.String() {
		tb.Fatalf("a refused import changed the scope:\n%s\n---\n%s", before.String(), after.String())
	}
}

// TestImport_LargestRecordFits: the largest episode the API accepts —
// content of MaxEpisodeBytes and a full set of metadata, every character
// one that JSON escapes — is one line within MaxRecordBytes, and imports.
func TestImport_LargestRecordFits(t *testing.T) {
	svc, _ := MustOpenService(t)
	in := memory.EpisodeInput{Content: strings.Repeat("<", entity.MaxEpisodeBytes), Speaker: strings.Repeat("<", entity.MaxNameLen), Metadata: map[string]any{}}
	for i := range entity.MaxAttributes {
		// json.Marshal writes "<" as \u003c: six bytes.
		in.Metadata[fmt.Sprintf("%02d", i)+strings.Repeat("<", entity.MaxAttributeKeyLen-2)] = strings.Repeat("<", (entity.MaxAttributeBytes-2)/6)
	}
	if err := memory.ValidateEpisode(&in); err != nil {
		t.Fatalf("the API would refuse it: %v", err)
	}
	ep, _, err := svc.AddEpisode(ctx, "source", in)
	if err != nil {
		t.Fatal(err)
	}
	line := jsonLines(t, memory.Record{Episode: &ep})
	if line.Len() > memory.MaxRecordBytes {
		t.Fatalf("the largest episode takes %d bytes, more than MaxRecordBytes %d", line.Len(), memory.MaxRecordBytes)
	}
	t.Logf("largest episode: %d bytes of %d", line.Len(), memory.MaxRecordBytes)
	if res, err := svc.Import(ctx, scope, line); err != nil || res.Episodes != 1 {
		t.Fatalf("import: %+v %v", res, err)
	}
}

// endless reads as a first record, then a second line that never ends.
type endless struct {
	head []byte
	read int
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	if e.read < len(e.head) {
		n = copy(p, e.head[e.read:])
	}
	for i := n; i < len(p); i++ {
		p[i] = 'a'
	}
	e.read += len(p)
	return len(p), nil
}

// TestImport_LongLine: a line longer than MaxRecordBytes is refused with
// its line number once the limit is passed: the rest of it is never read.
func TestImport_LongLine(t *testing.T) {
	svc, _ := MustOpenService(t)
	head := jsonLines(t, entityRec("e1")).String() + "\n" + `{"episode":{"id":"p1","status":"done","content":"`
	r := &endless{head: []byte(head)}
	mustRefuse(t, svc, r, "line[3]", "longer than")
	if r.read > memory.MaxRecordBytes+1<<20 {
		t.Errorf("read %d bytes for a limit of %d", r.read, memory.MaxRecordBytes)
	}
}

// TestImport_ManyValues: a line of more than MaxRecordValues values or
// MaxRecordObjects objects is refused while it is read (decoded, each
// would take tens or hundreds of bytes); a full set of attributes of the
// smallest values imports.
func TestImport_ManyValues(t *testing.T) {
	svc, _ := MustOpenService(t)
	line := `{"entity":{"id":"e1","name":"a","aliases":[` + strings.Repeat(`"",`, memory.MaxRecordValues) + `""]}}`
	mustRefuse(t, svc, strings.NewReader(line), "line[1]", "holds more than")
	line = `{"entity":{"id":"e1","name":"a","attributes":{"a":[` + strings.Repeat(`{},`, memory.MaxRecordObjects) + `{}]}}}`
	mustRefuse(t, svc, strings.NewReader(line), "line[1]", "holds more than")
	e := entityRec("e1")
	e.Entity.Attributes = map[string]any{}
	for i := range entity.MaxAttributes {
		e.Entity.Attributes[fmt.Sprint(i)] = make([]int, (entity.MaxAttributeBytes-2)/2)
	}
	if res, err := svc.Import(ctx, scope, jsonLines(t, e)); err != nil || res.Entities != 1 {
		t.Fatalf("import: %+v %v", res, err)
	}
}

// TestImport_Limits: each record is checked against the API's limits and
// the stores' rules on ids before anything is written; the refusal names
// the line and the field.
func TestImport_Limits(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n+1) }
	for _, tc := range []struct {
		name, field string
		rec         func() memory.Record
	}{
		{"EntityName", "entity.name", func() memory.Record { r := entityRec("e9"); r.Entity.Name = long(entity.MaxNameLen); return r }},
		{"EntityAlias", "entity.aliases[1]", func() memory.Record {
			r := entityRec("e9")
			r.Entity.Aliases = []string{"ok", long(entity.MaxNameLen)}
			return r
		}},
		{"EntityID", "entity.id", func() memory.Record { return entityRec(long(entity.MaxIDBytes)) }},
		{"EpisodeContent", "episode.content", func() memory.Record {
			r := episodeRec("p9")
			r.Episode.Content = long(entity.MaxEpisodeBytes)
			return r
		}},
		{"EpisodeStatus", "episode.status", func() memory.Record { r := episodeRec("p9"); r.Episode.Status = ""; return r }},
		{"EpisodeMetadata", "episode.metadata.k", func() memory.Record {
			r := episodeRec("p9")
			r.Episode.Metadata = map[string]any{"k": long(entity.MaxAttributeBytes)}
			return r
		}},
		{"FactText", "fact.text", func() memory.Record { r := factRec("f9", "e1"); r.Fact.Text = long(entity.MaxTextLen); return r }},
		{"FactValue", "fact.value", func() memory.Record { r := factRec("f9", "e1"); r.Fact.Value = long(entity.MaxValueLen); return r }},
		{"FactObject", "fact.object", func() memory.Record {
			r := factRec("f9", "e1")
			r.Fact.Value, r.Fact.ObjectID, r.Fact.Object = "", "e1", long(entity.MaxNameLen)
			return r
		}},
		{"ClaimText", "fact.claims[0].text", func() memory.Record {
			r := factRec("f9", "e1")
			r.Fact.Claims = []entity.Claim{{From: t0, Text: long(entity.MaxTextLen), RecordedAt: t0}}
			return r
		}},
		{"FactYearOne", "fact.valid_from", func() memory.Record {
			r := factRec("f9", "e1")
			r.Fact.ValidFrom = time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)
			return r
		}},
		{"FactYearZero", "fact.valid_to", func() memory.Record {
			r := factRec("f9", "e1")
			to := time.Date(0, 6, 1, 0, 0, 0, 0, time.UTC)
			r.Fact.ValidTo = &to
			return r
		}},
		{"ClaimYear", "fact.claims[0].from", func() memory.Record {
			r := factRec("f9", "e1")
			r.Fact.Claims = []entity.Claim{{From: time.Date(999, 12, 31, 0, 0, 0, 0, time.UTC), RecordedAt: t0}}
			return r
		}},
		{"EpisodeYear", "episode.reference_time", func() memory.Record {
			r := episodeRec("p9")
			r.Episode.ReferenceTime = time.Date(500, 1, 1, 0, 0, 0, 0, time.UTC)
			return r
		}},
		{"FactNUL", "fact.supersedes", func() memory.Record { r := factRec("f9", "e1"); r.Fact.Supersedes = "f\x00"; return r }},
		{"TombstoneReason", "tombstone.reason", func() memory.Record {
			return memory.Record{Tombstone: &entity.Tombstone{Fingerprint: "fp", At: t0, Reason: long(entity.MaxReasonLen)}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, _ := MustOpenService(t)
			mustRefuse(t, svc, jsonLines(t, entityRec("e1"), tc.rec()), "line[2]."+tc.field, "")
		})
	}
	svc, _ := MustOpenService(t)
	mustRefuse(t, svc, strings.NewReader(`{"entity":{"id":"e1","name":"a"}} {"entity":{"id":"e2","name":"b"}}`), "line[1]", "more than one JSON value")
	mustRefuse(t, svc, strings.NewReader("{\"entity\":\n{\"id\":\"e1\",\"name\":\"a\"}}\n"), "line[1]", "malformed JSON")
	mustRefuse(t, svc, strings.NewReader(`{"entity":{"id":"e1","name":"a","planet":"mars"}}`), "line[1]", `unknown field "planet"`)
}

// TestImport_References: the ids a fact refers to must name records of
// their kind in the import (before or after the fact) or in the scope;
// otherwise the import is refused naming the line and the field, and
// nothing of it is written.
func TestImport_References(t *testing.T) {
	svc, _ := MustOpenService(t)
	for _, tc := range []struct {
		name, field string
		change      func(f *entity.Fact)
	}{
		{"Subject", "fact.subject_id", func(f *entity.Fact) { f.SubjectID = "nobody" }},
		{"SubjectIsEpisode", "fact.subject_id", func(f *entity.Fact) { f.SubjectID = "p1" }},
		{"Object", "fact.object_id", func(f *entity.Fact) { f.Value, f.ObjectID, f.Object = "", "nothing", "nothing" }},
		{"Episode", "fact.episode_ids[1]", func(f *entity.Fact) { f.EpisodeIDs = []string{"p1", "p404"} }},
		{"ClaimEpisode", "fact.claims[0].episode_id", func(f *entity.Fact) {
			f.Claims = []entity.Claim{{From: t0, EpisodeID: "p404", RecordedAt: t0}}
		}},
		{"Supersedes", "fact.supersedes", func(f *entity.Fact) { f.Supersedes = "f404" }},
		{"SupersededBy", "fact.superseded_by", func(f *entity.Fact) { f.SupersededBy = "e1" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := factRec("f2", "e1")
			tc.change(bad.Fact)
			mustRefuse(t, svc, jsonLines(t, entityRec("e1"), episodeRec("p1"), factRec("f1", "e1"), bad), "line[4]."+tc.field, "no ")
		})
	}

	// Forward references within the import: a fact before its subject,
	// its episode and the fact that supersedes it.
	old, cur := factRec("f1", "e1"), factRec("f2", "e1")
	old.Fact.SupersededBy, cur.Fact.Supersedes = "f2", "f1"
	old.Fact.EpisodeIDs = []string{"p1"}
	res, err := svc.Import(ctx, scope, jsonLines(t, old, entityRec("e1"), cur, episodeRec("p1")))
	if err != nil || res.Facts != 2 || res.Entities != 1 || res.Episodes != 1 {
		t.Fatalf("forward references: %+v %v", res, err)
	}
	// References to what the scope holds.
	next := factRec("f3", "e1")
	next.Fact.Value, next.Fact.Supersedes, next.Fact.EpisodeIDs = "3307", "f2", []string{"p1"}
	if res, err := svc.Import(ctx, scope, jsonLines(t, next)); err != nil || res.Facts != 1 {
		t.Fatalf("references to the scope: %+v %v", res, err)
	}
}

// TestImport_IdempotencyKeys: an import whose episode takes the
// idempotency key of another episode, in the import or in the scope, is
// refused before anything is written (the store would refuse the write
// halfway); the same episodes imported again are not a conflict.
func TestImport_IdempotencyKeys(t *testing.T) {
	svc, _ := MustOpenService(t)
	keyed := func(id, key string) memory.Record {
		r := episodeRec(id)
		r.Episode.IdempotencyKey = key
		return r
	}
	mustRefuse(t, svc, jsonLines(t, keyed("p1", "k1"), entityRec("e1"), keyed("p2", "k1")), "line[3].episode.idempotency_key", "the key of another episode, on line 1")
	if _, _, err := svc.AddEpisode(ctx, scope, memory.EpisodeInput{Content: "first", IdempotencyKey: "k1"}); err != nil {
		t.Fatal(err)
	}
	refuse(t, svc, jsonLines(t, entityRec("e1"), keyed("p1", "k2"), keyed("p2", "k1")), entity.ECONFLICT, "line[3].episode.idempotency_key", "the key of episode")
	for range 2 {
		if res, err := svc.Import(ctx, scope, jsonLines(t, keyed("p1", "k2"), keyed("p2", "k3"))); err != nil || res.Episodes != 2 {
			t.Fatalf("import: %+v %v", res, err)
		}
	}
}

// writeCounter counts the write transactions of a store.
type writeCounter struct {
	graph.Store
	writes int
}

func (w *writeCounter) Update(ctx context.Context, scope entity.Scope, fn func(graph.Tx) error) error {
	w.writes++
	return w.Store.Update(ctx, scope, fn)
}

// TestImport_BatchBytes: an import of large episodes is written a few MB
// per transaction, not 500 records (up to 128 MiB of content) at once.
func TestImport_BatchBytes(t *testing.T) {
	svc, _ := MustOpenService(t)
	store := &writeCounter{Store: svc.Store}
	svc.Store = store
	var recs []memory.Record
	for i := range 40 {
		r := episodeRec(fmt.Sprintf("ep%d", i))
		r.Episode.Content = strings.Repeat("x", 200<<10)
		recs = append(recs, r)
	}
	res, err := svc.Import(ctx, scope, jsonLines(t, recs...))
	if err != nil || res.Episodes != 40 {
		t.Fatalf("import: %+v %v", res, err)
	}
	// 8 MB of episodes: at least two transactions of at most 4 MB.
	if store.writes < 2 {
		t.Errorf("8 MB of episodes written in %d transaction(s)", store.writes)
	}
}

// failingStore fails every write after the first `after`.
type failingStore struct {
	graph.Store
	after, writes int
}

func (f *failingStore) Update(ctx context.Context, scope entity.Scope, fn func(graph.Tx) error) error {
	if f.writes++; f.writes > f.after {
		return entity.Errorf(entity.EUNAVAILABLE, "the store went away")
	}
	return f.Store.Update(ctx, scope, fn)
}

// TestImport_Journal: an import whose writing stops half-way (a store that
// fails, as a crash would) is kept in the journal and finished, whole, by
// ResumeImports; a finished import leaves the journal empty, and so does a
// refused one.
func TestImport_Journal(t *testing.T) {
	svc, _ := MustOpenService(t)
	svc.Journal = t.TempDir()
	journal := func() []string {
		names, _ := filepath.Glob(filepath.Join(svc.Journal, "*"))
		return names
	}
	recs := []memory.Record{entityRec("e1")}
	for i := range 1200 { // three batches of exportPage records
		recs = append(recs, factRec(fmt.Sprintf("f%04d", i), "e1"))
	}
	mustRefuse(t, svc, jsonLines(t, factRec("f", "nobody")), "line[1].fact.subject_id", "")
	if j := journal(); len(j) != 0 {
		t.Fatalf("a refused import left %v", j)
	}

	store := svc.Store
	svc.Store = &failingStore{Store: store, after: 1}
	_, err := svc.Import(ctx, scope, jsonLines(t, recs...))
	if entity.ErrorCode(err) != entity.EUNAVAILABLE || !strings.Contains(entity.ErrorMessage(err), "finishes it") {
		t.Fatalf("import over a failing store: %v", err)
	}
	if j := journal(); len(j) != 2 {
		t.Fatalf("journal after a failed write: %v, want the stream and its scope", j)
	}
	svc.Store = store
	if n := countFacts(t, svc); n == 0 || n == 1200 {
		t.Fatalf("%d facts after the failed write: the test wants it cut short", n)
	}

	n, err := svc.ResumeImports(ctx, slog.New(slog.DiscardHandler))
	if err != nil || n != 1 {
		t.Fatalf("ResumeImports: %d %v", n, err)
	}
	if got := countFacts(t, svc); got != 1200 {
		t.Errorf("%d facts after ResumeImports, want 1200", got)
	}
	if j := journal(); len(j) != 0 {
		t.Errorf("journal after ResumeImports: %v", j)
	}
	if _, err := svc.Import(ctx, scope, jsonLines(t, recs...)); err != nil {
		t.Fatal(err)
	}
	if j := journal(); len(j) != 0 {
		t.Errorf("journal after an import: %v", j)
	}
}

// countFacts counts the scope's facts in an export.
func countFacts(tb testing.TB, svc *memory.Service) int {
	tb.Helper()
	var b bytes.Buffer
	if err := svc.Export(ctx, scope, &b); err != nil {
		tb.Fatal(err)
	}
	return strings.Count(b.String(), `{"fact":`)
}
