package entity_test

import (
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
)

func TestFactStatusAt(t *testing.T) {
	day := func(n int) time.Time { return time.Date(2024, 1, 1+n, 0, 0, 0, 0, time.UTC) }
	p := func(t time.Time) *time.Time { return &t }
	now := day(100)
	old := entity.Fact{ValidFrom: day(0), ValidTo: p(day(10)), SupersededBy: "f2"}
	ended := entity.Fact{ValidFrom: day(0), ValidTo: p(day(10))}
	cur := entity.Fact{ValidFrom: day(10)}
	unknown := entity.Fact{ValidTo: p(day(10))} // start unknown
	retracted := entity.Fact{ValidFrom: day(0), ExpiredAt: p(day(50))}
	ttl := entity.Fact{ValidFrom: day(0), ExpiresAt: p(day(60))}
	for _, c := range []struct {
		name string
		f    entity.Fact
		asOf time.Time
		want entity.Status
	}{
		{"superseded now", old, now, entity.StatusSuperseded},
		{"in force at as_of", old, day(5), entity.StatusCurrent},
		{"zero as_of is now", old, time.Time{}, entity.StatusSuperseded},
		{"ended", ended, now, entity.StatusEnded},
		{"future at as_of", cur, day(5), entity.StatusFuture},
		{"current", cur, now, entity.StatusCurrent},
		{"start unknown, before its end", unknown, day(-1000), entity.StatusCurrent},
		{"start unknown, after its end", unknown, day(11), entity.StatusEnded},
		{"retraction wins over as_of", retracted, day(5), entity.StatusRetracted},
		{"TTL is judged now", ttl, day(5), entity.StatusExpired},
	} {
		if got := c.f.StatusAt(c.asOf, now); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
