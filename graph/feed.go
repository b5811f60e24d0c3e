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

// Follow runs sync until ctx ends: at once, then whenever notify receives
// and at least every interval (default 1 s). Errors go to onErr (when set)
// and are retried at the next tick. Both derived indexes follow the store
// this way.
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
		case <-t.C:
		}
	}
}
