package search

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sync"

	"github.com/blevesearch/bleve/v2"

	"github.com/graphmem/graphmem/entity"
)

// posShards is how many internal keys hold the positions: a batch rewrites
// only the shards of the scopes it advanced.
const posShards = 64

func posKey(shard int) []byte { return fmt.Appendf(nil, "graphmem.seq.%02d", shard) }

func shardOf(scope entity.Scope) int {
	h := fnv.New32a()
	h.Write([]byte(scope))
	return int(h.Sum32() % posShards)
}

// positions are, per scope, the sequence number up to which the index
// applied the scope's changes (graph.Store.ScopeChanges). They are stored
// in the index, each shard in the batch that applies the changes it
// records, so a crash leaves documents and positions at one earlier point.
type positions struct {
	mu     sync.RWMutex
	shards [posShards]map[entity.Scope]uint64
}

func (p *positions) load(bi bleve.Index) error {
	for i := range p.shards {
		p.shards[i] = map[entity.Scope]uint64{}
		v, err := bi.GetInternal(posKey(i))
		if err != nil {
			return err
		}
		if v != nil {
			if err := json.Unmarshal(v, &p.shards[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *positions) get(scope entity.Scope) uint64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.shards[shardOf(scope)][scope]
}

// encode returns the internal keys and values of the shards holding the
// scopes of to, as they will be once to is applied.
func (p *positions) encode(to map[entity.Scope]uint64) (map[int][]byte, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	next := map[int]map[entity.Scope]uint64{}
	for scope, seq := range to {
		i := shardOf(scope)
		if next[i] == nil {
			next[i] = make(map[entity.Scope]uint64, len(p.shards[i])+1)
			for k, v := range p.shards[i] {
				next[i][k] = v
			}
		}
		next[i][scope] = seq
	}
	out := make(map[int][]byte, len(next))
	for i, m := range next {
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// set records to once it is applied.
func (p *positions) set(to map[entity.Scope]uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for scope, seq := range to {
		p.shards[shardOf(scope)][scope] = seq
	}
}
