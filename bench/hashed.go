package bench

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"unicode"

	"github.com/graphmem/graphmem/embed"
	"github.com/graphmem/graphmem/vector"
)

// Hashed is a stand-in embedding model for timing the vector path: a
// text's vector is the normalised sum of one pseudo-random vector per
// word, seeded by the word. Texts that share words land near each other,
// and it embeds thousands of texts a second, so the vector index can be
// built and searched at sizes a real model on a small machine cannot embed
// in time. Its neighbours mean nothing beyond shared words: it times the
// path, it says nothing of quality.
type Hashed struct{ Dims int }

// Embed returns one unit vector per text.
func (h Hashed) Embed(_ context.Context, _ embed.Kind, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, h.Dims)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			f := fnv.New64a()
			f.Write([]byte(w))
			r := rand.New(rand.NewPCG(f.Sum64(), 0x2545f4914f6cdd1d))
			for j := range v {
				v[j] += float32(r.NormFloat64())
			}
		}
		v[0] += 1e-3 // a text without words still has a direction
		out[i] = embed.Normalize(v)
	}
	return out, nil
}

// Model names the stand-in and its dimension.
func (h Hashed) Model() string { return fmt.Sprintf("hashed-words-%d", h.Dims) }

// PassagesHashed embeds passages (facts, entities, predicates) with the
// stand-in of q's dimension and questions with q, so the latency of a real
// model's question embedding is timed against an index it could not have
// filled in time. dims is q's vector length.
func PassagesHashed(q vector.Embedder, dims int) vector.Embedder {
	return split{queries: q, passages: Hashed{Dims: dims}}
}

type split struct {
	queries  vector.Embedder
	passages Hashed
}

func (s split) Embed(ctx context.Context, kind embed.Kind, texts []string) ([][]float32, error) {
	if kind == embed.Query {
		return s.queries.Embed(ctx, kind, texts)
	}
	return s.passages.Embed(ctx, kind, texts)
}

func (s split) Model() string { return s.queries.Model() + "+" + s.passages.Model() + " passages" }
