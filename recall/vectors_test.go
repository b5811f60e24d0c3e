package recall_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphmem/graphmem/embed"
	"github.com/graphmem/graphmem/embed/embedtest"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/recall"
	"github.com/graphmem/graphmem/search"
	"github.com/graphmem/graphmem/vector"
)

// withVectors gives e's engine the vector list on the real model (or
// skips the test).
func withVectors(tb testing.TB, e *env) *env {
	tb.Helper()
	vec, err := vector.Open(filepath.Join(tb.TempDir(), "vectors"), embedtest.Client(tb), embedtest.Identity)
	if err != nil {
		tb.Fatal(err)
	}
	e.vec, e.engine.Vectors = vec, vec
	// A shared test server may be busy embedding for another test: wait
	// for it rather than answer without the list.
	e.engine.VectorTimeout = time.Minute
	e.engine.VectorWait = time.Minute
	return e
}

func rankOf(res recall.SearchResult, id string) int {
	for i, h := range res.Hits {
		if h.ID == id {
			return i + 1
		}
	}
	return 0
}

// TestSearch_VectorList: questions worded unlike any fact, the lexicon
// and the ontology find the asked fact through the vector list.
func TestSearch_VectorList(t *testing.T) {
	e := withVectors(t, newEnv(t))
	catalog(t, e, "s")
	for _, tc := range []struct{ q, subject, predicate string }{
		{"how much RAM may identity-worker take?", "identity-worker", "memory_limit"},
		{"which squad is accountable for cart-api?", "cart-api", "owned_by"},
		{"what storage engine powers orders-db?", "orders-db", "runs_on"},
	} {
		res := e.search(t, "s", recall.SearchRequest{Query: tc.q, Limit: 5})
		f := firstFact(res)
		if f == nil || f.Subject != tc.subject || f.Predicate != tc.predicate {
			t.Errorf("%q: first fact %+v, want %s %s", tc.q, f, tc.subject, tc.predicate)
			continue
		}
		for _, h := range res.Hits {
			if h.ID == f.ID && h.Signals["vector_rank"] == 0 {
				t.Errorf("%q: the answer has no vector rank: %v", tc.q, h.Signals)
			}
		}
	}
	// Context draws on the same list.
	ans := e.context(t, "s", recall.ContextRequest{Query: "how much RAM may identity-worker take?"})
	if lineWith(ans.Context, "identity-worker", "2Gi") == "" {
		t.Errorf("context lacks the memory limit:\n%s", ans.Context)
	}
}

// TestSearch_VectorsNeverLiftSuperseded: the old version matches the
// question best in words and in meaning, yet with history included the
// version in force ranks above it (settle). Fails if settle's ordering
// is removed.
func TestSearch_VectorsNeverLiftSuperseded(t *testing.T) {
	e := withVectors(t, newEnv(t))
	// The relevance floor would drop the current version, which shares few
	// of the question's words: this is about the order of the two.
	e.engine.NoRelevanceFloor = true
	mk := func(v, text, from string) memory.FactInput {
		return memory.FactInput{Subject: "identity-worker", SubjectType: "service", Predicate: "memory_limit", Value: v, Text: text,
			ValidFrom: at(from), SourceKind: entity.UserExplicit, Cardinality: "one"}
	}
	r := e.add(t, "s",
		mk("512Mi", "identity-worker RAM ceiling for production traffic is 512Mi, set after the OOM review", "2023-01-01"),
		mk("2Gi", "identity-worker memory limit is 2Gi", "2024-01-01"),
	)
	old, cur := r[0].FactID, r[1].FactID
	q := "what RAM ceiling does identity-worker have for production traffic after the OOM review?"
	res := e.search(t, "s", recall.SearchRequest{Query: q, Limit: 10, IncludeHistory: true, Types: []string{search.TypeFact}})
	ro, rc := rankOf(res, old), rankOf(res, cur)
	if ro == 0 || rc == 0 {
		t.Fatalf("both versions should be hits: old %d, current %d: %+v", ro, rc, res.Hits)
	}
	for _, h := range res.Hits {
		if h.ID == old && (h.Signals["vector_rank"] != 1 || h.Signals["bm25"] == 0) {
			t.Fatalf("the old version should be the nearest in meaning and match in words (else this proves nothing): %v", h.Signals)
		}
	}
	if rc > ro {
		t.Fatalf("the superseded version ranks %d, above the current one (%d)", ro, rc)
	}
}

// heldEmbedder embeds texts as bags of hashed words; while hold is open a
// question waits in it, so a test can make the embedder slow without a
// clock.
type heldEmbedder struct{ hold chan struct{} }

func (h *heldEmbedder) Model() string { return "words" }

func (h *heldEmbedder) Embed(ctx context.Context, kind embed.Kind, texts []string) ([][]float32, error) {
	if kind == embed.Query {
		select {
		case <-h.hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 64)
		for _, w := range search.Analyze(t) {
			f := fnv.New32a()
			f.Write([]byte(w))
			v[f.Sum32()%64]++
		}
		out[i] = embed.Normalize(v)
	}
	return out, nil
}

// topicEmbedder embeds a text as the topics its words belong to: a
// stand-in model whose nearest neighbours are known.
type topicEmbedder map[string]int

func (topicEmbedder) Model() string { return "topics" }

func (t topicEmbedder) Embed(_ context.Context, _ embed.Kind, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		v := make([]float32, 8)
		v[7] = 0.1 // no topic: near nothing in particular
		for _, w := range strings.Fields(strings.ToLower(s)) {
			if d, ok := t[strings.Trim(w, ".,?!")]; ok {
				v[d]++
			}
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(n))
		}
		out[i] = v
	}
	return out, nil
}

// TestSearch_SlowEmbedderDoesNotBlock: while the question's embedding is
// held up the answer comes without the vector list, past VectorWait; the
// vector that arrives later serves the same question asked again.
func TestSearch_SlowEmbedderDoesNotBlock(t *testing.T) {
	e := newEnv(t)
	emb := &heldEmbedder{hold: make(chan struct{})}
	vec, err := vector.Open(filepath.Join(t.TempDir(), "vectors"), emb, "words")
	if err != nil {
		t.Fatal(err)
	}
	e.vec, e.engine.Vectors = vec, vec
	e.engine.VectorWait = 5 * time.Millisecond
	catalog(t, e, "s")
	q := recall.SearchRequest{Query: "identity-worker memory limit", Limit: 5}
	res := e.search(t, "s", q)
	if used, missed := e.engine.VectorUse(); used != 0 || missed != 1 {
		t.Fatalf("answers with and without vectors: %d, %d; want 0, 1", used, missed)
	}
	if res.Vectors != recall.VectorsSkipped || res.VectorsSkipped != recall.SkippedTimeout {
		t.Fatalf("the answer says vectors %q (%q); want skipped (timeout)", res.Vectors, res.VectorsSkipped)
	}
	if len(res.Hits) == 0 {
		t.Fatal("no hits without the vector list")
	}
	for _, h := range res.Hits {
		if h.Signals["vector_rank"] != 0 {
			t.Fatalf("a hit has a vector rank though the question was never embedded: %v", h.Signals)
		}
	}
	close(emb.hold)
	for range 1000 {
		if _, ok := vec.CachedQueryVector(q.Query); ok {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	res = e.search(t, "s", q)
	if used, _ := e.engine.VectorUse(); used != 1 || res.Vectors != recall.VectorsUsed || res.VectorsSkipped != "" {
		t.Fatalf("the question asked again did not use its vector (%d answers with it; the answer says %q %q)",
			used, res.Vectors, res.VectorsSkipped)
	}
	ranked := false
	for _, h := range res.Hits {
		ranked = ranked || h.Signals["vector_rank"] > 0
	}
	if !ranked {
		t.Fatalf("no hit has a vector rank: %+v", res.Hits)
	}
}

// slowEmbedder answers every call after delay, embedding as heldEmbedder
// does.
type slowEmbedder struct{ delay time.Duration }

func (slowEmbedder) Model() string { return "slow" }

func (s slowEmbedder) Embed(ctx context.Context, kind embed.Kind, texts []string) ([][]float32, error) {
	h := heldEmbedder{hold: make(chan struct{})}
	close(h.hold)
	if kind == embed.Query {
		time.Sleep(s.delay)
	}
	return h.Embed(ctx, kind, texts)
}

// TestContext_WaitSizedToTheEmbedder: with no wait set, an embedder far
// slower than a fixed 15 ms still gives every new question its vector:
// the wait follows the embedder's measured latency. Every answer says
// whether it used the list, and one without embeddings says off.
func TestContext_WaitSizedToTheEmbedder(t *testing.T) {
	e := newEnv(t)
	catalog(t, e, "s")
	res, err := e.engine.Context(context.Background(), "s", recall.ContextRequest{Query: "identity-worker memory limit"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Vectors != recall.VectorsOff || res.VectorsSkipped != "" {
		t.Fatalf("without embeddings the answer says vectors %q (%q); want off", res.Vectors, res.VectorsSkipped)
	}
	vec, err := vector.Open(filepath.Join(t.TempDir(), "vectors"), slowEmbedder{delay: 60 * time.Millisecond}, "slow")
	if err != nil {
		t.Fatal(err)
	}
	e.vec, e.engine.Vectors = vec, vec
	if _, err := vec.Sync(context.Background(), e.store); err != nil {
		t.Fatal(err)
	}
	// A scheduler stall on a loaded machine can still make one answer
	// late; a fixed 15 ms wait would miss all twelve.
	var missed []string
	for i := range 12 {
		q := fmt.Sprintf("what is the memory limit of identity-worker, question %d?", i)
		res, err := e.engine.Context(context.Background(), "s", recall.ContextRequest{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if res.Vectors != recall.VectorsUsed {
			missed = append(missed, fmt.Sprintf("question %d (%q, %q) at a wait of %v", i, res.Vectors, res.VectorsSkipped,
				e.engine.QueryVectorWait()))
		}
	}
	if len(missed) > 2 {
		t.Fatalf("%d of 12 new questions went without their vector: %s", len(missed), strings.Join(missed, "; "))
	}
	if w := e.engine.QueryVectorWait(); w < 60*time.Millisecond || w > time.Second {
		t.Errorf("wait %v for an embedder answering in 60 ms: want between 60 ms and 1 s", w)
	}
	e.engine.VectorWait = 5 * time.Millisecond // the explicit setting wins
	if w := e.engine.QueryVectorWait(); w != 5*time.Millisecond {
		t.Errorf("wait %v with VectorWait 5 ms", w)
	}
}

// TestSearch_PredicateNearInMeaning: no word of the question names the
// predicate asked for, yet its description is nearest in meaning among the
// named entity's predicates (vector.SetPredicates): the fact gets the
// predicate signal and comes first. Without the predicates' vectors the
// signal is 0.
func TestSearch_PredicateNearInMeaning(t *testing.T) {
	e := withVectors(t, newEnv(t))
	onto, err := ontology.Parse([]byte(`
predicates:
  - {name: owned_by, cardinality: one, description: "The team responsible for a service.", synonyms: [owner]}
  - {name: deployed_in, cardinality: one, description: "The cloud region a service is hosted in."}
  - {name: port, cardinality: one, description: "The port a service listens on."}
`))
	if err != nil {
		t.Fatal(err)
	}
	e.engine.Ontology = onto
	catalog(t, e, "s")
	q := recall.SearchRequest{Query: "which squad looks after cart-api?", Limit: 5, Types: []string{search.TypeFact}}
	signal := func() float64 {
		for _, h := range e.search(t, "s", q).Hits {
			if h.Fact.Subject == "cart-api" && h.Fact.Predicate == "owned_by" {
				return h.Signals["predicate"]
			}
		}
		return -1
	}
	if s := signal(); s != 0 {
		t.Fatalf("without the predicates' vectors the predicate signal is %v, want 0 (else this proves nothing)", s)
	}
	e.vec.SetPredicates(onto)
	e.sync(t)
	if !e.vec.Has(vector.PredicateScope, vector.TypePredicate, "owned_by") {
		t.Fatal("the predicates were not embedded")
	}
	res := e.search(t, "s", q)
	if f := firstFact(res); f == nil || f.Predicate != "owned_by" || f.Subject != "cart-api" {
		t.Fatalf("first fact %+v, want cart-api owned_by", f)
	}
	if s := signal(); s < 0.5 {
		t.Fatalf("predicate signal %v, want the nearest predicate's", s)
	}
}

// TestSearch_VectorEpisodesOnBM25Scale: a turn of the vector list gains
// Episode·B·(k+1)/(k+r), B the best BM25 score of the query itself — a
// few hundredths in a conversation — so the list weighs like one more
// ranked list, not above every word of the question (it outweighed them
// when weighed on the graph's scale, which is at least 1).
func TestSearch_VectorEpisodesOnBM25Scale(t *testing.T) {
	e := newEnv(t)
	vec, err := vector.Open(filepath.Join(t.TempDir(), "vectors"),
		topicEmbedder{"trip": 0, "holiday": 0, "tahoe": 0, "drove": 0, "pottery": 1}, "topics")
	if err != nil {
		t.Fatal(err)
	}
	e.vec = vec
	e.conversation(t, "u", chat)
	vw := recall.VectorWeights{Episode: 0.5, K: 10, EpisodeJoin: true}
	w := recall.DefaultWeights()
	w.Episode, w.Vector = recall.EpisodeWeights{}, vw
	eng := &recall.Engine{Store: e.store, Index: e.index, Vectors: vec, Now: e.engine.Now, Weights: &w}
	defer eng.Close()
	// "pottery" matches two turns in words; "trip" none, but the turns
	// about the holiday are near it in meaning.
	res, err := eng.Search(ctx, "u", recall.SearchRequest{Query: "pottery trip", Limit: 10, Types: []string{"episode"}})
	if err != nil {
		t.Fatal(err)
	}
	var best float64
	for _, h := range res.Hits {
		best = max(best, h.Signals["bm25"])
	}
	joined := 0
	for _, h := range res.Hits {
		r := h.Signals["vector_rank"]
		if h.Signals["bm25"] > 0 || r == 0 {
			continue
		}
		joined++
		want := best * vw.Episode * (vw.K + 1) / (vw.K + r)
		if math.Abs(h.Score-want) > 1e-3*want+1e-4 {
			t.Errorf("%s found by the vectors alone at rank %v scores %v, want %v (best BM25 %v)", h.ID, r, h.Score, want, best)
		}
	}
	if best == 0 || joined == 0 {
		t.Fatalf("want turns found by words and turns found by the vectors alone: %+v", res.Hits)
	}
	// Without EpisodeJoin, only turns found by words are scored.
	w.Vector.EpisodeJoin = false
	res, err = eng.Search(ctx, "u", recall.SearchRequest{Query: "pottery trip", Limit: 10, Types: []string{"episode"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Signals["bm25"] == 0 {
			t.Errorf("%s joined with EpisodeJoin off: %v", h.ID, h.Signals)
		}
	}
}

// queriesSeen records the questions an embedder was asked to embed.
type queriesSeen struct {
	topicEmbedder
	mu sync.Mutex
	q  []string
}

func (s *queriesSeen) Embed(ctx context.Context, kind embed.Kind, texts []string) ([][]float32, error) {
	if kind == embed.Query {
		s.mu.Lock()
		s.q = append(s.q, texts...)
		s.mu.Unlock()
	}
	return s.topicEmbedder.Embed(ctx, kind, texts)
}

// TestSearch_QuestionEmbeddedWithoutSpeakers: the names of the scope's
// speakers are left out of the embedded question; other names stay.
func TestSearch_QuestionEmbeddedWithoutSpeakers(t *testing.T) {
	e := newEnv(t)
	emb := &queriesSeen{topicEmbedder: topicEmbedder{"pottery": 1}}
	vec, err := vector.Open(filepath.Join(t.TempDir(), "vectors"), emb, "topics")
	if err != nil {
		t.Fatal(err)
	}
	e.vec, e.engine.Vectors, e.engine.VectorWait = vec, vec, time.Minute
	e.conversation(t, "u", chat)
	for q, want := range map[string]string{
		"What did Ann say about Bob's pottery?": "What did say about pottery?",
		"Did Ann go to Lake Tahoe?":             "Did go to Lake Tahoe?",
		"Ann?":                                  "Ann?",
		"What does Carl think of Lake Tahoe?":   "What does Carl think of Lake Tahoe?",
	} {
		emb.mu.Lock()
		emb.q = nil
		emb.mu.Unlock()
		e.search(t, "u", recall.SearchRequest{Query: q, Limit: 5})
		emb.mu.Lock()
		got := slices.Clone(emb.q)
		emb.mu.Unlock()
		if len(got) != 1 || got[0] != want {
			t.Errorf("%q embedded as %q, want %q", q, got, want)
		}
	}
}
