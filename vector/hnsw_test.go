package vector

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/graphmem/graphmem/embed"
	"github.com/graphmem/graphmem/entity"
)

// clustered makes n unit vectors around a few centres, like texts on a
// few topics.
func clustered(r *rand.Rand, n, dims int) [][]float32 {
	centres := make([][]float32, 20)
	for i := range centres {
		centres[i] = make([]float32, dims)
		for j := range centres[i] {
			centres[i][j] = float32(r.NormFloat64())
		}
	}
	out := make([][]float32, n)
	for i := range out {
		c := centres[r.IntN(len(centres))]
		v := make([]float32, dims)
		for j := range v {
			v[j] = c[j] + 0.6*float32(r.NormFloat64())
		}
		out[i] = embed.Normalize(v)
	}
	return out
}

func exact(vs map[string][]float32, q []float32, k int) []string {
	type kv struct {
		k string
		s float32
	}
	var all []kv
	for key, v := range vs {
		var s float32
		for i := range v {
			s += v[i] * q[i]
		}
		all = append(all, kv{key, s})
	}
	slices.SortFunc(all, func(a, b kv) int { return cmp.Compare(b.s, a.s) })
	var out []string
	for _, x := range all[:min(k, len(all))] {
		out = append(out, x.k)
	}
	return out
}

// recallAt10 is the share of the exact 10 nearest that search finds.
func recallAt10(t *testing.T, g *hnsw, vs map[string][]float32, qs [][]float32) float64 {
	t.Helper()
	found, total := 0, 0
	for _, q := range qs {
		want := exact(vs, q, 10)
		var got []string
		for _, c := range g.search(q, 10, 128) {
			got = append(got, g.nodes[c.id].key)
		}
		for _, w := range want {
			total++
			if slices.Contains(got, w) {
				found++
			}
		}
		for _, k := range got {
			if _, ok := vs[k]; !ok {
				t.Fatalf("search returned %s, which was removed", k)
			}
		}
	}
	return float64(found) / float64(total)
}

func TestHNSW_RecallAddRemove(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	all := clustered(r, 4000, 48)
	g := newHNSW()
	vs := map[string][]float32{}
	for i, v := range all {
		k := fmt.Sprintf("k%d", i)
		g.add(k, uint64(i), v)
		vs[k] = v
	}
	qs := clustered(r, 100, 48)
	if rc := recallAt10(t, g, vs, qs); rc < 0.94 {
		t.Fatalf("recall@10 after inserts %.3f, want ≥ 0.94", rc)
	}
	// Remove a third (the entry point among them), replace some.
	for i := 0; i < len(all); i += 3 {
		k := fmt.Sprintf("k%d", i)
		if !g.remove(k) {
			t.Fatalf("remove %s: not found", k)
		}
		delete(vs, k)
	}
	g.remove(g.nodes[g.entry].key)
	for k := range vs {
		if _, ok := g.byKey[k]; !ok {
			delete(vs, k)
		}
	}
	for i, v := range clustered(r, 500, 48) {
		k := fmt.Sprintf("n%d", i)
		g.add(k, 0, v)
		vs[k] = v
	}
	if g.len() != len(vs) {
		t.Fatalf("len %d, want %d", g.len(), len(vs))
	}
	if rc := recallAt10(t, g, vs, qs); rc < 0.92 {
		t.Fatalf("recall@10 after removals %.3f, want ≥ 0.92", rc)
	}
	// Emptied and filled again.
	for k := range vs {
		g.remove(k)
	}
	if g.len() != 0 || g.entry != -1 || len(g.search(qs[0], 5, 10)) != 0 {
		t.Fatalf("emptied graph: len %d entry %d", g.len(), g.entry)
	}
	g.add("again", 0, all[0])
	if got := g.search(all[0], 1, 10); len(got) != 1 || g.nodes[got[0].id].key != "again" {
		t.Fatalf("refilled graph: %v", got)
	}
}

func TestHNSW_SaveLoad(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	g := newHNSW()
	for i, v := range clustered(r, 600, 32) {
		g.add(fmt.Sprintf("k%d", i), uint64(i), v)
	}
	for i := 0; i < 600; i += 5 {
		g.remove(fmt.Sprintf("k%d", i))
	}
	path := filepath.Join(t.TempDir(), fileName)
	key := gkey{"s", "fact"}
	if err := save(path, "model", map[entity.Scope]uint64{"s": 42, "t": 7}, map[gkey]*hnsw{key: g}); err != nil {
		t.Fatal(err)
	}
	pos, graphs, err := load(path, "model")
	if err != nil || pos["s"] != 42 || pos["t"] != 7 || len(pos) != 2 || graphs[key] == nil {
		t.Fatalf("load: positions %v, %v, %v", pos, graphs, err)
	}
	h := graphs[key]
	if h.len() != g.len() {
		t.Fatalf("loaded %d vectors, saved %d", h.len(), g.len())
	}
	for _, q := range clustered(r, 20, 32) {
		var a, b []string
		for _, c := range g.search(q, 10, 128) {
			a = append(a, g.nodes[c.id].key)
		}
		for _, c := range h.search(q, 10, 64) {
			b = append(b, h.nodes[c.id].key)
		}
		if !slices.Equal(a, b) {
			t.Fatalf("search differs after load:\n%v\n%v", a, b)
		}
	}
	// Another model's file is discarded.
	if _, graphs, err := load(path, "other model"); err != nil || graphs != nil {
		t.Fatalf("other model: %v %v", graphs, err)
	}
}

// BenchmarkHNSWSearch100k times a search among 100,000 vectors of 384
// dimensions (multilingual-e5-small's size; synthetic clustered vectors),
// next to an exact scan of the same vectors as the baseline.
func BenchmarkHNSWSearch100k(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	all := clustered(r, 100000, 384)
	g := newHNSW()
	for i, v := range all {
		g.add(fmt.Sprintf("k%d", i), 0, v)
	}
	qs := clustered(r, 256, 384)
	b.Run("hnsw", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			g.search(qs[i%len(qs)], 60, searchEf)
		}
	})
	b.Run("exact scan (baseline)", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			q, s := quantize(qs[i%len(qs)])
			var best float32
			for _, n := range g.nodes {
				best = max(best, sim(n, q, s))
			}
		}
	})
}
