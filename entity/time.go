package entity

import (
	"errors"
	"strings"
	"time"
)

// TimeMessage is what every interface (REST, JSON Lines, CLI, MCP) says
// about a time it cannot read, after the name of the field.
const TimeMessage = "must be an RFC 3339 time (2024-03-01T09:30:00Z) or a date (2024-03-01)"

// ErrTime is the error of ParseTime; its text is TimeMessage.
var ErrTime = errors.New(TimeMessage)

// ParseTime reads a time the one way graphmem accepts one everywhere: RFC
// 3339, with or without fractional seconds, or a plain date (YYYY-MM-DD),
// which means midnight UTC. Surrounding spaces are ignored; the result is in
// UTC. Anything else, the empty string included, is ErrTime.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, ErrTime
}
