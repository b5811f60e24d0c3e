package memory

import (
	"context"
	"slices"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// RecentChange is a record of a scope written lately, newest first in
// RecentChanges. Exactly one of Fact, Entity and Episode is set for a
// record that still exists and may be shown; a deleted record, a forgotten
// fact and a tombstone carry only their kind and id.
type RecentChange struct {
	Seq     uint64
	Kind    string // graph.KindFact, KindEntity, KindEpisode or KindTombstone
	ID      string
	Deleted bool
	Fact    *entity.Fact
	Entity  *entity.Entity
	Episode *entity.Episode
}

// Recent-change bounds.
const (
	// RecentWindow is how many of the store's latest changes, across every
	// scope, RecentChanges looks through: it bounds the cost of the feed,
	// and a scope silent for longer shows fewer changes.
	RecentWindow = 2000
)

// RecentChanges returns up to limit of the scope's records changed after
// sequence number after, the latest first, read from the store's change
// feed (at most RecentWindow changes of all scopes).
func (s *Service) RecentChanges(ctx context.Context, scope entity.Scope, after uint64, limit int) ([]RecentChange, error) {
	limit = min(max(limit, 1), entity.MaxRecent)
	cs, err := s.Store.Changes(ctx, after, RecentWindow)
	if err != nil {
		return nil, err
	}
	// The scope's changes, newest first, each record once.
	var out []RecentChange
	seen := map[string]bool{}
	for _, c := range slices.Backward(cs) {
		if c.Scope != scope || seen[c.Kind+"|"+c.ID] {
			continue
		}
		seen[c.Kind+"|"+c.ID] = true
		out = append(out, RecentChange{Seq: c.Seq, Kind: c.Kind, ID: c.ID, Deleted: c.Deleted})
		if len(out) == limit {
			break
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	now := s.now()
	err = s.Store.View(ctx, scope, func(tx graph.Tx) error {
		for i := range out {
			c := &out[i]
			c.Fact, c.Entity, c.Episode = nil, nil, nil
			if c.Deleted {
				continue
			}
			var err error
			switch c.Kind {
			case graph.KindFact:
				var f entity.Fact
				if f, err = tx.Fact(c.ID); err == nil && f.ForgottenAt == nil {
					v := f.AsKnownAt(now)
					c.Fact = &v
				}
			case graph.KindEntity:
				var e entity.Entity
				if e, err = tx.Entity(c.ID); err == nil && e.ForgottenAt == nil {
					c.Entity = &e
				}
			case graph.KindEpisode:
				var e entity.Episode
				if e, err = tx.Episode(c.ID); err == nil && e.ForgottenAt == nil {
					c.Episode = &e
				}
			}
			if entity.ErrorCode(err) == entity.ENOTFOUND {
				c.Deleted = true // deleted after the feed was read
			} else if err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}
