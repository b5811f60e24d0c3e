package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/recall"
	"github.com/graphmem/graphmem/search"
)

// Catalog seeds: weights and lexicon are tuned on TuneSeed; figures are
// reported on ReportSeed.
const (
	TuneSeed   = 1
	ReportSeed = 2
)

// CatalogOptions configure Catalog.
type CatalogOptions struct {
	Seed      uint64 // ReportSeed when 0
	Questions int    // 200 when 0
	// WorkDir receives the store and the index; a temporary folder,
	// removed afterwards, when empty.
	WorkDir string
	// Store, when set, holds the catalog instead of an embedded store in
	// WorkDir (its scope "catalog" must be empty).
	Store graph.Store
	// Progress, when set, is called after each question.
	Progress func(done, total int)
	// Misses, when set, receives each question whose fact graphmem's
	// search did not rank first, with the fact hits it returned;
	// MissesVectors the same for graphmem with embeddings.
	Misses        io.Writer
	MissesVectors io.Writer
	// Embeddings, when set, adds graphmem with the vector list to the
	// report (the same questions, the same store and search index).
	Embeddings *Embeddings
	// VectorWeights replace recall.DefaultVectorWeights with the vector
	// list (for tuning on TuneSeed).
	VectorWeights *recall.VectorWeights
	// VectorWait is what an answer with the vector list waits for its
	// question's vector, as a server's GRAPHMEM_EMBED_QUERY_WAIT (zero:
	// the engine's default). Every question is embedded anew, as a new
	// question would be: the vector of one asking does not serve the next.
	VectorWait time.Duration
	// Reworded also asks every question reworded as people word them, in
	// words the lexicon does not know (catalog_reworded.go).
	Reworded bool
	// PathQuestions is how many relational questions to ask
	// (catalog_paths.go): none when 0, PathQuestionsDefault when negative.
	PathQuestions int
	// PathsOnly asks only the relational questions: no single-hop ones,
	// no unknown subjects, no vectors (the report has no baseline then).
	PathsOnly bool
	// PathMisses, when set, receives each relational question whose
	// block lacks a fact of its path.
	PathMisses io.Writer
}

// CatalogScores are the figures of one system on the catalog questions.
type CatalogScores struct {
	// Hit1 and Hit5: share of questions whose current fact is the first
	// (among the first five) fact hits of search.
	Hit1 float64 `json:"hit_at_1"`
	Hit5 float64 `json:"hit_at_5"`
	// TopHit: share of questions whose first hit of any type is the fact.
	TopHit float64 `json:"top_hit_is_fact"`
	// ContextHolds: share of questions whose context block holds the fact
	// (graphmem only).
	ContextHolds float64 `json:"context_holds,omitempty"`
	// SupersededAbove counts questions where, with history included, a
	// superseded version of the asked fact ranks above the current one (or
	// is returned without it).
	SupersededAbove int     `json:"superseded_above_current"`
	SearchP50Ms     float64 `json:"search_p50_ms"`
	SearchP95Ms     float64 `json:"search_p95_ms"`
	ContextP50Ms    float64 `json:"context_p50_ms,omitempty"`
	ContextP95Ms    float64 `json:"context_p95_ms,omitempty"`
	// VectorsSkipped counts the answers with embeddings on that went
	// without the vector list (the question's vector was late).
	VectorsSkipped int `json:"vectors_skipped,omitempty"`
	// VectorWaitMs is what an answer waited for its question's vector at
	// the end of the run (recall.Engine.QueryVectorWait).
	VectorWaitMs float64 `json:"vector_wait_ms,omitempty"`
}

// CatalogReport is the outcome of a catalog run.
type CatalogReport struct {
	Seed       uint64 `json:"seed"`
	Entities   int    `json:"entities"`
	Facts      int    `json:"facts"`
	Superseded int    `json:"superseded_facts"`
	Predicates int    `json:"predicates"`
	Changing   int    `json:"changing_predicates"`
	Questions  int    `json:"questions"`
	// Graphmem is recall's search and context; Baseline plain BM25 over
	// the same index (search.Index.Search, facts only).
	Graphmem CatalogScores `json:"graphmem"`
	Baseline CatalogScores `json:"baseline_bm25"`
	// ByGroup is graphmem's hit@1 for questions naming the entity by
	// name or alias, for English and Chinese questions, and for those
	// asked in a held-out wording (never tuned on).
	ByGroup map[string]float64 `json:"hit_at_1_by_group"`
	// Vectors is graphmem with embeddings (the vector list fused in), with
	// its hit@1 by group and what embedding the catalog cost.
	Vectors        *CatalogScores     `json:"graphmem_vectors,omitempty"`
	ByGroupVectors map[string]float64 `json:"hit_at_1_by_group_vectors,omitempty"`
	Embedding      *EmbedCost         `json:"embedding,omitempty"`
	// Unknown is graphmem on questions about subjects the catalog does
	// not hold; UnknownBefore the same without the judging of names
	// (recall.Engine.NoUnknownNames), UnknownVectors with embeddings.
	Unknown        UnknownScores  `json:"unknown"`
	UnknownBefore  UnknownScores  `json:"unknown_without_name_judging"`
	UnknownVectors *UnknownScores `json:"unknown_vectors,omitempty"`
	// Reworded and RewordedVectors are the same questions reworded
	// (CatalogOptions.Reworded), without and with the vector list.
	Reworded        *CatalogScores `json:"reworded,omitempty"`
	RewordedVectors *CatalogScores `json:"reworded_vectors,omitempty"`
	// Paths are the relational questions' figures (CatalogOptions
	// .PathQuestions); PathsOnly says nothing else was asked.
	Paths     *PathReport `json:"relational,omitempty"`
	PathsOnly bool        `json:"relational_only,omitempty"`
}

// UnknownScores are the figures of one system on the questions about
// subjects that do not exist, and what it says of the known ones.
type UnknownScores struct {
	Questions int `json:"questions"`
	// FalseAnswer: share of the questions whose context block, or the
	// first five hits of search, hold a fact of the asked property (of
	// another subject: the asked one does not exist); ByKind the same by
	// how the name was made.
	FalseAnswer float64            `json:"false_answer"`
	ByKind      map[string]float64 `json:"false_answer_by_kind"`
	// Reported: share whose name search and context both list as
	// unresolved.
	Reported float64 `json:"reported_unresolved"`
	// FalseUnknown: share of the catalog's own questions (about subjects
	// that exist) for which search or context lists an unresolved name.
	FalseUnknown float64 `json:"false_unknown_on_known"`
	// FalseUnknownLower: the same for the catalog's English questions
	// written all in lower case, where no name shows by its shape.
	FalseUnknownLower float64 `json:"false_unknown_on_known_lower"`
	// FalseUnknownSpaced: the same with the subject's identifier written
	// with its words apart ("cart api" for cart-api).
	FalseUnknownSpaced float64 `json:"false_unknown_on_known_spaced"`
}

// CatalogScope is the scope the catalog is written into.
const CatalogScope = "catalog"

// Catalog generates a service catalog from the seed, loads it through the
// memory service into an embedded store, and asks its questions through
// recall's search and context, and through plain BM25 as the baseline.
func Catalog(ctx context.Context, o CatalogOptions) (CatalogReport, error) {
	if o.Seed == 0 {
		o.Seed = ReportSeed
	}
	if o.Questions == 0 {
		o.Questions = 200
	}
	onto, err := ontology.Parse([]byte(catalogOntology))
	if err != nil {
		return CatalogReport{}, err
	}
	ws, err := openWorkspace(o.WorkDir, "graphmem-catalog-", o.Store)
	if err != nil {
		return CatalogReport{}, err
	}
	defer ws.close()
	store, idx := ws.store, ws.index
	svc := memory.New(store, onto)
	svc.Now = catalogClock
	// No hit counts: each question is asked several times (search, with
	// history, context; reworded; with vectors), and a fact's hits would
	// rank it higher at each asking.
	eng := &recall.Engine{Store: store, Index: idx, Ontology: onto, Now: catalogClock, NoHits: true}
	defer eng.Close()

	data := generateCatalog(o.Seed, o.Questions)
	if err := loadCatalog(ctx, svc, ws, data); err != nil {
		return CatalogReport{}, err
	}
	rep := CatalogReport{Seed: o.Seed, Entities: data.entities, Predicates: len(onto.Predicates),
		Changing: len(data.changing), ByGroup: map[string]float64{}, PathsOnly: o.PathsOnly}
	if rep.Facts, rep.Superseded, err = countFacts(ctx, svc, CatalogScope, data); err != nil {
		return CatalogReport{}, err
	}
	if o.PathQuestions != 0 || o.PathsOnly {
		if rep.Paths, err = catalogPaths(ctx, o, eng, ws, svc, data); err != nil {
			return CatalogReport{}, err
		}
		if o.PathsOnly {
			return rep, nil
		}
	}
	a := &catalogAsking{o: o, eng: eng, idx: idx, svc: svc, groups: map[string][2]int{}, groupsV: map[string][2]int{}}
	if o.Embeddings != nil {
		engV, closeV, err := vectorEngine(ctx, o, ws, onto, &rep)
		if err != nil {
			return CatalogReport{}, err
		}
		defer closeV()
		a.engV = engV
	}
	if err := a.askAll(ctx, data); err != nil {
		return CatalogReport{}, err
	}
	if err := a.askUnknownAll(ctx, &rep, store, idx, onto, data); err != nil {
		return CatalogReport{}, err
	}
	a.fill(&rep, len(data.questions))
	return rep, nil
}

// catalogClock is the clock of the catalog's memory and engines.
func catalogClock() time.Time { return catalogNow }

// loadCatalog writes the catalog's facts through the memory service, in
// batches, and brings the index up to date and compacted, as a
// long-running server's index would be.
func loadCatalog(ctx context.Context, svc *memory.Service, ws *workspace, data catalogData) error {
	for i := 0; i < len(data.facts); i += entity.MaxBatch {
		if _, err := svc.AddFacts(ctx, CatalogScope, data.facts[i:min(i+entity.MaxBatch, len(data.facts))]); err != nil {
			return fmt.Errorf("loading the catalog: %w", err)
		}
	}
	if _, err := ws.index.Sync(ctx, ws.store); err != nil {
		return err
	}
	return ws.index.Compact(ctx)
}

// catalogPaths asks the relational questions (CatalogOptions
// .PathQuestions, the default count when not positive).
func catalogPaths(ctx context.Context, o CatalogOptions, eng *recall.Engine, ws *workspace, svc *memory.Service, data catalogData) (*PathReport, error) {
	n := o.PathQuestions
	if n <= 0 {
		n = PathQuestionsDefault
	}
	qs := generatePathQuestions(o.Seed, data.facts, n)
	var progress func(done, total int) // one bar: the single-hop questions' when they follow
	if o.PathsOnly {
		progress = o.Progress
	}
	p, err := askPaths(ctx, eng, ws.index, ws.store, svc, CatalogScope, qs, progress, o.PathMisses)
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// vectorEngine embeds the catalog and returns an engine with the vector
// list, and what closes it; rep receives what embedding cost.
func vectorEngine(ctx context.Context, o CatalogOptions, ws *workspace, onto *ontology.Ontology, rep *CatalogReport) (*recall.Engine, func(), error) {
	vec, err := newVectors(*o.Embeddings, ws.dir)
	if err != nil {
		return nil, nil, err
	}
	vec.SetPredicates(onto)
	vec.SetQueryCache(0)
	vec.ce.passagesOnly = true
	if err := vec.catchUp(ctx, ws.store); err != nil {
		vec.Close()
		return nil, nil, fmt.Errorf("embedding the catalog: %w", err)
	}
	cost, err := vec.cost()
	if err != nil {
		vec.Close()
		return nil, nil, err
	}
	rep.Embedding = &cost
	engV := &recall.Engine{Store: ws.store, Index: ws.index, Vectors: vec.Index, VectorWait: o.VectorWait, Ontology: onto,
		Now: catalogClock, Weights: weightsWith(recall.DefaultEpisodeWeights, o.VectorWeights), NoHits: true}
	return engV, func() { engV.Close(); vec.Close() }, nil
}

// catalogAsking is the asking of a catalog's questions: the engines
// (engV with the vector list, nil without embeddings) and each system's
// tallies.
type catalogAsking struct {
	o         CatalogOptions
	eng, engV *recall.Engine
	idx       *search.Index
	svc       *memory.Service

	ours, withVec, base, rew, rewVec tallyCatalog
	groups, groupsV                  map[string][2]int
}

// askAll asks every question of the catalog: to graphmem, with vectors,
// reworded when asked to, and to plain BM25.
func (a *catalogAsking) askAll(ctx context.Context, data catalogData) error {
	var rewording []catalogQuestion
	if a.o.Reworded {
		rewording = reworded(a.o.Seed, data.questions)
	}
	for qi, q := range data.questions {
		want, older, err := a.current(ctx, q)
		if err != nil {
			return err
		}
		if err := a.askEngines(ctx, q, want, older); err != nil {
			return err
		}
		if rewording != nil {
			if err := a.askReworded(ctx, rewording[qi], want, older); err != nil {
				return err
			}
		}
		if err := a.askBaseline(ctx, q, want, older); err != nil {
			return err
		}
		if a.o.Progress != nil {
			a.o.Progress(qi+1, len(data.questions))
		}
	}
	return nil
}

// current returns the one current fact the question asks for, and the
// ids of its older versions.
func (a *catalogAsking) current(ctx context.Context, q catalogQuestion) (entity.Fact, map[string]bool, error) {
	cur, _, err := a.svc.Facts(ctx, CatalogScope, memory.FactQuery{Subject: q.Subject, Predicate: q.Predicate, Limit: 10})
	if err != nil {
		return entity.Fact{}, nil, err
	}
	if len(cur) != 1 {
		return entity.Fact{}, nil, fmt.Errorf("question %q: %d current facts of %s %s", q.Text, len(cur), q.Subject, q.Predicate)
	}
	want := cur[0]
	hist, _, err := a.svc.Facts(ctx, CatalogScope, memory.FactQuery{Subject: q.Subject, Predicate: q.Predicate, IncludeHistory: true, Limit: 100})
	if err != nil {
		return entity.Fact{}, nil, err
	}
	older := map[string]bool{}
	for _, f := range hist {
		if f.ID != want.ID {
			older[f.ID] = true
		}
	}
	return want, older, nil
}

// askEngines puts the question to graphmem, and with vectors when on.
func (a *catalogAsking) askEngines(ctx context.Context, q catalogQuestion, want entity.Fact, older map[string]bool) error {
	if err := ask(ctx, a.eng, CatalogScope, q, want, older, &a.ours, a.groups, a.o.Misses); err != nil {
		return err
	}
	if a.engV == nil {
		return nil
	}
	return ask(ctx, a.engV, CatalogScope, q, want, older, &a.withVec, a.groupsV, a.o.MissesVectors)
}

// askReworded puts the question reworded to graphmem, and with vectors
// when on.
func (a *catalogAsking) askReworded(ctx context.Context, q catalogQuestion, want entity.Fact, older map[string]bool) error {
	if err := ask(ctx, a.eng, CatalogScope, q, want, older, &a.rew, map[string][2]int{}, a.o.Misses); err != nil {
		return err
	}
	if a.engV == nil {
		return nil
	}
	return ask(ctx, a.engV, CatalogScope, q, want, older, &a.rewVec, map[string][2]int{}, a.o.MissesVectors)
}

// askBaseline puts the question to BM25 over the same index, facts only:
// now, then with history.
func (a *catalogAsking) askBaseline(ctx context.Context, q catalogQuestion, want entity.Fact, older map[string]bool) error {
	start := time.Now()
	hits, err := a.idx.Search(ctx, search.Query{Scope: CatalogScope, Text: q.Text, Types: []string{search.TypeFact}, Limit: 10, Now: catalogNow})
	if err != nil {
		return err
	}
	a.base.search = append(a.base.search, ms(time.Since(start)))
	ids := hitIDs(hits)
	a.base.add(ids, want.ID, len(ids) > 0 && ids[0] == want.ID)
	hits, err = a.idx.Search(ctx, search.Query{Scope: CatalogScope, Text: q.Text, Types: []string{search.TypeFact}, Limit: 10,
		Now: catalogNow, IncludeHistory: true})
	if err != nil {
		return err
	}
	a.base.superseded(hitIDs(hits), want.ID, older)
	return nil
}

// hitIDs are the ids of the hits, in order.
func hitIDs(hits []search.Hit) []string {
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	return ids
}

// askUnknownAll asks the questions about subjects that do not exist: to
// graphmem, to graphmem without the judging of names, and with vectors
// when on.
func (a *catalogAsking) askUnknownAll(ctx context.Context, rep *CatalogReport, store graph.Store, idx *search.Index, onto *ontology.Ontology, data catalogData) error {
	// Without hit counts, as eng: a hit written while the questions are
	// asked would rank its fact higher at the next question, by a timing
	// of the hit writer's, and the row would differ from run to run.
	engBefore := &recall.Engine{Store: store, Index: idx, Ontology: onto, Now: catalogClock, NoUnknownNames: true, NoHits: true}
	defer engBefore.Close()
	var err error
	if rep.Unknown, err = askUnknown(ctx, a.eng, CatalogScope, data, a.ours.unknownOnKnown, a.o.Misses); err != nil {
		return err
	}
	if rep.UnknownBefore, err = askUnknown(ctx, engBefore, CatalogScope, data, 0, nil); err != nil {
		return err
	}
	if a.engV != nil {
		u, err := askUnknown(ctx, a.engV, CatalogScope, data, a.withVec.unknownOnKnown, a.o.MissesVectors)
		if err != nil {
			return err
		}
		rep.UnknownVectors = &u
	}
	return nil
}

// fill writes the figures of n questions into the report.
func (a *catalogAsking) fill(rep *CatalogReport, n int) {
	rep.Questions = n
	rep.Graphmem, rep.Baseline = a.ours.withContext(n), a.base.scores(n)
	rep.ByGroup = groupShares(a.groups)
	if a.o.Reworded {
		r := a.rew.withContext(n)
		rep.Reworded = &r
	}
	if a.engV == nil {
		return
	}
	v := a.withVec.withContext(n)
	v.VectorWaitMs = ms(a.engV.QueryVectorWait())
	rep.Vectors = &v
	rep.ByGroupVectors = groupShares(a.groupsV)
	if a.o.Reworded {
		r := a.rewVec.withContext(n)
		rep.RewordedVectors = &r
	}
}

// groupShares is hit@1 by group, of the counts (asked, first) by group.
func groupShares(groups map[string][2]int) map[string]float64 {
	out := map[string]float64{}
	for g, c := range groups {
		out[g] = roundTo(float64(c[1])/float64(c[0]), 3)
	}
	return out
}

// countFacts counts the facts of the catalog's subjects and how many of
// them are superseded now.
func countFacts(ctx context.Context, svc *memory.Service, scope entity.Scope, d catalogData) (total, superseded int, err error) {
	seen := map[string]bool{}
	for _, f := range d.facts {
		if seen[f.Subject] {
			continue
		}
		seen[f.Subject] = true
		cursor := ""
		for {
			fs, next, err := svc.Facts(ctx, scope, memory.FactQuery{Subject: f.Subject, IncludeHistory: true,
				Limit: entity.MaxPageSize, Cursor: cursor})
			if err != nil {
				return 0, 0, err
			}
			for _, g := range fs {
				total++
				if g.SupersededBy != "" {
					superseded++
				}
			}
			if next == "" {
				break
			}
			cursor = next
		}
	}
	return total, superseded, nil
}

func missed(w io.Writer, q catalogQuestion, want entity.Fact, res recall.SearchResult) {
	fmt.Fprintf(w, "MISS %q (want %s: %s)\n", q.Text, want.Predicate, want.Text)
	for i, h := range res.Hits {
		if i == 5 {
			break
		}
		sig, _ := json.Marshal(h.Signals)
		fmt.Fprintf(w, "   %d %-6s %6.2f %s %s\n", i+1, h.Type, h.Score, h.Text, sig)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// tallyCatalog accumulates one system's results.
type tallyCatalog struct {
	hit1, hit5, top, holds, above int
	search, context               []float64
	// unknownOnKnown counts questions with a name listed as unresolved.
	unknownOnKnown int
	// skipped counts answers that went without the vector list.
	skipped int
}

// add scores one ranked list of fact ids and returns the rank of want
// (0 when absent).
func (t *tallyCatalog) add(ids []string, want string, top bool) int {
	rank := slices.Index(ids, want) + 1
	if rank == 1 {
		t.hit1++
	}
	if rank >= 1 && rank <= 5 {
		t.hit5++
	}
	if top {
		t.top++
	}
	return rank
}

// superseded counts a list (history included) where an older version of
// want ranks above it, or is there without it.
func (t *tallyCatalog) superseded(ids []string, want string, older map[string]bool) {
	for _, id := range ids {
		if id == want {
			return
		}
		if older[id] {
			t.above++
			return
		}
	}
}

// withContext is scores with the context figures.
func (t *tallyCatalog) withContext(n int) CatalogScores {
	s := t.scores(n)
	s.ContextHolds = roundTo(float64(t.holds)/float64(n), 3)
	s.ContextP50Ms, s.ContextP95Ms = percentile(t.context, 50), percentile(t.context, 95)
	s.VectorsSkipped = t.skipped
	return s
}

func (t *tallyCatalog) scores(n int) CatalogScores {
	f := func(k int) float64 { return roundTo(float64(k)/float64(n), 3) }
	return CatalogScores{Hit1: f(t.hit1), Hit5: f(t.hit5), TopHit: f(t.top), SupersededAbove: t.above,
		SearchP50Ms: percentile(t.search, 50), SearchP95Ms: percentile(t.search, 95)}
}

// JSON is the report as one JSON object.
func (r CatalogReport) JSON() ([]byte, error) { return json.Marshal(r) }

// WriteTable prints graphmem's figures next to the BM25 baseline.
func (r CatalogReport) WriteTable(w io.Writer) error {
	if r.PathsOnly {
		fmt.Fprintf(w, "Service catalog (seed %d): %d entities, %d facts (%d superseded), %d predicates (%d change over time)\n",
			r.Seed, r.Entities, r.Facts, r.Superseded, r.Predicates, r.Changing)
		return r.Paths.WriteTable(w)
	}
	fmt.Fprintf(w, "Service catalog (seed %d): %d entities, %d facts (%d superseded), %d predicates (%d change over time), %d questions\n",
		r.Seed, r.Entities, r.Facts, r.Superseded, r.Predicates, r.Changing, r.Questions)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\thit@1 (facts)\thit@5 (facts)\tfirst hit is the fact\tcontext holds it\tsuperseded above current\tsearch p50 ms\tsearch p95 ms\tcontext p50 ms\tcontext p95 ms\t")
	row := func(name string, s CatalogScores, holds, cp50, cp95 string) {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%s\t%d\t%.2f\t%.2f\t%s\t%s\t\n", name, s.Hit1, s.Hit5, s.TopHit, holds,
			s.SupersededAbove, s.SearchP50Ms, s.SearchP95Ms, cp50, cp95)
	}
	ours := func(name string, s *CatalogScores) {
		if s != nil {
			row(name, *s, fmt.Sprintf("%.3f", s.ContextHolds), fmt.Sprintf("%.2f", s.ContextP50Ms), fmt.Sprintf("%.2f", s.ContextP95Ms))
		}
	}
	ours("graphmem", &r.Graphmem)
	ours("graphmem + vectors", r.Vectors)
	row("BM25 only", r.Baseline, "-", "-", "-")
	ours("graphmem, reworded", r.Reworded)
	ours("graphmem + vectors, reworded", r.RewordedVectors)
	if err := tw.Flush(); err != nil {
		return err
	}
	groups := make([]string, 0, len(r.ByGroup))
	for g := range r.ByGroup {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	for _, g := range groups {
		fmt.Fprintf(w, "hit@1 %s: %.3f  ", g, r.ByGroup[g])
	}
	fmt.Fprintln(w)
	r.writeUnknown(w)
	if r.Vectors != nil {
		fmt.Fprint(w, "with vectors: ")
		for _, g := range groups {
			fmt.Fprintf(w, "hit@1 %s: %.3f  ", g, r.ByGroupVectors[g])
		}
		c := r.Embedding
		fmt.Fprintf(w, "\nembedding: %d vectors, %d texts embedded in %.1f s (%.1f per second), index file %.1f MB, follower catch-up %.1f s\n",
			c.Texts, c.Embedded, c.Seconds, c.PerSecond, float64(c.IndexBytes)/1e6, c.SyncSeconds)
		fmt.Fprintf(w, "answers with vectors that went without the list (vector late): %d of %d", r.Vectors.VectorsSkipped, 3*r.Questions)
		if r.RewordedVectors != nil {
			fmt.Fprintf(w, ", reworded %d of %d", r.RewordedVectors.VectorsSkipped, 3*r.Questions)
		}
		fmt.Fprintf(w, "; wait for a question's vector at the end: %.0f ms\n", r.Vectors.VectorWaitMs)
	}
	if r.Paths != nil {
		return r.Paths.WriteTable(w)
	}
	return nil
}

// ask puts one question to graphmem (eng): search, search with history,
// context; tallied in t and groups, a miss written to misses when set.
func ask(ctx context.Context, eng *recall.Engine, scope entity.Scope, q catalogQuestion, want entity.Fact, older map[string]bool,
	t *tallyCatalog, groups map[string][2]int, misses io.Writer) error {
	_, missedBefore := eng.VectorUse()
	defer func() {
		_, missedAfter := eng.VectorUse()
		t.skipped += int(missedAfter - missedBefore)
	}()
	start := time.Now()
	res, err := eng.Search(ctx, scope, recall.SearchRequest{Query: q.Text, Limit: 10})
	if err != nil {
		return err
	}
	t.search = append(t.search, ms(time.Since(start)))
	var ids []string
	for _, h := range res.Hits {
		if h.Type == search.TypeFact {
			ids = append(ids, h.ID)
		}
	}
	top := len(res.Hits) > 0 && res.Hits[0].ID == want.ID
	rank := t.add(ids, want.ID, top)
	key := "name"
	if q.Alias {
		key = "alias"
	}
	gs := []string{key, q.Lang}
	if q.HeldOut {
		gs = append(gs, "held-out wording")
	}
	for _, g := range gs {
		n := groups[g]
		n[0]++
		if rank == 1 {
			n[1]++
		}
		groups[g] = n
	}
	if rank != 1 && misses != nil {
		missed(misses, q, want, res)
	}
	res, err = eng.Search(ctx, scope, recall.SearchRequest{Query: q.Text, Limit: 10, IncludeHistory: true})
	if err != nil {
		return err
	}
	ids = ids[:0]
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	t.superseded(ids, want.ID, older)
	start = time.Now()
	cres, err := eng.Context(ctx, scope, recall.ContextRequest{Query: q.Text})
	if err != nil {
		return err
	}
	t.context = append(t.context, ms(time.Since(start)))
	if slices.ContainsFunc(cres.Facts, func(f recall.ContextFact) bool { return f.Fact.ID == want.ID }) {
		t.holds++
	}
	if len(res.Unresolved) > 0 || len(cres.Unresolved) > 0 {
		t.unknownOnKnown++
	}
	return nil
}

// askUnknown puts the questions about subjects that do not exist to eng,
// and the known English ones in lower case; onKnown is how many of the
// known questions listed an unresolved name. misses, when set, receives
// the questions answered falsely and the known ones in lower case that
// listed an unresolved name.
func askUnknown(ctx context.Context, eng *recall.Engine, scope entity.Scope, data catalogData, onKnown int, misses io.Writer) (UnknownScores, error) {
	lower, spaced, err := askKnownLower(ctx, eng, scope, data.questions, misses)
	if err != nil {
		return UnknownScores{}, err
	}
	var falseAnswers, reported outcomes
	kinds := map[string]outcomes{}
	for _, q := range data.unknown {
		answered, named, err := askAboutUnknown(ctx, eng, scope, q, misses)
		if err != nil {
			return UnknownScores{}, err
		}
		falseAnswers.add(answered)
		reported.add(named)
		k := kinds[q.Kind]
		k.add(answered)
		kinds[q.Kind] = k
	}
	u := UnknownScores{Questions: len(data.unknown), FalseAnswer: falseAnswers.share(), Reported: reported.share(),
		FalseUnknown: outcomes{asked: len(data.questions), yes: onKnown}.share(), FalseUnknownLower: lower.share(),
		FalseUnknownSpaced: spaced.share(), ByKind: map[string]float64{}}
	for kind, k := range kinds {
		u.ByKind[kind] = k.share()
	}
	return u, nil
}

// outcomes are how many questions were asked, and how many of them had
// an outcome.
type outcomes struct{ asked, yes int }

func (c *outcomes) add(yes bool) {
	c.asked++
	if yes {
		c.yes++
	}
}

// share is the share of the questions with the outcome, 0 of none.
func (c outcomes) share() float64 {
	if c.asked == 0 {
		return 0
	}
	return roundTo(float64(c.yes)/float64(c.asked), 3)
}

// askKnownLower asks the known English questions in lower case, and again
// with the subject's identifier written with its words apart where that
// changes them, and counts those that listed an unresolved name.
func askKnownLower(ctx context.Context, eng *recall.Engine, scope entity.Scope, qs []catalogQuestion, misses io.Writer) (lower, spaced outcomes, err error) {
	for _, q := range qs {
		if q.Lang != "en" {
			continue
		}
		text := strings.ToLower(q.Text)
		u, err := listsUnresolved(ctx, eng, scope, text, misses)
		if err != nil {
			return lower, spaced, err
		}
		lower.add(u)
		if s := strings.ToLower(strings.Replace(q.Text, q.Name, lowerName(q.Name), 1)); s != text {
			if u, err = listsUnresolved(ctx, eng, scope, s, misses); err != nil {
				return lower, spaced, err
			}
			spaced.add(u)
		}
	}
	return lower, spaced, nil
}

// listsUnresolved reports whether search or context lists an unresolved
// name for text (written to misses, when set).
func listsUnresolved(ctx context.Context, eng *recall.Engine, scope entity.Scope, text string, misses io.Writer) (bool, error) {
	res, err := eng.Search(ctx, scope, recall.SearchRequest{Query: text, Limit: 10})
	if err != nil {
		return false, err
	}
	cres, err := eng.Context(ctx, scope, recall.ContextRequest{Query: text})
	if err != nil {
		return false, err
	}
	if len(res.Unresolved) == 0 && len(cres.Unresolved) == 0 {
		return false, nil
	}
	if misses != nil {
		fmt.Fprintf(misses, "FALSE UNKNOWN %q: %v %v\n", text, res.Unresolved, cres.Unresolved)
	}
	return true, nil
}

// askAboutUnknown asks a question about a subject that does not exist and
// reports whether it was answered falsely — a fact of the asked property
// among search's first five facts or in the block (written to misses,
// when set) — and whether search and context both list its name as
// unresolved.
func askAboutUnknown(ctx context.Context, eng *recall.Engine, scope entity.Scope, q unknownQuestion, misses io.Writer) (answered, named bool, err error) {
	res, err := eng.Search(ctx, scope, recall.SearchRequest{Query: q.Text, Limit: 10})
	if err != nil {
		return false, false, err
	}
	cres, err := eng.Context(ctx, scope, recall.ContextRequest{Query: q.Text})
	if err != nil {
		return false, false, err
	}
	facts := 0
	for _, h := range res.Hits {
		if h.Fact != nil && facts < 5 {
			facts++
			answered = answered || h.Fact.Predicate == q.Predicate
		}
	}
	for _, f := range cres.Facts {
		answered = answered || f.Fact.Predicate == q.Predicate
	}
	if answered && misses != nil {
		fmt.Fprintf(misses, "FALSE ANSWER %q (%s): unresolved %v\n", q.Text, q.Kind, cres.Unresolved)
	}
	lists := func(ns []recall.NameLink) bool {
		return slices.ContainsFunc(ns, func(l recall.NameLink) bool { return entity.Normalize(l.Name) == entity.Normalize(q.Name) })
	}
	return answered, lists(res.Unresolved) && lists(cres.Unresolved), nil
}

// writeUnknown prints the figures on subjects that do not exist.
func (r CatalogReport) writeUnknown(w io.Writer) {
	fmt.Fprintf(w, "Questions about subjects that do not exist (%d): another subject's value of the asked property in the block or search's top 5\n",
		r.Unknown.Questions)
	row := func(name string, u UnknownScores) {
		fmt.Fprintf(w, "  %-28s false answers %.3f  reported unresolved %.3f  known questions with an unresolved name %.3f (in lower case %.3f, words apart %.3f)  by kind:",
			name, u.FalseAnswer, u.Reported, u.FalseUnknown, u.FalseUnknownLower, u.FalseUnknownSpaced)
		for _, k := range unknownKinds {
			fmt.Fprintf(w, " %s %.2f", k, u.ByKind[k])
		}
		for _, k := range unknownKinds {
			fmt.Fprintf(w, " %s %.2f", lowerKind(k), u.ByKind[lowerKind(k)])
		}
		fmt.Fprintln(w)
	}
	row("graphmem", r.Unknown)
	if r.UnknownVectors != nil {
		row("graphmem + vectors", *r.UnknownVectors)
	}
	row("without name judging", r.UnknownBefore)
}
