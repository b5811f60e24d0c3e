package bolt

import (
	"bytes"
	"encoding/binary"
	"time"
	"unicode/utf8"

	"github.com/graphmem/graphmem/entity"
)

// Buckets. Data buckets hold records under scope 0x00 id; index buckets
// hold keys (values empty unless noted).
const (
	bEntity    = iota // scope 0 id → entity
	bFact             // scope 0 subject 0 predicate 0 id → fact, so a chain is one range of values
	bFactID           // scope 0 id → subject 0 predicate: where a fact is
	bEpisode          // scope 0 id → episode
	bTombstone        // scope 0 fingerprint → tombstone
	bMeta             // scope 0 key → raw value (no sequence number)

	bName      // scope 0 name-key 0 entity id — EntitiesByKey, EntitiesByPrefix
	bObject    // scope 0 ('e' object id | 'v' value-key) 0 fact id — FactsOf, Facts(object, value)
	bPredicate // scope 0 predicate 0 fact id — Facts(predicate)
	bEpKey     // scope 0 idempotency key → episode id
	bEpStatus  // scope 0 status 0 episode id
	bDue       // reference time (12 bytes) scope 0 id → next attempt (12 bytes or empty)

	bSeq  // sequence (8 bytes) → kind, deleted, scope 0 id (one per record, at its latest write)
	bGone // kind scope 0 id → sequence of the deletion
	bInfo // store-level settings (schema version)

	numBuckets
)

var bucketNames = [numBuckets][]byte{
	bEntity: []byte("entity"), bFact: []byte("fact_chain"), bFactID: []byte("fact_id"), bEpisode: []byte("episode"),
	bTombstone: []byte("tombstone"), bMeta: []byte("meta"),
	bName: []byte("ix_name"), bObject: []byte("ix_object"), bPredicate: []byte("ix_predicate"),
	bEpKey: []byte("ix_episode_key"), bEpStatus: []byte("ix_episode_status"), bDue: []byte("ix_due"),
	bSeq: []byte("seq"), bGone: []byte("gone"), bInfo: []byte("info"),
}

// dataBuckets are the buckets with one key per record, scope 0 id.
var dataBuckets = []int{bEntity, bFactID, bEpisode, bTombstone, bMeta}

// Change kinds as stored in bSeq and bGone.
const (
	kEntity    byte = 'n'
	kFact      byte = 'f'
	kEpisode   byte = 'e'
	kTombstone byte = 't'
)

func kindName(k byte) string {
	switch k {
	case kEntity:
		return "entity"
	case kFact:
		return "fact"
	case kEpisode:
		return "episode"
	case kTombstone:
		return "tombstone"
	}
	return ""
}

const sep = 0x00

// Bounds on the strings that go into keys. bbolt keys are at most 32 KiB;
// a chain key holds a scope, a subject id, a predicate and a fact id.
const (
	maxIDLen = entity.MaxIDBytes
	// maxKeyPart is where names and literal values are cut in index keys;
	// lookups through a cut key re-check the full record.
	maxKeyPart = 512
)

// keyID is the last part of a key: the id that ends every index and
// chain key.
func keyID(k []byte) string { return string(k[bytes.LastIndexByte(k, sep)+1:]) }

// truncKey cuts s to at most maxKeyPart bytes on a rune boundary.
func truncKey(s string) string {
	if len(s) <= maxKeyPart {
		return s
	}
	n := maxKeyPart
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// join builds a key from parts separated by 0x00.
func join(parts ...string) []byte {
	n := len(parts) - 1
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for i, p := range parts {
		if i > 0 {
			b = append(b, sep)
		}
		b = append(b, p...)
	}
	return b
}

// splitScope splits a data key into scope and id.
func splitScope(k []byte) (string, string, bool) {
	i := bytes.IndexByte(k, sep)
	if i < 0 {
		return "", "", false
	}
	return string(k[:i]), string(k[i+1:]), true
}

func be64(v uint64) []byte { return binary.BigEndian.AppendUint64(make([]byte, 0, 8), v) }

// sortTime encodes t in 12 bytes that sort like the instants they encode.
func sortTime(b []byte, t time.Time) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(t.Unix())^(1<<63))
	return binary.BigEndian.AppendUint32(b, uint32(t.Nanosecond()))
}

func readSortTime(b []byte) time.Time {
	sec := int64(binary.BigEndian.Uint64(b) ^ (1 << 63))
	return time.Unix(sec, int64(binary.BigEndian.Uint32(b[8:]))).UTC()
}

// ixEntry is one secondary-index entry of a record.
type ixEntry struct {
	bucket int
	key    []byte
	val    []byte
}

func (e ixEntry) equal(o ixEntry) bool {
	return e.bucket == o.bucket && bytes.Equal(e.key, o.key) && bytes.Equal(e.val, o.val)
}

// objectKey is the object part of a bObject key, "" if the fact has no
// indexed object (an unresolved object name).
func objectKey(h *factHead) string {
	switch {
	case h.ObjectID != "":
		return "e" + h.ObjectID
	case h.Value != "":
		return "v" + truncKey(entity.Normalize(h.Value))
	}
	return ""
}

// factIndex lists a fact's index entries. There is deliberately no chain
// or adjacency index: facts are stored in chain order, which groups a
// subject's facts, and the object index groups an object's. Every index
// whose keys land on random pages costs about one 4 KiB page write per
// fact in a batch.
func factIndex(scope, id string, h *factHead) []ixEntry {
	ix := make([]ixEntry, 0, 2)
	ix = append(ix, ixEntry{bucket: bPredicate, key: join(scope, h.Predicate, id)})
	if ok := objectKey(h); ok != "" {
		ix = append(ix, ixEntry{bucket: bObject, key: join(scope, ok, id)})
	}
	return ix
}

// nameKeys are the distinct non-empty index keys of an entity's names.
func nameKeys(h *entityHead) []string {
	e := entity.Entity{Name: h.Name, Aliases: h.Aliases}
	keys := e.Keys()
	out := keys[:0]
	for _, k := range keys {
		if k == "" {
			continue
		}
		k = truncKey(k)
		dup := false
		for _, o := range out {
			dup = dup || o == k
		}
		if !dup {
			out = append(out, k)
		}
	}
	return out
}

func entityIndex(scope, id string, h *entityHead) []ixEntry {
	keys := nameKeys(h)
	ix := make([]ixEntry, 0, len(keys))
	for _, k := range keys {
		ix = append(ix, ixEntry{bucket: bName, key: join(scope, k, id)})
	}
	return ix
}

// due reports whether an episode with this status waits for processing.
func dueStatus(status string) bool {
	return status == entity.EpisodeQueued || status == entity.EpisodeProcessing
}

func episodeIndex(scope, id string, h *episodeHead) []ixEntry {
	ix := make([]ixEntry, 0, 3)
	ix = append(ix, ixEntry{bucket: bEpStatus, key: join(scope, h.Status, id)})
	if h.IdempotencyKey != "" {
		ix = append(ix, ixEntry{bucket: bEpKey, key: join(scope, h.IdempotencyKey), val: []byte(id)})
	}
	if dueStatus(h.Status) {
		k := sortTime(make([]byte, 0, 12+len(scope)+1+len(id)), h.ReferenceTime)
		k = append(k, scope...)
		k = append(k, sep)
		k = append(k, id...)
		var v []byte
		if h.NextAttemptAt != nil {
			v = sortTime(nil, *h.NextAttemptAt)
		}
		ix = append(ix, ixEntry{bucket: bDue, key: k, val: v})
	}
	return ix
}

// changeValue is a bSeq value.
func changeValue(kind byte, deleted bool, dataKey []byte) []byte {
	v := make([]byte, 0, 2+len(dataKey))
	v = append(v, kind)
	if deleted {
		v = append(v, 1)
	} else {
		v = append(v, 0)
	}
	return append(v, dataKey...)
}

// factKey is a bFact key.
func factKey(scope, subjectID, predicate, id string) []byte {
	return join(scope, subjectID, predicate, id)
}

// factPlace is a bFactID value: the part of the fact's key between its
// scope and its id.
func factPlace(subjectID, predicate string) []byte { return join(subjectID, predicate) }

// placedKey is the bFact key of the fact id of scope stored at place.
func placedKey(scope, id string, place []byte) []byte {
	k := make([]byte, 0, len(scope)+len(place)+len(id)+2)
	k = append(append(k, scope...), sep)
	k = append(append(k, place...), sep)
	return append(k, id...)
}

// goneKey is a bGone key.
func goneKey(kind byte, dataKey []byte) []byte {
	return append([]byte{kind}, dataKey...)
}
