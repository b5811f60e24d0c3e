package bench_test

import (
	"context"
	"math"
	"testing"

	"github.com/graphmem/graphmem/bench"
	"github.com/graphmem/graphmem/embed"
)

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestHashedStandIn(t *testing.T) {
	h := bench.Hashed{Dims: 64}
	vs, err := h.Embed(context.Background(), embed.Passage, []string{
		"cart-api uses PostgreSQL", "cart-api uses postgresql", "cart-api uses Redis", "Alice lives in Oslo", ""})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		if len(v) != 64 || math.Abs(dot(v, v)-1) > 1e-4 {
			t.Fatalf("vector %d: length %d, norm² %.4f", i, len(v), dot(v, v))
		}
	}
	if s := dot(vs[0], vs[1]); s < 0.9999 {
		t.Errorf("same words, other case: similarity %.4f, want 1", s)
	}
	if near, far := dot(vs[0], vs[2]), dot(vs[0], vs[3]); near <= far {
		t.Errorf("two of three words shared %.3f, none shared %.3f: sharing should be nearer", near, far)
	}
}

// fixed answers every text with one vector, to see which embedder a kind
// reaches.
type fixed []float32

func (f fixed) Embed(_ context.Context, _ embed.Kind, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = f
	}
	return out, nil
}

func (fixed) Model() string { return "fixed" }

func TestPassagesHashed(t *testing.T) {
	e := bench.PassagesHashed(fixed{1, 0, 0}, 3)
	q, _ := e.Embed(context.Background(), embed.Query, []string{"cart-api"})
	p, _ := e.Embed(context.Background(), embed.Passage, []string{"cart-api"})
	if q[0][0] != 1 || q[0][1] != 0 {
		t.Errorf("question went to the stand-in: %v", q[0])
	}
	if len(p[0]) != 3 || p[0][0] == 1 && p[0][1] == 0 {
		t.Errorf("passage went to the model: %v", p[0])
	}
	if e.Model() != "fixed+hashed-words-3 passages" {
		t.Errorf("model %q", e.Model())
	}
}
