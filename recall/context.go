package recall

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/search"
)

// ContextFact is a fact that went into a context, with its status at
// as_of and the role it plays there.
type ContextFact struct {
	Fact   entity.Fact   `json:"fact"`
	Status entity.Status `json:"status"`
	// Role is "pinned", "fact", "history" (an earlier or later version of
	// a fact in the context) or "decision".
	Role  string  `json:"role"`
	Score float64 `json:"score"`
	// Explanation is how Score was made (fact, decision and path facts;
	// see SearchHit), its value Score before rounding. It is for callers
	// in Go: no answer encodes it, so it takes no part in the bound on a
	// context's items (ItemsPerToken).
	Explanation *Explanation `json:"-"`
}

// ContextEpisode is an episode quoted in a context.
type ContextEpisode struct {
	Episode entity.Episode `json:"episode"`
	Quote   string         `json:"quote"`
}

// ContextResult answers a ContextRequest.
type ContextResult struct {
	// Context is the block to put in the prompt, in the requested format.
	Context  string           `json:"context"`
	Facts    []ContextFact    `json:"facts"`
	Entities []entity.Entity  `json:"entities"`
	Episodes []ContextEpisode `json:"episodes"`
	// Tokens is the estimated size of Context (EstimateTokens).
	Tokens int `json:"tokens"`
	// Mode is the mode used: "current" or "history" (auto resolved).
	Mode Mode      `json:"mode"`
	AsOf time.Time `json:"as_of"`
	// TimeNamed is the phrase of the question that set the time of the
	// answer (mode auto, no as_of given), e.g. "in March 2025"; Period is
	// the range it names, when it names a range rather than a point.
	TimeNamed string  `json:"time_named,omitempty"`
	Period    *Period `json:"period,omitempty"`
	// Unresolved and Ambiguous: as in SearchResult. The block says of
	// each unresolved name, in one line, that memory holds nothing about
	// it.
	Unresolved []NameLink `json:"unresolved"`
	Ambiguous  []NameLink `json:"ambiguous"`
	// Paths are the chains of facts the answer crosses when the question
	// joins facts through an entity it does not name (path.go): each hop
	// with its entity, predicate, fact and status; a broken path says
	// which predicate memory lacks.
	Paths []Path `json:"paths"`
	VectorState
}

// Packing limits (its weights are ContextWeights).
const (
	contextCandidates = 40  // ranked results considered for a context
	quoteRunes        = 240 // length of a quoted episode
	sourceQuotes      = 5   // facts whose source episode is quoted
	chainFacts        = 10  // fact blocks whose supersession chain is read
)

// Predicates whose current facts are pinned into every context of the
// scope when a user stated them: hard constraints and standing
// preferences.
var pinnedPredicates = []string{"constraint", "prefers"}

// block is a unit of packing: a fact with its history and source, a
// quote, an entity. Optional lines are dropped first when the budget is
// tight.
type block struct {
	priority float64
	pinned   bool
	// lead: what search ranks first, a session's best turn, or the walk's
	// paths (keep.go): the floor keeps it and packing takes it first.
	lead bool
	// spare: a quote the floor left out, packed only into the room the
	// other blocks leave (floor).
	spare    bool
	lines    []line
	facts    []ContextFact
	episodes []ContextEpisode
	entity   *entity.Entity
}

// line is one rendered line of a context; it is also the json format's
// item.
type line struct {
	Kind string `json:"kind"` // constraint, preference, fact, was, later, then, decision, source, episode, entity, unknown
	ID   string `json:"id"`
	// Text is a fact's sentence (its own text, else subject, predicate and
	// value), a quote, or an entity with its summary.
	Text string `json:"text"`
	// Subject, Predicate and Object or Value are a fact's as stored: the
	// line shows them whatever its text says.
	Subject    string        `json:"subject,omitempty"`
	Predicate  string        `json:"predicate,omitempty"`
	Object     string        `json:"object,omitempty"`
	Value      string        `json:"value,omitempty"`
	Status     entity.Status `json:"status,omitempty"`
	ValidFrom  *time.Time    `json:"valid_from,omitempty"`
	ValidTo    *time.Time    `json:"valid_to,omitempty"`
	SourceKind string        `json:"source_kind,omitempty"`
	Reason     string        `json:"reason,omitempty"`
	// Details are the other attributes of a fact, "key: value; …".
	Details string `json:"details,omitempty"`
	// Conflicts are other values stated for the same instant (temporal
	// rule 4a), shown so the tie is never hidden.
	Conflicts string     `json:"conflicts,omitempty"`
	Speaker   string     `json:"speaker,omitempty"`
	Time      *time.Time `json:"time,omitempty"`
	// Candidates are the close known names of an unknown line's name
	// (linking.go), offered as "did you mean".
	Candidates []string `json:"candidates,omitempty"`
	// hops are the facts of a path line, and missing the predicate a
	// broken path lacks for missingAt (path.go).
	hops               []pathLineHop
	missing, missingAt string
	// note is a fact's own text, conflicts the values Conflicts joins and
	// entity the entity of an entity line: the text and markdown formats
	// quote each of them on its own.
	note      string
	conflicts []string
	entity    *entity.Entity
	optional  bool
	nested    bool
	// Shortened: the fact alone is larger than the budget; its stored
	// text is clipped to fit and its notes left out (shorten).
	Shortened bool `json:"shortened,omitempty"`
}

// Context builds what to put in the prompt for a query (docs/design.md §4): BM25
// seeds and entity linking, a two-hop walk, fused ranking with diversity,
// then packing into max_tokens with pinned constraints first, the facts
// valid at as_of, their supersession chains and sources for questions
// about time, change or causes (and in history mode), decisions with their
// reasons and quotes from episodes. Returns EINVALID for a bad request.
func (e *Engine) Context(ctx context.Context, scope entity.Scope, req ContextRequest) (ContextResult, error) {
	if err := validateScope(scope); err != nil {
		return ContextResult{}, err
	}
	if err := req.Validate(); err != nil {
		return ContextResult{}, err
	}
	vec := e.embedQuestion(ctx, scope, req.Query)
	if err := e.Index.CatchUp(ctx, e.Store, scope); err != nil {
		return ContextResult{}, err
	}
	defer e.Index.Querying()() // a running sync yields to it
	now := e.now()
	// Relative times ("last March") are read against the time the question
	// is asked: reference_time, else as_of, else now.
	ref := orNow(req.ReferenceTime, orNow(req.AsOf, now))
	a := analyze(req.Query, ref)
	at, err := e.answerTime(ctx, scope, &req, a, orNow(req.AsOf, ref), now)
	if err != nil {
		return ContextResult{}, err
	}
	asOf := at.asOf
	mode := req.Mode
	if mode == ModeAuto {
		mode = ModeCurrent
		if a.intent.History() || at.during != nil {
			mode = ModeHistory
		}
	}
	p := params{scope: scope, a: a, now: now, asOf: asOf, knownAt: req.KnownAt, history: mode == ModeHistory,
		during: at.during, limit: contextCandidates, hops: 2, focus: req.Focus, candidates: candidatesMin,
		pending: vec}
	// One read transaction for the whole request: every line of the block
	// comes from the same snapshot of the store.
	var b builder
	var c *candidates
	var paths []Path
	var und map[string]bool // predicates no ontology entry or hint describes (handover.go)
	err = e.Store.View(ctx, scope, func(tx graph.Tx) error {
		var err error
		if c, err = e.retrieve(ctx, tx, p); err != nil {
			return err
		}
		b = builder{e: e, p: &p, c: c, history: mode == ModeHistory, quoted: map[string]bool{}, lead: c.leads(!e.NoRelevanceFloor)}
		if err := b.collect(ctx, tx); err != nil {
			return err
		}
		if !e.NoRelevanceFloor {
			b.floor()
		}
		if paths, err = b.walk(tx); err != nil {
			return err
		}
		b.blocks = append(unknownBlocks(c.unresolved), b.blocks...)
		und, err = undescribed(e, tx, b.blocks)
		return err
	})
	if err != nil {
		return ContextResult{}, err
	}
	hd := header{asOf: asOf, now: now, knownAt: req.KnownAt, mode: mode, named: at.named, during: at.during}
	chosen, room := pack(b.blocks, req.MaxTokens, EstimateTokens(renderHeader(req.Format, hd)+nothing)+2, req.Format, c.w.Context.PinnedShare)
	if note := handoverBlock(chosen, und); note != nil {
		chosen = append(chosen, note)
	}
	chosen, text := fitRendered(req.Format, hd, chosen, req.MaxTokens)
	res := ContextResult{Mode: mode, AsOf: asOf, TimeNamed: at.named, Facts: []ContextFact{}, Entities: []entity.Entity{}, Episodes: []ContextEpisode{},
		Unresolved: nonNil(c.unresolved), Ambiguous: nonNil(c.ambiguous), Paths: paths,
		VectorState: c.vectorUse()}
	if at.during != nil {
		res.Period = &Period{From: at.during.from, To: at.during.to}
	}
	var touched []string
	seenEntity := map[string]bool{}
	for _, bl := range chosen {
		res.Facts = append(res.Facts, bl.facts...)
		for _, f := range bl.facts {
			touched = append(touched, f.Fact.ID)
			f.Explanation.finish()
		}
		res.Episodes = append(res.Episodes, bl.episodes...)
		if bl.entity != nil && !seenEntity[bl.entity.ID] {
			seenEntity[bl.entity.ID] = true
			res.Entities = append(res.Entities, *bl.entity)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(c.linked)) {
		if it := c.entities[id]; it != nil && !seenEntity[id] {
			en := boundedEntity(*it.entity)
			if room -= jsonTokens(en); room < 0 {
				break // the answer stays within its bound
			}
			seenEntity[id] = true
			res.Entities = append(res.Entities, en)
		}
	}
	res.Context = text
	res.Tokens = EstimateTokens(text)
	e.touch(scope, touched)
	return res, nil
}

// builder turns ranked candidates into blocks.
type builder struct {
	e       *Engine
	p       *params
	c       *candidates
	history bool
	blocks  []*block
	quoted  map[string]bool // episodes already quoted
	lead    map[string]bool // items whose blocks lead (leads)
}

// collect makes the blocks of a context from the best candidates: the
// pinned rules, then a block per fact chain, per episode and per entity
// card, each stage below on its own.
func (b *builder) collect(ctx context.Context, tx graph.Tx) error {
	ranked := b.c.ranked()
	if len(ranked) > contextCandidates {
		ranked = ranked[:contextCandidates]
	}
	if err := loadEpisodes(tx, ranked); err != nil {
		return err
	}
	pinned, err := b.e.pinned(ctx, tx, b.p)
	if err != nil {
		return err
	}
	pinnedIDs := b.pinnedBlocks(pinned)
	var factItems []*item
	for _, it := range ranked {
		if it.typ == search.TypeFact && !pinnedIDs[it.id] {
			factItems = append(factItems, it)
		}
	}
	chains, err := b.chains(tx, factItems)
	if err != nil {
		return err
	}
	sourced := b.factBlocks(factItems, chains)
	if err := b.addSources(tx, sourced); err != nil {
		return err
	}
	b.episodeBlocks(ranked)
	b.entityBlocks(ranked)
	return nil
}

// pinnedBlocks adds a block per pinned constraint and preference and
// returns their ids.
func (b *builder) pinnedBlocks(pinned []entity.Fact) map[string]bool {
	ids := map[string]bool{}
	for i := range pinned {
		f := &pinned[i]
		ids[f.ID] = true
		kind := "preference"
		if f.Predicate == "constraint" {
			kind = "constraint"
		}
		l := b.factLine(kind, f)
		b.blocks = append(b.blocks, &block{pinned: true, priority: float64(f.Importance), lines: []line{l},
			facts: []ContextFact{{Fact: boundedFact(*f), Status: l.Status, Role: "pinned"}}})
	}
	return ids
}

// factBlocks adds one block per supersession chain of the fact items, in
// their order, diversified by subject (diversify); a value that replaced
// an ended one joins the ended one's block (mergeSuccessors). It returns
// the blocks whose source episode is to be quoted.
func (b *builder) factBlocks(items []*item, chains map[graph.ChainKey][]entity.Fact) []*block {
	inBlock := map[string]bool{}
	headBlock := map[string]*block{}
	var replaced []successorOf
	var sourced, made []*block
	for _, it := range items {
		if inBlock[it.id] {
			continue
		}
		head, chain := b.headOf(it.fact, chains[chainKey(it.fact)])
		for _, f := range chain {
			inBlock[f.ID] = true
		}
		inBlock[head.ID] = true
		bl := b.factBlock(it.explain, it.score, head, chain)
		bl.lead = b.lead[it.id]
		if succ, ok := b.successor(head, chain); ok {
			replaced = append(replaced, successorOf{bl, succ})
		}
		headBlock[head.ID] = bl
		made = append(made, bl)
		if b.explains() && len(sourced) < sourceQuotes && len(head.EpisodeIDs) > 0 {
			sourced = append(sourced, bl)
		}
	}
	diversify(made, &b.c.w.Context)
	b.blocks = append(b.blocks, made...)
	b.mergeSuccessors(replaced, headBlock)
	return sourced
}

// explains reports whether blocks show history and sources: in history
// mode and for questions about time, change or causes.
func (b *builder) explains() bool { return b.history || b.p.a.intent.History() }

// diversify demotes, in order, the fact blocks of a subject beyond the
// first PerSubject: no ten facts about one entity.
func diversify(blocks []*block, w *ContextWeights) {
	perSubj := map[string]int{}
	for _, bl := range blocks {
		subj := bl.facts[0].Fact.SubjectID
		if perSubj[subj]++; perSubj[subj] > w.PerSubject {
			bl.priority *= w.Demote
		}
	}
}

// successorOf is a block whose head ended and the value that replaced it.
type successorOf struct {
	bl   *block
	succ entity.Fact
}

// mergeSuccessors adds each replacing value to the block of the value it
// replaced, taking it out of its own block unless that shows a history of
// its own.
func (b *builder) mergeSuccessors(replaced []successorOf, headBlock map[string]*block) {
	for _, r := range replaced {
		if own := headBlock[r.succ.ID]; own != nil {
			if len(own.lines) > 1 || own == r.bl {
				continue // it has a history of its own to show
			}
			r.bl.priority = max(r.bl.priority, own.priority)
			b.blocks = slices.DeleteFunc(b.blocks, func(x *block) bool { return x == own })
			delete(headBlock, r.succ.ID)
		}
		b.addSuccessor(r.bl, r.succ)
	}
}

// episodeBlocks quotes the episodes the search found.
func (b *builder) episodeBlocks(ranked []*item) {
	for _, it := range ranked {
		if it.typ != search.TypeEpisode || it.episode == nil || b.quoted[it.id] {
			continue
		}
		ep := *it.episode
		q := clip(ep.Words(), quoteRunes)
		t := ep.ReferenceTime
		b.blocks = append(b.blocks, &block{priority: it.score, lead: b.lead[it.id], lines: []line{{
			Kind: "episode", ID: ep.ID, Text: q, Speaker: clip(ep.Speaker, 80), Time: timePtr(t), SourceKind: string(ep.SourceKind),
		}}, episodes: []ContextEpisode{{Episode: boundedEpisode(ep, q), Quote: q}}})
	}
}

// entityBlocks adds the cards of the entities the query names or the
// search found, with their summaries.
func (b *builder) entityBlocks(ranked []*item) {
	for _, it := range ranked {
		if it.typ != search.TypeEntity || it.entity == nil || it.entity.Summary == "" {
			continue
		}
		en := boundedEntity(*it.entity)
		b.blocks = append(b.blocks, &block{priority: it.score * b.c.w.Context.EntityCard, lead: b.lead[it.id], entity: &en, lines: []line{{
			Kind: "entity", ID: en.ID, Text: clip(entityLine(&en), summaryRunes), entity: &en,
		}}})
	}
}

func chainKey(f *entity.Fact) graph.ChainKey {
	return graph.ChainKey{SubjectID: f.SubjectID, Predicate: f.Predicate}
}

// chains reads the supersession chains of the best facts, for history
// lines and so that two versions of one fact never make two blocks. A
// block shows no history outside history mode and questions about time,
// change or causes, and then every candidate is valid at as_of — one
// version per chain —, so there is nothing to read.
func (b *builder) chains(tx graph.Tx, items []*item) (map[graph.ChainKey][]entity.Fact, error) {
	if !b.explains() {
		return nil, nil
	}
	var keys []graph.ChainKey
	seen := map[graph.ChainKey]bool{}
	for _, it := range items {
		k := chainKey(it.fact)
		if !seen[k] && len(keys) < chainFacts {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	return tx.Chains(keys)
}

// headOf picks the version of f's supersession chain to show as the
// fact — the one valid at as_of, else f — and the other versions linked to
// it by supersession, ordered by valid time.
func (b *builder) headOf(f *entity.Fact, chain []entity.Fact) (entity.Fact, []entity.Fact) {
	hist := b.p.withHistory()
	byID := map[string]entity.Fact{}
	for _, g := range chain {
		if g, ok := hist.visible(g); ok {
			byID[g.ID] = g
		}
	}
	head := *f
	if !f.ValidAt(b.p.asOf) {
		// Walk the links to the version valid at as_of, if any.
		for cur, n := *f, 0; n < len(byID); n++ {
			next := cur.SupersededBy
			if cur.ValidFrom.After(b.p.asOf) {
				next = cur.Supersedes
			}
			g, ok := byID[next]
			if !ok {
				break
			}
			if g.ValidAt(b.p.asOf) {
				head = g
				break
			}
			cur = g
		}
	}
	var linked []entity.Fact
	seen := map[string]bool{head.ID: true}
	for _, dir := range []bool{true, false} {
		cur := head
		for {
			next := cur.Supersedes
			if !dir {
				next = cur.SupersededBy
			}
			g, ok := byID[next]
			if !ok || seen[g.ID] {
				break
			}
			seen[g.ID] = true
			linked = append(linked, g)
			cur = g
		}
	}
	sort.Slice(linked, func(i, j int) bool { return linked[i].ValidFrom.Before(linked[j].ValidFrom) })
	return head, linked
}

// factBlock renders a fact, and in history mode (or for a question about
// time, change or causes) the versions before and after it.
func (b *builder) factBlock(x *Explanation, score float64, head entity.Fact, chain []entity.Fact) *block {
	kind, role := "fact", "fact"
	if b.e.ontology().IsDecision(head.Predicate) {
		kind, role = "decision", "decision"
	}
	hl := b.factLine(kind, &head)
	bl := &block{priority: score, lines: []line{hl}, facts: []ContextFact{{Fact: boundedFact(head), Status: hl.Status, Role: role, Score: round(score), Explanation: x}}}
	if !b.explains() {
		return bl
	}
	for i := range chain {
		f := &chain[i]
		k := "was"
		if !f.ValidFrom.IsZero() && f.ValidFrom.After(b.p.asOf) {
			k = "later"
		}
		l := b.factLine(k, f)
		l.nested = true
		// The version just before the head answers "what was it before";
		// older ones go first when space is short.
		l.optional = i < len(chain)-1 && k == "was"
		bl.lines = append(bl.lines, l)
		bl.facts = append(bl.facts, ContextFact{Fact: boundedFact(*f), Status: l.Status, Role: "history"})
	}
	return bl
}

// successor finds, for a question about a change or its cause, the value
// that took the place of a head that ended before as_of and that nothing
// in its own chain follows — the case of a many predicate ("uses MongoDB"
// ended, "uses PostgreSQL" began): a fact of the same subject and
// predicate with another value, starting near the end, visible to the
// request; the one starting closest to the end. The candidates are the
// facts retrieval read: those of the entities the question names, and the
// walk's. Near: at most Limits.SuccessorSlackDays apart.
func (b *builder) successor(head entity.Fact, chain []entity.Fact) (entity.Fact, bool) {
	if !b.explains() || head.ValidTo == nil || head.ValidTo.After(b.p.asOf) {
		return entity.Fact{}, false
	}
	for _, g := range chain {
		if g.ValidFrom.After(head.ValidFrom) {
			return entity.Fact{}, false // the chain shows what came after
		}
	}
	end, hist := *head.ValidTo, b.p.withHistory()
	var best entity.Fact
	var found bool
	var bestGap time.Duration
	slack := days(b.c.w.Limits.SuccessorSlackDays)
	consider := func(f entity.Fact) {
		if f.ID == head.ID || f.SubjectID != head.SubjectID || f.Predicate != head.Predicate ||
			(f.ObjectID == head.ObjectID && f.Value == head.Value) || f.ValidFrom.IsZero() {
			return
		}
		gap := f.ValidFrom.Sub(end).Abs()
		if gap > slack || f.ValidFrom.After(b.p.asOf) {
			return
		}
		f, ok := hist.visible(f)
		if !ok {
			return
		}
		if !found || gap < bestGap || (gap == bestGap && f.ID > best.ID) {
			best, bestGap, found = f, gap, true
		}
	}
	if lf := b.c.linkedFacts; lf != nil {
		for _, f := range lf.facts {
			consider(f)
		}
	}
	for _, it := range b.c.facts {
		consider(*it.fact)
	}
	return best, found
}

// addSuccessor adds the value that replaced a block's head, with its
// dates, status and reason.
func (b *builder) addSuccessor(bl *block, f entity.Fact) {
	l := b.factLine("then", &f)
	l.nested = true
	bl.lines = append(bl.lines, l)
	bl.facts = append(bl.facts, ContextFact{Fact: boundedFact(f), Status: l.Status, Role: "history"})
}

func (b *builder) factLine(kind string, f *entity.Fact) line {
	l := line{Kind: kind, ID: f.ID, Text: flatten(factSentence(f)), Subject: flatten(f.Subject), Predicate: f.Predicate,
		Status: f.StatusAt(b.p.asOf, b.p.now), SourceKind: string(f.SourceKind), Reason: attrText(f.Attributes["reason"]),
		Details: details(f.Attributes)}
	if t := flatten(f.Text); t != flatten(plainSentence(f)) {
		l.note = t // a text of its own, not the one made of the statement
	}
	if f.ObjectID != "" {
		l.Object = flatten(f.Object)
	} else {
		l.Value = flatten(f.Value)
	}
	if len(f.Conflicts) > 0 {
		l.Conflicts = flatten(strings.Join(f.Conflicts, ", "))
		for _, c := range f.Conflicts {
			l.conflicts = append(l.conflicts, flatten(c))
		}
	}
	if !f.ValidFrom.IsZero() {
		l.ValidFrom = timePtr(f.ValidFrom)
	}
	if f.ValidTo != nil {
		l.ValidTo = timePtr(*f.ValidTo)
	}
	return l
}

// addSources quotes the source episode of each block's fact.
func (b *builder) addSources(tx graph.Tx, blocks []*block) error {
	if len(blocks) == 0 {
		return nil
	}
	ids := make([]string, len(blocks))
	for i, bl := range blocks {
		ids[i] = bl.facts[0].Fact.EpisodeIDs[0]
	}
	found, err := graph.EpisodesByID(tx, ids)
	if err != nil {
		return err
	}
	for i, id := range ids {
		ep, ok := found[id]
		if b.quoted[id] || !ok {
			continue
		}
		b.quoted[id] = true
		q := clip(ep.Words(), quoteRunes)
		bl := blocks[i]
		bl.lines = append(bl.lines, line{Kind: "source", ID: ep.ID, Text: q, Speaker: clip(ep.Speaker, 80),
			Time: timePtr(ep.ReferenceTime), SourceKind: string(ep.SourceKind), optional: true, nested: true})
		bl.episodes = append(bl.episodes, ContextEpisode{Episode: boundedEpisode(ep, q), Quote: q})
	}
	return nil
}

// pinned returns the scope's constraints and preferences stated by the
// user and valid at as_of, most important first.
func (e *Engine) pinned(ctx context.Context, tx graph.Tx, p *params) ([]entity.Fact, error) {
	hits, err := e.Index.Search(ctx, search.Query{Scope: p.scope, Types: []string{search.TypeFact},
		Predicates: pinnedPredicates, AsOf: p.asOf, KnownAt: p.knownAt, Now: p.now, Limit: 50})
	if err != nil || len(hits) == 0 {
		return nil, err
	}
	cur := *p
	cur.history = false
	found, err := graph.FactsByID(tx, hitIDs(hits))
	if err != nil {
		return nil, err
	}
	var out []entity.Fact
	for _, h := range hits {
		f, ok := found[h.ID]
		if !ok {
			continue
		}
		if f.SourceKind != entity.UserExplicit && f.SourceKind != entity.UserImplicit {
			continue // only the user's word is a standing rule
		}
		if f, ok := cur.visible(f); ok {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Predicate != out[j].Predicate {
			return out[i].Predicate == "constraint"
		}
		return out[i].Importance > out[j].Importance
	})
	return out, nil
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

// pack chooses the blocks that fit in budget tokens — and whose items fit
// in ItemsPerToken × budget, so the whole answer is bounded — and orders them:
// pinned blocks first (the first always, if it fits; the others within
// pinnedShare of the budget), then the rest with the most important at both ends
// and the least important in the middle, where models attend least. The
// rest is chosen tier by tier (block.tier): the leading blocks, the
// others, the spares, each by priority.
func pack(blocks []*block, budget, header int, format string, pinnedShare float64) ([]*block, int) {
	used := header
	items, itemBudget := 0, ItemsPerToken*budget
	fits := func(bl *block) bool {
		it := bl.itemTokens()
		if items+it > itemBudget {
			return false
		}
		items += it
		return true
	}
	var pinned, rest []*block
	for _, bl := range blocks {
		if bl.pinned {
			// The most important rule always gets in if it fits at all;
			// the others share pinnedShare of the budget.
			limit := header + int(pinnedShare*float64(budget))
			if len(pinned) == 0 {
				limit = budget
			}
			if t := blockTokens(bl.lines, format); used+t <= limit && fits(bl) {
				pinned = append(pinned, bl)
				used += t
			}
			continue
		}
		rest = append(rest, bl)
	}
	// The leading blocks first, then the others, then the spares, each
	// by priority.
	sort.SliceStable(rest, func(i, j int) bool {
		if ti, tj := rest[i].tier(), rest[j].tier(); ti != tj {
			return ti < tj
		}
		return rest[i].priority > rest[j].priority
	})
	var chosen []*block
	for _, bl := range rest {
		if t := blockTokens(bl.lines, format); used+t <= budget && fits(bl) {
			chosen = append(chosen, bl)
			used += t
			continue
		}
		// Without its optional lines (older versions, source quotes).
		var req []line
		for _, l := range bl.lines {
			if !l.optional {
				req = append(req, l)
			}
		}
		if t := blockTokens(req, format); len(req) < len(bl.lines) && used+t <= budget {
			old := *bl
			bl.trim(req)
			if fits(bl) {
				chosen = append(chosen, bl)
				used += t
				continue
			}
			*bl = old
		}
		// A fact larger than the whole budget is shown shortened, not
		// left out, when it is the first to go in.
		if len(chosen) == 0 && shorten(bl, budget-used, format) && fits(bl) {
			chosen = append(chosen, bl)
			used += blockTokens(bl.lines, format)
		}
	}
	// Placed by priority, whichever tier chose them.
	sort.SliceStable(chosen, func(i, j int) bool { return chosen[i].priority > chosen[j].priority })
	ordered := make([]*block, len(chosen))
	lo, hi := 0, len(chosen)-1
	for i, bl := range chosen {
		if i%2 == 0 {
			ordered[lo] = bl
			lo++
		} else {
			ordered[hi] = bl
			hi--
		}
	}
	return append(pinned, ordered...), itemBudget - items
}

// tier is the order in which packing considers a block: leading, other,
// spare.
func (bl *block) tier() int {
	switch {
	case bl.lead:
		return 0
	case bl.spare:
		return 2
	}
	return 1
}

func blockTokens(ls []line, format string) int {
	n := 0
	for _, l := range ls {
		n += EstimateTokens(renderLine(l, format)) + 1
	}
	return n
}

// trim keeps only the given lines, and the facts and episodes they show.
func (bl *block) trim(ls []line) {
	keep := map[string]bool{}
	for _, l := range ls {
		keep[l.ID] = true
	}
	bl.lines = ls
	var fs []ContextFact
	for _, f := range bl.facts {
		if keep[f.Fact.ID] {
			fs = append(fs, f)
		}
	}
	bl.facts = fs
	var es []ContextEpisode
	for _, e := range bl.episodes {
		if keep[e.Episode.ID] {
			es = append(es, e)
		}
	}
	bl.episodes = es
}

// withoutLeast is blocks without its least important block: the lowest
// priority of those not pinned, else the last.
func withoutLeast(blocks []*block) []*block {
	least := len(blocks) - 1
	for i, bl := range blocks {
		if !bl.pinned && (blocks[least].pinned || bl.priority < blocks[least].priority) {
			least = i
		}
	}
	return slices.Delete(slices.Clone(blocks), least, least+1)
}

// shortenMin is the least room, in tokens, a shortened fact is shown in.
const shortenMin = 24

// shorten makes bl, a fact block whose first line alone is larger than
// room, that line alone with its stored text clipped to fit (its value,
// object or subject, whichever is long) and its notes left out, marked
// shortened. It reports whether bl now fits room.
func shorten(bl *block, room int, format string) bool {
	if room < shortenMin || len(bl.lines) == 0 || len(bl.facts) == 0 || bl.lines[0].Kind == "path" {
		return false
	}
	l := bl.lines[0]
	if l.Subject == "" && l.Predicate == "" {
		return false // not a fact line
	}
	l.note, l.Reason, l.Details, l.Conflicts, l.conflicts, l.Shortened = "", "", "", "", nil, true
	l.Text = clip(l.Text, 200)
	fitsRoom := func(n int) bool {
		c := l
		c.Subject, c.Object, c.Value = clip(l.Subject, n), clip(l.Object, n), clip(l.Value, n)
		return blockTokens([]line{c}, format) <= room
	}
	n := 0
	for lo, hi := 0, 4000; lo <= hi; {
		mid := (lo + hi) / 2
		if fitsRoom(mid) {
			n, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	if n < 8 {
		return false
	}
	l.Subject, l.Object, l.Value = clip(l.Subject, n), clip(l.Object, n), clip(l.Value, n)
	bl.trim([]line{l})
	return true
}

// answers reports whether a block not quoting an episode holds a fact
// of an entity the question names.
func (c *candidates) answers(blocks []*block) bool {
	for _, bl := range blocks {
		for _, f := range bl.facts {
			_, subj := c.linked[f.Fact.SubjectID]
			_, obj := c.linked[f.Fact.ObjectID]
			if !bl.spare && (subj || obj && f.Fact.ObjectID != "") {
				return true
			}
		}
	}
	return false
}

// floor keeps the blocks that bear on the question (floor.go). A question
// naming what memory does not know gets no spares: quotes about others
// would stand in for its answer. When memory holds facts of what the
// question names, a quote stays only on its own merit, neither leading
// nor spare ("we talked about lunch … in orders" beside the reasons
// orders-service dropped MongoDB).
func (b *builder) floor() {
	c := b.c
	t := c.topic()
	kept := floor(t, b.blocks, c.w.Floor.Share, len(c.unknown) == 0)
	if c.answers(kept) {
		for _, bl := range b.blocks {
			if bl.quote() {
				bl.lead, bl.spare = false, false
			}
		}
		kept = floor(t, b.blocks, c.w.Floor.Share, false)
	}
	b.blocks = kept
}

// fitRendered renders the chosen blocks, dropping the least important
// while the block passes max: packing counts lines, and a format adds
// around them (json's object and array), so the count a block reports is
// the one it keeps to.
func fitRendered(format string, hd header, chosen []*block, max int) ([]*block, string) {
	text := render(format, hd, chosen)
	for EstimateTokens(text) > max && len(chosen) > 0 {
		chosen = withoutLeast(chosen)
		text = render(format, hd, chosen)
	}
	return chosen, text
}
