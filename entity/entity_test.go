package entity_test

import (
	"errors"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
)

func TestParseTime(t *testing.T) {
	march := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"2024-03-01", march},
		{" 2024-03-01 ", march},
		{"2024-03-01T00:00:00Z", march},
		{"2024-03-01T09:30:00.5Z", march.Add(9*time.Hour + 30*time.Minute + 500*time.Millisecond)},
		{"2024-03-01T10:00:00+01:00", march.Add(9 * time.Hour)},
		{"1000-01-01", time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"9999-12-31T23:59:59Z", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)},
	} {
		got, err := entity.ParseTime(tc.in)
		if err != nil || !got.Equal(tc.want) || got.Location() != time.UTC {
			t.Errorf("ParseTime(%q) = %v, %v; want %v in UTC", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "yesterday", "2024-3-1", "2024-03-01T09:30", "2024-13-01", "01/03/2024", "2024-03-01T09:30:00",
		// Outside the years 1000 to 9999, in UTC: year 1 is Go's zero time
		// (no time at all), year 10000 cannot be written back.
		"0001-01-01T00:00:00Z", "0000-01-01", "0999-12-31", "1000-01-01T00:30:00+01:00", "9999-12-31T23:00:00-05:00"} {
		if _, err := entity.ParseTime(in); !errors.Is(err, entity.ErrTime) || err.Error() != entity.TimeMessage {
			t.Errorf("ParseTime(%q): error %v, want ErrTime", in, err)
		}
	}
}

func TestEpisode_SpeakerNamedOnce(t *testing.T) {
	for _, tc := range []struct{ speaker, content, said string }{
		{"Sam", "I moved to Lisbon", "Sam: I moved to Lisbon"},
		{"Sam", "Sam: I moved to Lisbon", "Sam: I moved to Lisbon"},
		{"Sam", "sam:I moved to Lisbon", "Sam: I moved to Lisbon"},
		{"Sam", "Note: Sam moved", "Sam: Note: Sam moved"},
		{"", "Sam: I moved", "Sam: I moved"},
	} {
		e := entity.Episode{Speaker: tc.speaker, Content: tc.content}
		if got := e.Said(); got != tc.said {
			t.Errorf("%q by %q: %q, want %q", tc.content, tc.speaker, got, tc.said)
		}
	}
}
