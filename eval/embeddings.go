package eval

import (
	"context"
	"encoding/gob"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/graphmem/graphmem/embed"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/vector"
)

// Embeddings says which model an evaluation embeds with.
type Embeddings struct {
	Embedder vector.Embedder
	// Identity names the model and prefixes (the vector index keeps it).
	Identity string
	// Cache, when set, is a file of the vectors of texts embedded before,
	// by model identity, kind and text: repeated runs embed only new
	// texts. The embedding rate is measured on the texts not found there.
	Cache string
}

// EmbedCost is what embedding a data set cost.
type EmbedCost struct {
	Texts       int     `json:"texts"`        // vectors in the index
	Embedded    int     `json:"embedded"`     // texts sent to the model (not cached)
	Seconds     float64 `json:"seconds"`      // time in the model's calls
	PerSecond   float64 `json:"per_second"`   // Embedded / Seconds
	IndexBytes  int64   `json:"index_bytes"`  // the vector index file
	SyncSeconds float64 `json:"sync_seconds"` // the whole follower catch-up
}

// cachedEmbedder remembers vectors by text and times the model's calls.
type cachedEmbedder struct {
	inner    vector.Embedder
	identity string
	path     string
	// passagesOnly: questions are always sent to the model (their calls
	// are timed as a server's would be), never remembered.
	passagesOnly bool

	mu       sync.Mutex
	vecs     map[string][]float32
	embedded int
	spent    time.Duration
}

func newCachedEmbedder(e Embeddings) (*cachedEmbedder, error) {
	c := &cachedEmbedder{inner: e.Embedder, identity: e.Identity, path: e.Cache, vecs: map[string][]float32{}}
	if c.path == "" {
		return c, nil
	}
	f, err := os.Open(c.path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := gob.NewDecoder(f).Decode(&c.vecs); err != nil {
		return nil, entity.Wrap(entity.EINVALID, "embedding cache "+c.path, err)
	}
	return c, nil
}

func (c *cachedEmbedder) Model() string { return c.inner.Model() }

func (c *cachedEmbedder) key(kind embed.Kind, t string) string {
	return c.identity + "\x00" + kind.String() + "\x00" + t
}

func (c *cachedEmbedder) Embed(ctx context.Context, kind embed.Kind, texts []string) ([][]float32, error) {
	if kind == embed.Query && c.passagesOnly {
		return c.inner.Embed(ctx, kind, texts)
	}
	out := make([][]float32, len(texts))
	var missing []string
	var at []int
	c.mu.Lock()
	for i, t := range texts {
		if v, ok := c.vecs[c.key(kind, t)]; ok {
			out[i] = v
		} else {
			missing = append(missing, t)
			at = append(at, i)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	start := time.Now()
	vs, err := c.inner.Embed(ctx, kind, missing)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.spent += time.Since(start)
	c.embedded += len(missing)
	for j, i := range at {
		out[i] = vs[j]
		c.vecs[c.key(kind, missing[j])] = vs[j]
	}
	c.mu.Unlock()
	return out, nil
}

// save writes the cache file (when there is one).
func (c *cachedEmbedder) save() error {
	if c.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return err
	}
	tmp := c.path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	c.mu.Lock()
	err = gob.NewEncoder(f).Encode(c.vecs)
	c.mu.Unlock()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, c.path)
}

// vectors is a vector index over an evaluation's workspace, with the
// embedder that fills it and the time its catch-ups took.
type vectors struct {
	*vector.Index
	ce   *cachedEmbedder
	sync time.Duration
}

// vectorWait is what the evaluations' engines wait for a question's
// vector: they judge the ranking with the vector list, so every answer
// waits for it (the embedding's own timeout still bounds it).
const vectorWait = time.Minute

func newVectors(e Embeddings, dir string) (*vectors, error) {
	ce, err := newCachedEmbedder(e)
	if err != nil {
		return nil, err
	}
	vec, err := vector.Open(filepath.Join(dir, "vectors"), ce, e.Identity)
	if err != nil {
		return nil, err
	}
	return &vectors{Index: vec, ce: ce}, nil
}

// catchUp embeds what the store holds and the index does not, as the
// server's follower would.
// An embedder that is down or overloaded is retried a few times (what is
// embedded is kept page by page), as the server's follower retries at its
// next tick.
func (v *vectors) catchUp(ctx context.Context, store graph.Store) error {
	start := time.Now()
	defer func() { v.sync += time.Since(start) }()
	var err error
	for try := 0; try < 5; try++ {
		if _, err = v.Sync(ctx, store); entity.ErrorCode(err) != entity.EUNAVAILABLE || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// cost saves the index and the cache and says what embedding cost.
func (v *vectors) cost() (EmbedCost, error) {
	if err := v.Save(); err != nil {
		return EmbedCost{}, err
	}
	if err := v.ce.save(); err != nil {
		return EmbedCost{}, err
	}
	c := EmbedCost{Texts: v.Len(), Embedded: v.ce.embedded, Seconds: roundTo(v.ce.spent.Seconds(), 2),
		SyncSeconds: roundTo(v.sync.Seconds(), 2)}
	if v.ce.spent > 0 {
		c.PerSecond = roundTo(float64(v.ce.embedded)/v.ce.spent.Seconds(), 1)
	}
	if fi, err := os.Stat(filepath.Join(v.Dir(), vector.FileName)); err == nil {
		c.IndexBytes = fi.Size()
	}
	return c, nil
}

// Pool spreads each call over several servers of the same model (their
// answers are the same vectors), to embed a data set faster.
type Pool []vector.Embedder

// Model names the model of the first server.
func (p Pool) Model() string { return p[0].Model() }

// Embed sends an equal share of texts to each server at once.
func (p Pool) Embed(ctx context.Context, kind embed.Kind, texts []string) ([][]float32, error) {
	if len(p) == 1 || len(texts) < 2 {
		return p[0].Embed(ctx, kind, texts)
	}
	out := make([][]float32, len(texts))
	errs := make([]error, len(p))
	per := (len(texts) + len(p) - 1) / len(p)
	var wg sync.WaitGroup
	for i, e := range p {
		lo, hi := i*per, min(len(texts), (i+1)*per)
		if lo >= hi {
			break
		}
		wg.Go(func() {
			vs, err := e.Embed(ctx, kind, texts[lo:hi])
			errs[i] = err
			copy(out[lo:hi], vs)
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}
