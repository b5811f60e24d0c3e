package vector

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// graph is a hierarchical navigable small world graph (Malkov and
// Yashunin) over int8-quantised unit vectors, with similarity the dot
// product. It is not safe for concurrent use: Index guards it.
type hnsw struct {
	m, efc int
	ml     float64
	nodes  []*node // by slot; nil: free
	free   []int32
	byKey  map[string]int32
	entry  int32
	top    int // level of entry
	rng    *rand.Rand
}

// node is one vector: key names the record, digest the text it was made
// from, vec·scale approximates the unit vector.
type node struct {
	key    string
	digest uint64
	scale  float32
	vec    []int8
	links  [][]int32 // per level, 0 first
}

// HNSW parameters: neighbours per node (twice that on level 0) and the
// candidate list while inserting.
const (
	defaultM   = 16
	defaultEfC = 100
)

func newHNSW() *hnsw {
	return &hnsw{m: defaultM, efc: defaultEfC, ml: 1 / math.Log(defaultM), byKey: map[string]int32{}, entry: -1,
		rng: rand.New(rand.NewPCG(1, 2))}
}

func (g *hnsw) len() int { return len(g.byKey) }

// quantize maps a unit vector to int8 with one scale.
func quantize(v []float32) ([]int8, float32) {
	var mx float32
	for _, x := range v {
		mx = max(mx, abs32(x))
	}
	q := make([]int8, len(v))
	if mx == 0 {
		return q, 0
	}
	s := mx / 127
	for i, x := range v {
		q[i] = int8(math.Round(float64(x / s)))
	}
	return q, s
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// dot8 is the dot product of two int8 vectors of equal length, eight
// lanes at a time into four sums (the loop the build spends most of its
// time in).
func dot8(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += int32(x[0])*int32(y[0]) + int32(x[4])*int32(y[4])
		s1 += int32(x[1])*int32(y[1]) + int32(x[5])*int32(y[5])
		s2 += int32(x[2])*int32(y[2]) + int32(x[6])*int32(y[6])
		s3 += int32(x[3])*int32(y[3]) + int32(x[7])*int32(y[7])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// sim is the similarity of two nodes' vectors.
func sim(a *node, q []int8, qs float32) float32 {
	return float32(dot8(a.vec, q)) * a.scale * qs
}

func (g *hnsw) maxLinks(level int) int {
	if level == 0 {
		return 2 * g.m
	}
	return g.m
}

// add inserts (or replaces) the vector of key.
func (g *hnsw) add(key string, digest uint64, v []float32) {
	if _, ok := g.byKey[key]; ok {
		g.remove(key)
	}
	q, s := quantize(v)
	level := int(math.Floor(-math.Log(1-g.rng.Float64()) * g.ml))
	n := &node{key: key, digest: digest, scale: s, vec: q, links: make([][]int32, level+1)}
	var id int32
	if k := len(g.free); k > 0 {
		id = g.free[k-1]
		g.free = g.free[:k-1]
		g.nodes[id] = n
	} else {
		id = int32(len(g.nodes))
		g.nodes = append(g.nodes, n)
	}
	g.byKey[key] = id
	if g.entry < 0 {
		g.entry, g.top = id, level
		return
	}
	ep := g.entry
	for l := g.top; l > level; l-- {
		ep = g.greedy(q, s, ep, l)
	}
	for l := min(level, g.top); l >= 0; l-- {
		found := g.searchLayer(q, s, []int32{ep}, g.efc, l)
		// A slot reused from a deleted node may still be linked from a
		// neighbour of the old one: never link the new node to itself.
		found = slices.DeleteFunc(found, func(c cand) bool { return c.id == id })
		nb := g.selectNeighbors(found, g.m)
		n.links[l] = ids(nb)
		for _, c := range nb {
			e := g.nodes[c.id]
			e.links[l] = append(e.links[l], id)
			// A full list may grow by half before it is pruned back:
			// pruning compares every pair of links, so doing it once
			// per m/2 new links rather than on each one makes the build
			// several times faster for slightly longer searches.
			if len(e.links[l]) > g.maxLinks(l)+g.maxLinks(l)/2 {
				g.shrink(c.id, l)
			}
		}
		ep = found[0].id
	}
	if level > g.top {
		g.entry, g.top = id, level
	}
}

// shrink keeps the best neighbours of node id on level l.
func (g *hnsw) shrink(id int32, l int) {
	e := g.nodes[id]
	cs := make([]cand, 0, len(e.links[l]))
	for _, o := range e.links[l] {
		if o == id || g.nodes[o] == nil {
			continue
		}
		cs = append(cs, cand{o, sim(g.nodes[o], e.vec, e.scale)})
	}
	sortDesc(cs)
	e.links[l] = ids(g.selectNeighbors(cs, g.maxLinks(l)))
}

// remove deletes key's vector: its neighbours are linked to each other
// instead, so the graph stays navigable, and nothing of it is kept.
func (g *hnsw) remove(key string) bool {
	id, ok := g.byKey[key]
	if !ok {
		return false
	}
	n := g.nodes[id]
	delete(g.byKey, key)
	g.nodes[id] = nil
	for l, nb := range n.links {
		for _, o := range nb {
			e := g.nodes[o]
			if e == nil || l >= len(e.links) {
				continue
			}
			kept := e.links[l][:0]
			for _, x := range e.links[l] {
				if x != id {
					kept = append(kept, x)
				}
			}
			e.links[l] = kept
			// Repair: the deleted node's neighbours become candidates.
			for _, x := range nb {
				if x != o && g.nodes[x] != nil && len(g.nodes[x].links) > l {
					e.links[l] = appendUnique(e.links[l], x)
				}
			}
			if len(e.links[l]) > g.maxLinks(l) {
				g.shrink(o, l)
			}
		}
	}
	g.free = append(g.free, id)
	if g.entry == id {
		g.entry, g.top = -1, 0
		for i, x := range g.nodes {
			if x != nil && (g.entry < 0 || len(x.links)-1 > g.top) {
				g.entry, g.top = int32(i), len(x.links)-1
			}
		}
	}
	return true
}

func appendUnique(s []int32, x int32) []int32 {
	for _, y := range s {
		if y == x {
			return s
		}
	}
	return append(s, x)
}

type cand struct {
	id  int32
	sim float32
}

func ids(cs []cand) []int32 {
	out := make([]int32, len(cs))
	for i, c := range cs {
		out[i] = c.id
	}
	return out
}

// selectNeighbors is the heuristic of the HNSW paper: from candidates
// sorted best first, keep one only if it is closer to the query than to
// every kept one (so links spread in all directions), then fill up with
// the rest.
func (g *hnsw) selectNeighbors(cs []cand, m int) []cand {
	if len(cs) <= m {
		return cs
	}
	kept := make([]cand, 0, m)
	var pruned []cand
	for _, c := range cs {
		if len(kept) >= m {
			break
		}
		cn := g.nodes[c.id]
		good := true
		for _, k := range kept {
			if sim(cn, g.nodes[k.id].vec, g.nodes[k.id].scale) > c.sim {
				good = false
				break
			}
		}
		if good {
			kept = append(kept, c)
		} else {
			pruned = append(pruned, c)
		}
	}
	for _, c := range pruned {
		if len(kept) >= m {
			break
		}
		kept = append(kept, c)
	}
	return kept
}

// greedy walks level l from ep to the node most similar to q.
func (g *hnsw) greedy(q []int8, qs float32, ep int32, l int) int32 {
	best := sim(g.nodes[ep], q, qs)
	for changed := true; changed; {
		changed = false
		for _, o := range g.nodes[ep].links[l] {
			n := g.nodes[o]
			if n == nil || len(n.links) <= l {
				continue
			}
			if s := sim(n, q, qs); s > best {
				best, ep, changed = s, o, true
			}
		}
	}
	return ep
}

// searchLayer returns up to ef nodes of level l most similar to q, best
// first, starting from eps.
func (g *hnsw) searchLayer(q []int8, qs float32, eps []int32, ef, l int) []cand {
	vis := visitedPool.Get().(*visited)
	defer visitedPool.Put(vis)
	vis.reset(len(g.nodes))
	var todo maxHeap // best first
	var res minHeap  // worst first
	for _, ep := range eps {
		c := cand{ep, sim(g.nodes[ep], q, qs)}
		vis.mark(ep)
		heap.Push(&todo, c)
		heap.Push(&res, c)
	}
	for todo.Len() > 0 {
		c := heap.Pop(&todo).(cand)
		if res.Len() >= ef && c.sim < res[0].sim {
			break
		}
		for _, o := range g.nodes[c.id].links[l] {
			if vis.seen(o) {
				continue
			}
			vis.mark(o)
			n := g.nodes[o]
			if n == nil || len(n.links) <= l {
				continue
			}
			s := sim(n, q, qs)
			if res.Len() < ef || s > res[0].sim {
				heap.Push(&todo, cand{o, s})
				heap.Push(&res, cand{o, s})
				if res.Len() > ef {
					heap.Pop(&res)
				}
			}
		}
	}
	out := make([]cand, len(res))
	copy(out, res)
	sortDesc(out)
	return out
}

// search returns the k nodes most similar to v, best first.
func (g *hnsw) search(v []float32, k, ef int) []cand {
	if g.entry < 0 || k <= 0 {
		return nil
	}
	q, s := quantize(v)
	ep := g.entry
	for l := g.top; l > 0; l-- {
		ep = g.greedy(q, s, ep, l)
	}
	res := g.searchLayer(q, s, []int32{ep}, max(ef, k), 0)
	return res[:min(k, len(res))]
}

func sortDesc(cs []cand) {
	// insertion sort: lists are short (≤ ef)
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && (cs[j].sim > cs[j-1].sim || cs[j].sim == cs[j-1].sim && cs[j].id < cs[j-1].id); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// visited marks nodes seen by one search; epochs spare clearing it.
type visited struct {
	epoch uint32
	marks []uint32
}

var visitedPool = sync.Pool{New: func() any { return &visited{} }}

func (v *visited) reset(n int) {
	if len(v.marks) < n {
		v.marks = make([]uint32, n+n/4)
		v.epoch = 0
	}
	v.epoch++
	if v.epoch == 0 {
		clear(v.marks)
		v.epoch = 1
	}
}

func (v *visited) mark(id int32)      { v.marks[id] = v.epoch }
func (v *visited) seen(id int32) bool { return v.marks[id] == v.epoch }

type maxHeap []cand

func (h maxHeap) Len() int           { return len(h) }
func (h maxHeap) Less(i, j int) bool { return h[i].sim > h[j].sim }
func (h maxHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *maxHeap) Push(x any)        { *h = append(*h, x.(cand)) }
func (h *maxHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type minHeap []cand

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i].sim < h[j].sim }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(cand)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
