package graph

import (
	"slices"

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
