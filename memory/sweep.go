package memory

import (
	"context"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// DecayPolicy says when a fact is cold enough to archive: importance at most
// MaxImportance, recalled at most MaxHits times, and not used (recalled, or
// recorded) for longer than After. Archived facts leave recall but stay
// queryable by id and in history.
type DecayPolicy struct {
	After         time.Duration
	MaxImportance int
	MaxHits       int64
}

// DefaultDecay archives unimportant facts unused for 180 days.
var DefaultDecay = DecayPolicy{After: 180 * 24 * time.Hour, MaxImportance: 3, MaxHits: 2}

const sweepPage = 500

// Sweep archives cold facts in every scope and returns how many. TTL needs
// no sweep: a fact past its expires_at leaves recall at that instant.
func (s *Service) Sweep(ctx context.Context, p DecayPolicy) (int, error) {
	scopes, err := s.Store.Scopes(ctx)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, sc := range scopes {
		n, err := s.sweepScope(ctx, sc, p)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

func (s *Service) sweepScope(ctx context.Context, scope entity.Scope, p DecayPolicy) (int, error) {
	now := s.now()
	cursor, total := "", 0
	for {
		var cold []entity.Fact
		var next string
		err := s.Store.View(ctx, scope, func(tx graph.Tx) error {
			fs, cur, err := tx.Facts(graph.FactFilter{Cursor: cursor, Limit: sweepPage})
			cold, next = nil, cur
			for _, f := range fs {
				if Cold(&f, p, now) {
					cold = append(cold, f)
				}
			}
			return err
		})
		if err != nil {
			return total, err
		}
		if len(cold) > 0 {
			archived := 0
			err := s.update(ctx, scope, func(tx graph.Tx) error {
				// Re-read inside the write: a recall may have warmed a fact.
				// The count is set, not added to, so a retried transaction
				// counts once.
				var writes []entity.Fact
				for _, f := range cold {
					cur, err := tx.Fact(f.ID)
					if entity.ErrorCode(err) == entity.ENOTFOUND {
						continue
					} else if err != nil {
						return err
					}
					if Cold(&cur, p, now) {
						cur.ArchivedAt = &now
						writes = append(writes, cur)
					}
				}
				archived = len(writes)
				return tx.PutFacts(writes)
			})
			if err != nil {
				return total, err
			}
			total += archived
		}
		if next == "" {
			return total, nil
		}
		cursor = next
	}
}

// Cold reports whether the policy archives f at now.
func Cold(f *entity.Fact, p DecayPolicy, now time.Time) bool {
	if f.ArchivedAt != nil || f.ForgottenAt != nil || f.ExpiredAt != nil {
		return false
	}
	if f.Importance > p.MaxImportance || f.Hits > p.MaxHits {
		return false
	}
	last := f.RecordedAt
	if f.LastAccessedAt != nil && f.LastAccessedAt.After(last) {
		last = *f.LastAccessedAt
	}
	return now.Sub(last) > p.After
}

// RunSweeper sweeps every interval until ctx ends.
func (s *Service) RunSweeper(ctx context.Context, every time.Duration, p DecayPolicy, onErr func(error)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := s.Sweep(ctx, p); err != nil && onErr != nil && ctx.Err() == nil {
				onErr(err)
			}
		}
	}
}
