package neo4j

import (
	"fmt"
	"testing"

	"github.com/graphmem/graphmem/entity"
)

// TestFactCacheBounds fills a cache past its size and wants it within its
// bound, the least recently used facts gone, one version per fact, and
// none at all for a negative size.
func TestFactCacheBounds(t *testing.T) {
	p := map[string]any{"id": "f", "text": string(make([]byte, 1000))}
	size := propsSize(p)
	c := newFactCache(10 * size)
	for i := range 15 {
		c.put("s", version{int64(i), 1}, entity.Fact{ID: fmt.Sprint(i)}, p)
		if i == 9 {
			if _, ok := c.get("s", "0", version{0, 1}); !ok { // now the most recently used
				t.Fatal("fact 0 is gone before the cache is full")
			}
		}
	}
	if c.used > c.max || len(c.at) != 10 || c.order.Len() != 10 {
		t.Fatalf("%d bytes in %d entries (%d listed), bound %d", c.used, len(c.at), c.order.Len(), c.max)
	}
	if _, ok := c.get("s", "0", version{0, 1}); !ok {
		t.Error("fact 0, used recently, was dropped")
	}
	if _, ok := c.get("s", "1", version{1, 1}); ok {
		t.Error("fact 1, the least recently used, is still there")
	}
	if _, ok := c.get("s", "14", version{14, 2}); ok {
		t.Error("a fact found at another version")
	}
	if _, ok := c.get("t", "14", version{14, 1}); ok {
		t.Error("a fact found in another scope")
	}
	c.put("s", version{14, 2}, entity.Fact{ID: "14"}, p)
	if _, ok := c.get("s", "14", version{14, 1}); ok || len(c.at) != 10 {
		t.Errorf("a new version of a fact did not replace the old one (%d entries)", len(c.at))
	}
	if newFactCache(-1) != nil || newFactCache(0).max != DefaultFactCacheBytes {
		t.Error("a negative size must mean no cache, 0 the default")
	}
	var none *factCache
	none.put("s", version{1, 1}, entity.Fact{ID: "1"}, p)
	if _, ok := none.get("s", "1", version{1, 1}); ok {
		t.Error("no cache returned a fact")
	}
}
