package entity

import (
	"errors"
	"strings"
	"time"
)

// TimeMessage is what every interface (REST, JSON Lines, CLI, MCP) says
// about a time it cannot read, after the name of the field.
const TimeMessage = "must be an RFC 3339 time (2024-03-01T09:30:00Z) or a date (2024-03-01) in the years 1000 to 9999"

// MinYear and MaxYear bound the years of the times graphmem reads (in
// UTC). Year 1, Go's zero time, would otherwise read as "no time" (a
// start that is not known), and a year past 9999 cannot be written back
// as RFC 3339.
const (
	MinYear = 1000
	MaxYear = 9999
)

// ErrTime is the error of ParseTime; its text is TimeMessage.
var ErrTime = errors.New(TimeMessage)

// ParseTime reads a time the one way graphmem accepts one everywhere: RFC
// 3339, with or without fractional seconds, or a plain date (YYYY-MM-DD),
// which means midnight UTC, in the years MinYear to MaxYear. Surrounding
// spaces are ignored; the result is in UTC. Anything else, the empty
// string included, is ErrTime.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t, err = time.Parse(time.DateOnly, s)
	}
	if t = t.UTC(); err != nil || t.Year() < MinYear || t.Year() > MaxYear {
		return time.Time{}, ErrTime
	}
	return t, nil
}
