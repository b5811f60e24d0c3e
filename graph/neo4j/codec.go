package neo4j

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"
	"unicode/utf8"

	neo "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/graphmem/graphmem/entity"
)

// Records are stored as node properties: scalars natively, so the graph can
// be queried and browsed, nested values (claims, revisions, free-form maps)
// as JSON strings. Empty strings, zero times, empty lists and empty maps are
// not stored at all: a missing property keeps composite indexes sparse
// (a literal fact has no object_id entry) and reads back as the zero value,
// as on the embedded store. Times are stored and returned in UTC.

// maxKeyPart is where a normalised name or literal is cut in an indexed
// key: Neo4j cannot index a value of more than about 8 KB, and a literal
// may be longer.
const maxKeyPart = 512

// indexKey is the indexed form of a normalised name or literal: itself if
// short, else its first maxKeyPart bytes (on a rune boundary), a NUL — which
// no normalised text contains — and a hash of the whole, so equality still
// means equality and prefixes of up to maxKeyPart bytes still match.
func indexKey(norm string) string {
	if len(norm) <= maxKeyPart {
		return norm
	}
	cut := maxKeyPart
	for cut > 0 && !utf8.RuneStart(norm[cut]) {
		cut--
	}
	sum := sha256.Sum256([]byte(norm))
	return norm[:cut] + "\x00" + hex.EncodeToString(sum[:12])
}

func putStr(p map[string]any, k, v string) {
	if v != "" {
		p[k] = v
	}
}

func putStrs(p map[string]any, k string, v []string) {
	if len(v) > 0 {
		p[k] = v
	}
}

func putTime(p map[string]any, k string, t time.Time) {
	if !t.IsZero() {
		p[k] = t.UTC()
	}
}

func putPTime(p map[string]any, k string, t *time.Time) {
	if t != nil {
		putTime(p, k, *t)
	}
}

func putJSON(p map[string]any, k string, v any, empty bool) error {
	if empty {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	p[k] = string(b)
	return nil
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

func asInt(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	}
	return 0
}

func asFloat(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case int64:
		return float64(n)
	}
	return 0
}

func asStrings(v any) []string {
	if l, ok := v.([]string); ok { // as factProps made it
		return slices.Clone(l)
	}
	l, _ := v.([]any)
	if len(l) == 0 {
		return nil
	}
	out := make([]string, 0, len(l))
	for _, x := range l {
		out = append(out, asString(x))
	}
	return out
}

func asTime(v any) time.Time {
	t, _ := v.(time.Time)
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}

func asPTime(v any) *time.Time {
	if _, ok := v.(time.Time); !ok {
		return nil
	}
	t := asTime(v)
	return &t
}

func getJSON(v any, into any) error {
	s, ok := v.(string)
	if !ok || s == "" {
		return nil
	}
	return json.Unmarshal([]byte(s), into)
}

// anyMap decodes a JSON map property; nil and empty both read back nil.
func anyMap(v any) (map[string]any, error) {
	var m map[string]any
	if err := getJSON(v, &m); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

func props(v any) map[string]any {
	if n, ok := v.(neo.Node); ok {
		return n.Props
	}
	m, _ := v.(map[string]any)
	return m
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func entityProps(e *entity.Entity) (map[string]any, error) {
	p := map[string]any{"id": e.ID, "name": e.Name}
	putStr(p, "type", e.Type)
	putStrs(p, "aliases", e.Aliases)
	putStr(p, "summary", e.Summary)
	if err := putJSON(p, "attributes", e.Attributes, len(e.Attributes) == 0); err != nil {
		return nil, err
	}
	putTime(p, "created_at", e.CreatedAt)
	putTime(p, "updated_at", e.UpdatedAt)
	putPTime(p, "forgotten_at", e.ForgottenAt)
	return p, nil
}

func decodeEntity(scope string, p map[string]any) (entity.Entity, error) {
	e := entity.Entity{
		ID:          asString(p["id"]),
		Scope:       scope,
		Name:        asString(p["name"]),
		Type:        asString(p["type"]),
		Aliases:     asStrings(p["aliases"]),
		Summary:     asString(p["summary"]),
		CreatedAt:   asTime(p["created_at"]),
		UpdatedAt:   asTime(p["updated_at"]),
		ForgottenAt: asPTime(p["forgotten_at"]),
		Seq:         uint64(asInt(p["seq"])),
	}
	var err error
	e.Attributes, err = anyMap(p["attributes"])
	return e, err
}

// entityKeys are the Name keys of e: its normalised name and aliases in
// their indexed form, without the empty key of a name made only of
// punctuation.
func entityKeys(e *entity.Entity) []string {
	keys := e.Keys()
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if k == "" {
			continue
		}
		if k = indexKey(k); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func factProps(f *entity.Fact) (map[string]any, error) {
	p := map[string]any{
		"id":         f.ID,
		"subject_id": f.SubjectID,
		"predicate":  f.Predicate,
		"confidence": f.Confidence,
		"importance": int64(f.Importance),
	}
	putStr(p, "subject", f.Subject)
	putStr(p, "object_id", f.ObjectID)
	putStr(p, "object", f.Object)
	if f.Value != "" {
		// Kept even when it normalises to "", so a filter on such a value
		// finds exactly the literal facts, as on the embedded store.
		p["value"] = f.Value
		p["value_key"] = indexKey(entity.Normalize(f.Value))
	}
	putStr(p, "text", f.Text)
	putTime(p, "valid_from", f.ValidFrom)
	putPTime(p, "valid_to", f.ValidTo)
	putTime(p, "recorded_at", f.RecordedAt)
	putPTime(p, "expired_at", f.ExpiredAt)
	putStr(p, "supersedes", f.Supersedes)
	putStr(p, "superseded_by", f.SupersededBy)
	putStrs(p, "episode_ids", f.EpisodeIDs)
	putStr(p, "source_kind", string(f.SourceKind))
	if f.Hits != 0 {
		p["hits"] = f.Hits
	}
	putPTime(p, "last_accessed_at", f.LastAccessedAt)
	putPTime(p, "expires_at", f.ExpiresAt)
	putPTime(p, "forgotten_at", f.ForgottenAt)
	putPTime(p, "archived_at", f.ArchivedAt)
	putTime(p, "updated_at", f.UpdatedAt)
	putStrs(p, "conflicts", f.Conflicts)
	if f.Waiting {
		p["waiting"] = true
	}
	if err := putJSON(p, "attributes", f.Attributes, len(f.Attributes) == 0); err != nil {
		return nil, err
	}
	if err := putJSON(p, "claims", utcClaims(f.Claims), len(f.Claims) == 0); err != nil {
		return nil, err
	}
	if err := putJSON(p, "revisions", utcRevisions(f.Revisions), len(f.Revisions) == 0); err != nil {
		return nil, err
	}
	return p, nil
}

// utcClaims and utcRevisions are copies of claims and revisions with their
// times in UTC, as stored; nil for none.
func utcClaims(cs []entity.Claim) []entity.Claim {
	if len(cs) == 0 {
		return nil
	}
	out := make([]entity.Claim, len(cs))
	for i, c := range cs {
		c.From, c.To, c.RecordedAt, c.Said = c.From.UTC(), utcPtr(c.To), c.RecordedAt.UTC(), c.Said.UTC()
		out[i] = c
	}
	return out
}

func utcRevisions(rs []entity.Revision) []entity.Revision {
	if len(rs) == 0 {
		return nil
	}
	out := make([]entity.Revision, len(rs))
	for i, r := range rs {
		r.Until, r.ValidFrom, r.ValidTo = r.Until.UTC(), r.ValidFrom.UTC(), utcPtr(r.ValidTo)
		out[i] = r
	}
	return out
}

func decodeFact(scope string, p map[string]any) (entity.Fact, error) {
	f := entity.Fact{
		ID:             asString(p["id"]),
		Scope:          scope,
		SubjectID:      asString(p["subject_id"]),
		Subject:        asString(p["subject"]),
		Predicate:      asString(p["predicate"]),
		ObjectID:       asString(p["object_id"]),
		Object:         asString(p["object"]),
		Value:          asString(p["value"]),
		Text:           asString(p["text"]),
		ValidFrom:      asTime(p["valid_from"]),
		ValidTo:        asPTime(p["valid_to"]),
		RecordedAt:     asTime(p["recorded_at"]),
		ExpiredAt:      asPTime(p["expired_at"]),
		Supersedes:     asString(p["supersedes"]),
		SupersededBy:   asString(p["superseded_by"]),
		EpisodeIDs:     asStrings(p["episode_ids"]),
		SourceKind:     entity.SourceKind(asString(p["source_kind"])),
		Confidence:     asFloat(p["confidence"]),
		Importance:     int(asInt(p["importance"])),
		Hits:           asInt(p["hits"]),
		LastAccessedAt: asPTime(p["last_accessed_at"]),
		ExpiresAt:      asPTime(p["expires_at"]),
		ForgottenAt:    asPTime(p["forgotten_at"]),
		ArchivedAt:     asPTime(p["archived_at"]),
		UpdatedAt:      asTime(p["updated_at"]),
		Conflicts:      asStrings(p["conflicts"]),
		Waiting:        p["waiting"] == true,
		Seq:            uint64(asInt(p["seq"])),
	}
	var err error
	if f.Attributes, err = anyMap(p["attributes"]); err != nil {
		return f, err
	}
	if err := getJSON(p["claims"], &f.Claims); err != nil {
		return f, err
	}
	if err := getJSON(p["revisions"], &f.Revisions); err != nil {
		return f, err
	}
	if len(f.Claims) == 0 {
		f.Claims = nil
	}
	if len(f.Revisions) == 0 {
		f.Revisions = nil
	}
	return f, nil
}

// storedFact is f as decodeFact reads back the properties factProps made
// of it in scope (its change number left 0), made without decoding the JSON of
// its claims and revisions again; false when that round trip could change
// it: attributes (their numbers come back as float64) or a string JSON
// would mend (not valid UTF-8). Only for a fact factProps accepted; what
// it returns shares no list or pointer with f.
func storedFact(f entity.Fact, scope string) (entity.Fact, bool) {
	if len(f.Attributes) > 0 || !jsonSafe(f.Claims, f.Revisions) {
		return entity.Fact{}, false
	}
	f.Scope, f.Seq, f.Attributes = scope, 0, nil
	f.ValidFrom, f.RecordedAt, f.UpdatedAt = f.ValidFrom.UTC(), f.RecordedAt.UTC(), f.UpdatedAt.UTC()
	for _, t := range []**time.Time{&f.ValidTo, &f.ExpiredAt, &f.LastAccessedAt, &f.ExpiresAt, &f.ForgottenAt, &f.ArchivedAt} {
		*t = storedPTime(*t)
	}
	f.EpisodeIDs, f.Conflicts = storedStrs(f.EpisodeIDs), storedStrs(f.Conflicts)
	f.Claims, f.Revisions = utcClaims(f.Claims), utcRevisions(f.Revisions)
	for i := range f.Claims {
		f.Claims[i].Attributes = nil // empty (jsonSafe), read back as none
	}
	return f, true
}

// jsonSafe reports whether the claims and revisions come back from JSON as
// they went in: no attributes, every string valid UTF-8.
func jsonSafe(cs []entity.Claim, rs []entity.Revision) bool {
	for i := range cs {
		c := &cs[i]
		if len(c.Attributes) > 0 || !utf8.ValidString(c.EpisodeID) || !utf8.ValidString(string(c.SourceKind)) ||
			!utf8.ValidString(c.Text) {
			return false
		}
	}
	for i := range rs {
		if !utf8.ValidString(rs[i].Supersedes) || !utf8.ValidString(rs[i].SupersededBy) {
			return false
		}
	}
	return true
}

// storedPTime is a time that may be absent as read back: absent when zero.
func storedPTime(t *time.Time) *time.Time {
	if t == nil || t.IsZero() {
		return nil
	}
	return utcPtr(t)
}

// storedStrs is a list as read back: absent when empty, else a copy.
func storedStrs(l []string) []string {
	if len(l) == 0 {
		return nil
	}
	return slices.Clone(l)
}

func episodeProps(e *entity.Episode) (map[string]any, error) {
	p := map[string]any{"id": e.ID}
	putStr(p, "kind", e.Kind)
	putStr(p, "content", e.Content)
	putStr(p, "speaker", e.Speaker)
	putStr(p, "role", e.Role)
	// Always stored, the zero time included, so every episode is in the
	// due index and an unknown reference time sorts first.
	p["reference_time"] = e.ReferenceTime.UTC()
	putTime(p, "recorded_at", e.RecordedAt)
	putStr(p, "source_kind", string(e.SourceKind))
	putStr(p, "status", e.Status)
	putStr(p, "error", e.Error)
	if e.Attempts != 0 {
		p["attempts"] = int64(e.Attempts)
	}
	putPTime(p, "next_attempt_at", e.NextAttemptAt)
	if err := putJSON(p, "metadata", e.Metadata, len(e.Metadata) == 0); err != nil {
		return nil, err
	}
	putStr(p, "idempotency_key", e.IdempotencyKey)
	putStrs(p, "fact_ids", e.FactIDs)
	putPTime(p, "forgotten_at", e.ForgottenAt)
	if e.PromptTokens != 0 || e.CompletionTokens != 0 {
		p["prompt_tokens"], p["completion_tokens"] = e.PromptTokens, e.CompletionTokens
	}
	if err := putJSON(p, "extraction", e.Extraction, e.Extraction == nil); err != nil {
		return nil, err
	}
	return p, nil
}

func decodeEpisode(scope string, p map[string]any) (entity.Episode, error) {
	e := entity.Episode{
		ID:               asString(p["id"]),
		Scope:            scope,
		Kind:             asString(p["kind"]),
		Content:          asString(p["content"]),
		Speaker:          asString(p["speaker"]),
		Role:             asString(p["role"]),
		ReferenceTime:    asTime(p["reference_time"]),
		RecordedAt:       asTime(p["recorded_at"]),
		SourceKind:       entity.SourceKind(asString(p["source_kind"])),
		Status:           asString(p["status"]),
		Error:            asString(p["error"]),
		Attempts:         int(asInt(p["attempts"])),
		NextAttemptAt:    asPTime(p["next_attempt_at"]),
		IdempotencyKey:   asString(p["idempotency_key"]),
		FactIDs:          asStrings(p["fact_ids"]),
		ForgottenAt:      asPTime(p["forgotten_at"]),
		Seq:              uint64(asInt(p["seq"])),
		PromptTokens:     asInt(p["prompt_tokens"]),
		CompletionTokens: asInt(p["completion_tokens"]),
	}
	var err error
	if e.Metadata, err = anyMap(p["metadata"]); err != nil {
		return e, err
	}
	if _, ok := p["extraction"].(string); ok {
		e.Extraction = new(entity.Extraction)
		err = getJSON(p["extraction"], e.Extraction)
	}
	return e, err
}

func tombstoneProps(t *entity.Tombstone) map[string]any {
	p := map[string]any{"fingerprint": t.Fingerprint}
	putTime(p, "at", t.At)
	putStr(p, "reason", t.Reason)
	putStrs(p, "fact_ids", t.FactIDs)
	return p
}

func decodeTombstone(scope string, p map[string]any) entity.Tombstone {
	return entity.Tombstone{
		Scope:       scope,
		Fingerprint: asString(p["fingerprint"]),
		At:          asTime(p["at"]),
		Reason:      asString(p["reason"]),
		FactIDs:     asStrings(p["fact_ids"]),
	}
}
