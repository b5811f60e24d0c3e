package graph

import (
	"context"
	"slices"
	"time"

	"github.com/graphmem/graphmem/entity"
)

// Behind lists, in name order, the scopes whose head (Store.Heads) is past
// the position a follower reached in them (at).
func Behind(heads map[entity.Scope]uint64, at func(entity.Scope) uint64) []entity.Scope {
	var out []entity.Scope
	for scope, head := range heads {
		if head > at(scope) {
			out = append(out, scope)
		}
	}
	slices.Sort(out)
	return out
}

// FollowSettle is how long Follow lets commits gather after a notify
// before it syncs: under many small concurrent writes (an episode is two
// or three commits) one sync then covers dozens of them, and the search
// index builds one segment instead of one per commit, which its merger
// would otherwise spend most of the CPU rewriting. Queries do not wait for
// it: they apply their own scope's pending writes (read your writes).
const FollowSettle = 100 * time.Millisecond

// Follow runs sync until ctx ends: at once, then FollowSettle after notify
// receives, and at least every interval (default 1 s). Errors go to onErr
// (when set) and are retried at the next tick. Both derived indexes follow
// the store this way.
func Follow(ctx context.Context, sync func(context.Context) error, notify <-chan struct{}, interval time.Duration, onErr func(error)) {
	if interval <= 0 {
		interval = time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := sync(ctx); err != nil && ctx.Err() == nil && onErr != nil {
			onErr(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-notify:
			select {
			case <-ctx.Done():
				return
			case <-time.After(FollowSettle):
			}
			// The sync reads the heads after this point, so it covers
			// every notify received so far.
			select {
			case <-notify:
			default:
			}
		case <-t.C:
		}
	}
}
