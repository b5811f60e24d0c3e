package vector

import (
	"container/list"
	"sync"
)

// queryCache remembers the vectors of the last questions asked.
type queryCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front: most recent
	byKey map[string]*list.Element
}

type cached struct {
	key string
	vec []float32
}

func newQueryCache(n int) *queryCache {
	return &queryCache{max: n, order: list.New(), byKey: map[string]*list.Element{}}
}

func (c *queryCache) get(k string) ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cached).vec, true
}

func (c *queryCache) put(k string, v []float32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.max <= 0 {
		return
	}
	if e, ok := c.byKey[k]; ok {
		c.order.MoveToFront(e)
		return
	}
	c.byKey[k] = c.order.PushFront(&cached{k, v})
	if c.order.Len() > c.max {
		e := c.order.Back()
		c.order.Remove(e)
		delete(c.byKey, e.Value.(*cached).key)
	}
}
