package bolt

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
)

// fill sets every exported field reachable from v to a distinct non-zero
// value, so a field the codec forgets (for instance one added to entity
// later) shows up as a round-trip difference.
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d-ü北", *n))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.25)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), n)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		fill(s.Index(0), n)
		fill(s.Index(1), n)
		v.Set(s)
	case reflect.Map:
		// Free-form maps hold JSON values.
		v.Set(reflect.ValueOf(map[string]any{"k": fmt.Sprint(*n), "n": float64(*n), "l": []any{"x", true}}))
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(1_700_000_000+int64(*n), int64(*n)).UTC()))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}

func filled[T any]() T {
	var r T
	n := 0
	fill(reflect.ValueOf(&r).Elem(), &n)
	return r
}

func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s round trip:\n got %s\nwant %s", what, g, w)
	}
}

// scribble overwrites a stored value, as bbolt reuses a page after the
// transaction that read it: nothing decoded may still point into it.
func scribble(v []byte) {
	for i := range v {
		v[i] = 0xff
	}
}

func TestCodecRoundTrip(t *testing.T) {
	t.Run("Fact", func(t *testing.T) {
		for _, f := range []entity.Fact{filled[entity.Fact](), {}} {
			f.ID, f.Scope, f.Seq = "f1", "s", 77
			v, err := encodeFact(f.Seq, &f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeFact("s", "f1", v)
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "fact", got, f)
			h, seq, err := decodeFactHead(v)
			if err != nil || seq != 77 || h != (factHead{f.SubjectID, f.Predicate, f.ObjectID, f.Value}) {
				t.Errorf("decodeFactHead = %+v, %d, %v", h, seq, err)
			}
			scribble(v) // the database's bytes die with the transaction
			sameJSON(t, "fact after its bytes changed", got, f)
		}
	})
	t.Run("Entity", func(t *testing.T) {
		for _, e := range []entity.Entity{filled[entity.Entity](), {}} {
			e.ID, e.Scope, e.Seq = "e1", "s", 5
			v, err := encodeEntity(e.Seq, &e)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeEntity("s", "e1", v)
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "entity", got, e)
			scribble(v)
			sameJSON(t, "entity after its bytes changed", got, e)
		}
	})
	t.Run("Episode", func(t *testing.T) {
		for _, e := range []entity.Episode{filled[entity.Episode](), {}} {
			e.ID, e.Scope, e.Seq = "p1", "s", 9
			v, err := encodeEpisode(e.Seq, &e)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeEpisode("s", "p1", v)
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "episode", got, e)
			scribble(v)
			sameJSON(t, "episode after its bytes changed", got, e)
		}
	})
	t.Run("Tombstone", func(t *testing.T) {
		for _, ts := range []entity.Tombstone{filled[entity.Tombstone](), {}} {
			ts.Scope, ts.Fingerprint = "s", "fp"
			got, err := decodeTombstone("s", "fp", encodeTombstone(3, &ts))
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "tombstone", got, ts)
		}
	})
	t.Run("ExtremeTimes", func(t *testing.T) {
		for _, tm := range []time.Time{
			time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
			time.Date(1500, 6, 1, 0, 0, 0, 0, time.UTC),
			time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		} {
			f := entity.Fact{ID: "f", Scope: "s", ValidFrom: tm, ValidTo: &tm}
			v, _ := encodeFact(0, &f)
			got, err := decodeFact("s", "f", v)
			if err != nil || !got.ValidFrom.Equal(tm) || !got.ValidTo.Equal(tm) {
				t.Errorf("time %v came back as %v, %v (%v)", tm, got.ValidFrom, got.ValidTo, err)
			}
		}
	})
}

// TestCodecTruncated feeds every prefix of a record to the decoders: each
// must fail cleanly, never panic or allocate wildly.
func TestCodecTruncated(t *testing.T) {
	f := filled[entity.Fact]()
	v, _ := encodeFact(1, &f)
	for n := range len(v) {
		if _, err := decodeFact("s", "f", v[:n]); err == nil {
			t.Fatalf("fact cut to %d of %d bytes decoded without error", n, len(v))
		}
	}
	e := filled[entity.Episode]()
	v, _ = encodeEpisode(1, &e)
	for n := range len(v) {
		if _, err := decodeEpisode("s", "p", v[:n]); err == nil {
			t.Fatalf("episode cut to %d of %d bytes decoded without error", n, len(v))
		}
	}
}

func FuzzDecodeFact(f *testing.F) {
	fact := filled[entity.Fact]()
	v, _ := encodeFact(1, &fact)
	f.Add(v)
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1, codecVersion, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeFact("s", "f", b)
		decodeEntity("s", "e", b)
		decodeEpisode("s", "p", b)
		decodeTombstone("s", "t", b)
	})
}

// TestCodecEpisodeVersion2 reads an episode written before tokens were
// counted and extractions reported: the tokens are zero, the report nil,
// the rest is whole.
func TestCodecEpisodeVersion2(t *testing.T) {
	e := filled[entity.Episode]()
	e.PromptTokens, e.CompletionTokens, e.Seq, e.Extraction = 0, 0, 1, nil
	v, _ := encodeEpisode(1, &e)
	old := append([]byte(nil), v[:len(v)-3]...) // the two zero varints and the empty report
	old[8] = 2
	got, err := decodeEpisode(e.Scope, e.ID, old)
	if err != nil || !reflect.DeepEqual(got, e) {
		t.Fatalf("version 2 episode: %v\n got %+v\nwant %+v", err, got, e)
	}
}

// storedValidAt reads a stored fact's interval as decodeFact does, with
// every field before it filled (names, text) and open or closed ends.
func TestStoredValidAt(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2024, 1, d, 0, 0, 0, 0, time.UTC) }
	to := day(20)
	for _, f := range []entity.Fact{
		filled[entity.Fact](),
		{SubjectID: "s", Predicate: "p", Subject: "S", Text: "s p o", ValidFrom: day(10)},
		{SubjectID: "s", Predicate: "p", Value: "v", ValidFrom: day(10), ValidTo: &to},
		{SubjectID: "s", Predicate: "p", ValidTo: &to},
	} {
		v, err := encodeFact(1, &f)
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range []time.Time{day(1), day(10), day(15), day(20), day(25), time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)} {
			if got, want := storedValidAt(v, at), f.ValidAt(at); got != want {
				t.Errorf("%v–%v at %v: stored %v, want %v", f.ValidFrom, f.ValidTo, at, got, want)
			}
		}
	}
	if !storedValidAt([]byte("short"), day(1)) {
		t.Error("an unreadable value must be left to decodeFact")
	}
}
