package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/temporal"
)

// FactInput is one structured statement, as sent to POST /v1/facts, written
// in an ingest file, or produced by extraction.
type FactInput struct {
	Subject     string     `json:"subject"`
	SubjectType string     `json:"subject_type,omitempty"`
	Predicate   string     `json:"predicate"`
	Object      string     `json:"object,omitempty"`
	ObjectType  string     `json:"object_type,omitempty"`
	Value       string     `json:"value,omitempty"`
	Text        string     `json:"text,omitempty"`
	ValidFrom   *time.Time `json:"valid_from,omitempty"`
	ValidTo     *time.Time `json:"valid_to,omitempty"`
	// StartUnknown says the fact has held since an unknown time (instead of
	// valid_from): it answers as_of at any time before its end.
	StartUnknown bool                 `json:"start_unknown,omitempty"`
	SourceKind   entity.SourceKind    `json:"source_kind,omitempty"`
	EpisodeID    string               `json:"episode_id,omitempty"`
	Confidence   *float64             `json:"confidence,omitempty"`
	Importance   int                  `json:"importance,omitempty"`
	Attributes   map[string]any       `json:"attributes,omitempty"`
	Cardinality  ontology.Cardinality `json:"cardinality,omitempty"`
	// SubjectAliases and ObjectAliases are other names of the subject and
	// object (extraction fills them); they become the entities' aliases.
	SubjectAliases []string `json:"subject_aliases,omitempty"`
	ObjectAliases  []string `json:"object_aliases,omitempty"`
}

// FactResult says what became of one FactInput.
type FactResult struct {
	FactID     string          `json:"fact_id,omitempty"`
	Action     temporal.Action `json:"action"`
	Superseded []string        `json:"superseded,omitempty"`
	Warning    string          `json:"warning,omitempty"`
}

// DefaultSource is the source of a statement that names none. The limits
// on a batch and on each field are the domain's (entity.MaxBatch,
// entity.MaxNameLen…).
const DefaultSource = entity.AgentInferred

// Validate checks the domain rules of a batch and names offending fields by
// JSON path ("facts[2].predicate").
func ValidateFacts(in []FactInput) error {
	fe := entity.FieldErrors{}
	if len(in) == 0 {
		fe.Add("facts", "at least one fact is required")
	}
	if len(in) > entity.MaxBatch {
		fe.Add("facts", fmt.Sprintf("at most %d facts per batch", entity.MaxBatch))
	}
	for i := range in {
		validateFact(fe, fmt.Sprintf("facts[%d].", i), &in[i])
	}
	return fe.Err()
}

func validateFact(fe entity.FieldErrors, p string, f *FactInput) {
	// The path is made only for a field too long: every statement of a
	// batch passes here.
	checkLen := func(field, v string, n int) {
		if len(v) > n && utf8.RuneCountInString(v) > n {
			entity.CheckLen(fe, p+field, v, n)
		}
	}
	if strings.TrimSpace(f.Subject) == "" || entity.Normalize(f.Subject) == "" {
		fe.Add(p+"subject", "required")
	}
	if entity.CanonicalPredicate(f.Predicate) == "" {
		fe.Add(p+"predicate", "required")
	}
	hasObj, hasVal := strings.TrimSpace(f.Object) != "", strings.TrimSpace(f.Value) != ""
	switch {
	case hasObj && hasVal:
		fe.Add(p+"object", "give either object or value, not both")
	case !hasObj && !hasVal:
		fe.Add(p+"object", "one of object or value is required")
	case hasObj && entity.Normalize(f.Object) == "":
		fe.Add(p+"object", "must contain a letter or digit")
	}
	checkLen("subject", f.Subject, entity.MaxNameLen)
	checkLen("object", f.Object, entity.MaxNameLen)
	checkLen("value", f.Value, entity.MaxValueLen)
	checkLen("text", f.Text, entity.MaxTextLen)
	checkLen("predicate", f.Predicate, entity.MaxPredicateLen)
	checkLen("subject_type", f.SubjectType, entity.MaxPredicateLen)
	checkLen("object_type", f.ObjectType, entity.MaxPredicateLen)
	entity.CheckAttributes(fe, p+"attributes", f.Attributes)
	if f.StartUnknown && f.ValidFrom != nil {
		fe.Add(p+"start_unknown", "give either valid_from or start_unknown, not both")
	}
	if msg := entity.StatedIntervalProblem(f.ValidFrom, f.ValidTo); msg != "" {
		fe.Add(p+"valid_to", msg)
	}
	if f.SourceKind != "" && !f.SourceKind.Valid() {
		fe.Add(p+"source_kind", "must be one of user_explicit, user_implicit, agent_inferred, tool, import")
	}
	if f.Cardinality != "" && !f.Cardinality.Valid() {
		fe.Add(p+"cardinality", "must be one or many")
	}
	if f.Confidence != nil && (*f.Confidence < 0 || *f.Confidence > 1) {
		fe.Add(p+"confidence", "must be between 0 and 1")
	}
	if f.Importance < 0 || f.Importance > 10 {
		fe.Add(p+"importance", "must be between 1 and 10")
	}
}

// AddFacts applies a batch of statements in one transaction: entities are
// resolved (created when new), predicates canonicalised, tombstones checked
// and the temporal rules applied per chain. Repeating a batch changes
// nothing (every statement is corroborated). Returns EINVALID with field
// paths for bad input, ENOTFOUND for an unknown episode_id.
func (s *Service) AddFacts(ctx context.Context, scope entity.Scope, in []FactInput) ([]FactResult, error) {
	if err := ValidateFacts(in); err != nil {
		return nil, err
	}
	var results []FactResult
	err := s.update(ctx, scope, func(tx graph.Tx) error {
		var err error
		results, err = s.addFacts(tx, scope, in, s.now(), nil)
		return err
	})
	return results, err
}

// pending is one statement on its way into a chain.
type pending struct {
	idx  int
	st   temporal.Statement
	key  graph.ChainKey
	card ontology.Cardinality
	// unknown: the predicate is neither in the ontology nor hinted in the
	// scope, so card is the default, many.
	unknown bool
	ttl     time.Duration
	input   *FactInput
}

// Refused is the action of a statement graphmem never stores: a permission
// granted to the agent ("you may skip confirmation"), which would quietly
// relax its safeguards in later sessions.
const Refused temporal.Action = "refused"

// addFacts is AddFacts inside a transaction. refTime, when set, is the
// default valid_from (an episode's reference time); otherwise now.
func (s *Service) addFacts(tx graph.Tx, scope entity.Scope, in []FactInput, now time.Time, refTime *time.Time) ([]FactResult, error) {
	results := make([]FactResult, len(in))
	var keep []FactInput
	var at []int
	for i, f := range in {
		if entity.PermissionStatement(f.Predicate, f.Text, f.Value) {
			results[i] = FactResult{Action: Refused, Warning: "a permission granted to the agent is never stored as memory"}
			continue
		}
		keep, at = append(keep, f), append(at, i)
	}
	if len(keep) == 0 {
		return results, nil
	}
	res, err := s.applyFacts(tx, scope, keep, now, refTime)
	if err != nil {
		return nil, err
	}
	for j, r := range res {
		results[at[j]] = r
	}
	return results, nil
}

// applyFacts applies statements that may be stored.
func (s *Service) applyFacts(tx graph.Tx, scope entity.Scope, in []FactInput, now time.Time, refTime *time.Time) ([]FactResult, error) {
	results := make([]FactResult, len(in))
	if err := s.checkEpisodes(tx, in); err != nil {
		return nil, err
	}
	ents, err := s.resolveEntities(tx, scope, in, now)
	if err != nil {
		return nil, err
	}
	cards, unknown, err := s.cardinalities(tx, in, results)
	if err != nil {
		return nil, err
	}
	said := now
	if refTime != nil {
		said = *refTime
	}
	blocked, err := s.tombstoned(tx, scope, in, ents, said)
	if err != nil {
		return nil, err
	}

	ps := make([]pending, 0, len(in))
	keys := make(map[graph.ChainKey]bool, len(in))
	for i := range in {
		if blocked[i] {
			results[i].Action = temporal.BlockedByTombstone
			continue
		}
		p := s.statement(scope, i, &in[i], ents, cards, now, refTime)
		p.unknown = unknown[i]
		ps = append(ps, p)
		keys[p.key] = true
	}
	if len(ps) == 0 {
		return results, nil
	}
	cache := newChainCache()
	chains, err := cache.read(tx, mapKeys(keys))
	if err != nil {
		return nil, err
	}
	byChain, order := groupByChain(ps, len(keys))
	episodeFacts := map[string][]string{}
	// The temporal rules of each chain run on a second goroutine while
	// the writes of the chains before it go to the store: Apply needs no
	// transaction, and the store only its results, in chain order (so ids
	// are made in the same order as one goroutine would make them).
	var sts []temporal.Statement
	apply := func(c int) temporal.Result {
		k := order[c]
		group := byChain[k]
		sts = sts[:0]
		for _, i := range group {
			sts = append(sts, ps[i].st)
		}
		first := &ps[group[0]]
		res := temporal.Apply(chains[k], sts, temporal.Rules{Cardinality: first.card, TTL: first.ttl}, now, s.NewID)
		// A forgotten fact comes back only through a later explicit
		// statement of the user (tombstones stopped every other kind).
		for j, o := range res.Outcomes {
			if o.Action != temporal.Corroborated || ps[group[j]].input.SourceKind != entity.UserExplicit {
				continue
			}
			res.Writes = unforget(res.Writes, chains[k], o.FactID)
		}
		return res
	}
	write := func(c int, res temporal.Result) error {
		group := byChain[order[c]]
		for j, o := range res.Outcomes {
			p := &ps[group[j]]
			results[p.idx].FactID, results[p.idx].Action, results[p.idx].Superseded = o.FactID, o.Action, o.Superseded
			if o.Warning != "" {
				results[p.idx].Warning = joinWarnings(results[p.idx].Warning, o.Warning)
			}
			if ep := p.input.EpisodeID; ep != "" && o.FactID != "" && !slices.Contains(episodeFacts[ep], o.FactID) {
				episodeFacts[ep] = append(episodeFacts[ep], o.FactID)
			}
		}
		if ps[group[0]].unknown {
			warnCoexisting(mergeWrites(chains[order[c]], pointers(res.Writes)), ps, group, results, now)
		}
		// Each chain's writes go to the store at once: the chains are
		// disjoint, and a fact is large enough that gathering the writes
		// of a batch first would cost a copy of each.
		return cache.put(tx, res.Writes)
	}
	if err := pipeline(len(order), apply, write); err != nil {
		return nil, err
	}
	if err := s.reverse(tx, cache, ps, results, now); err != nil {
		return nil, err
	}
	if err := linkEpisodes(tx, episodeFacts); err != nil {
		return nil, err
	}
	return results, nil
}

// groupByChain returns the statements of each of the n chains of ps, by
// index into ps, and the chains in the order of their first statement.
func groupByChain(ps []pending, n int) (map[graph.ChainKey][]int, []graph.ChainKey) {
	byChain := make(map[graph.ChainKey][]int, n)
	order := make([]graph.ChainKey, 0, n)
	for i := range ps {
		k := ps[i].key
		if _, ok := byChain[k]; !ok {
			order = append(order, k)
		}
		byChain[k] = append(byChain[k], i)
	}
	return byChain, order
}

// linkEpisodes adds to each episode the facts its statements came to
// (episodeFacts: fact ids by episode id).
func linkEpisodes(tx graph.Tx, episodeFacts map[string][]string) error {
	for ep, ids := range episodeFacts {
		if err := linkEpisode(tx, ep, ids); err != nil {
			return err
		}
	}
	return nil
}

// chainCache holds the chains a write transaction has read, so the steps
// of one batch (statements, then reversals) read each chain from the store
// once. Writes through it are merged into a chain held only when the chain
// is read again: most are never read again, and merging costs a copy of
// the chain.
type chainCache struct {
	chains map[graph.ChainKey][]entity.Fact
	// unmerged are the writes to chains held since they were read (the
	// callers' own facts: put's callers leave them unchanged).
	unmerged map[graph.ChainKey][]*entity.Fact
}

func newChainCache() *chainCache {
	return &chainCache{chains: map[graph.ChainKey][]entity.Fact{}, unmerged: map[graph.ChainKey][]*entity.Fact{}}
}

// read returns the chains of keys as the store holds them, reading from tx
// those not yet held.
func (c *chainCache) read(tx graph.Tx, keys []graph.ChainKey) (map[graph.ChainKey][]entity.Fact, error) {
	var missing []graph.ChainKey
	for _, k := range keys {
		if _, ok := c.chains[k]; !ok {
			missing = append(missing, k)
		} else if ws := c.unmerged[k]; len(ws) > 0 {
			c.chains[k] = mergeWrites(c.chains[k], ws)
			delete(c.unmerged, k)
		}
	}
	if len(missing) > 0 {
		got, err := tx.Chains(missing)
		if err != nil {
			return nil, err
		}
		for _, k := range missing {
			c.chains[k] = got[k]
		}
	}
	return c.chains, nil
}

// put writes facts, noting those of chains held for their next read; the
// caller leaves writes unchanged afterwards.
func (c *chainCache) put(tx graph.Tx, writes []entity.Fact) error {
	if err := tx.PutFacts(writes); err != nil {
		return err
	}
	for i := range writes {
		k := graph.ChainKey{SubjectID: writes[i].SubjectID, Predicate: writes[i].Predicate}
		if _, ok := c.chains[k]; ok {
			c.unmerged[k] = append(c.unmerged[k], &writes[i])
		}
	}
	return nil
}

// mergeWrites returns chain with writes applied in order (a fact replaced
// by id, a new one added), in id order as the store lists them.
func mergeWrites(chain []entity.Fact, writes []*entity.Fact) []entity.Fact {
	chain = slices.Clone(chain)
	added := false
	for _, w := range writes {
		if i := slices.IndexFunc(chain, func(f entity.Fact) bool { return f.ID == w.ID }); i >= 0 {
			chain[i] = *w
		} else {
			chain, added = append(chain, *w), true
		}
	}
	if added {
		slices.SortFunc(chain, func(a, b entity.Fact) int { return strings.Compare(a.ID, b.ID) })
	}
	return chain
}

func mapKeys[K comparable](m map[K]bool) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// statement turns an input into a temporal statement with every field of
// the fact it may become.
func (s *Service) statement(scope entity.Scope, i int, f *FactInput, ents resolved, cards []ontology.Cardinality, now time.Time, refTime *time.Time) pending {
	subj := ents.of(f.Subject, f.SubjectType)
	pred := s.Ontology.Canonical(f.Predicate)
	fact := entity.Fact{
		Scope: scope, SubjectID: subj.ID, Subject: subj.Name, Predicate: pred,
		Text: strings.TrimSpace(f.Text), SourceKind: f.SourceKind, Importance: f.Importance,
		Attributes: f.Attributes,
	}
	if strings.TrimSpace(f.Object) != "" {
		obj := ents.of(f.Object, f.ObjectType)
		fact.ObjectID, fact.Object = obj.ID, obj.Name
	} else {
		fact.Value = strings.TrimSpace(f.Value)
	}
	if fact.SourceKind == "" {
		fact.SourceKind = DefaultSource
	}
	if f.Confidence != nil {
		fact.Confidence = *f.Confidence
	}
	if f.EpisodeID != "" {
		fact.EpisodeIDs = []string{f.EpisodeID}
	}
	st := temporal.Statement{Said: now}
	if refTime != nil {
		st.Said = refTime.UTC()
	}
	switch {
	case f.ValidFrom != nil:
		fact.ValidFrom, st.Dated = f.ValidFrom.UTC(), true
	case f.StartUnknown:
		st.Dated = true // since an unknown time: a zero ValidFrom
	case f.ValidTo != nil:
		// Only an end time: "no longer true from then" (rule 4).
		st.End = true
	default:
		fact.ValidFrom = st.Said
	}
	if f.ValidTo != nil {
		t := f.ValidTo.UTC()
		fact.ValidTo = &t
	}
	st.Fact = fact
	return pending{idx: i, st: st, key: graph.ChainKey{SubjectID: subj.ID, Predicate: pred},
		card: cards[i], ttl: s.Ontology.TTL(pred, subj.Type), input: f}
}

func (s *Service) checkEpisodes(tx graph.Tx, in []FactInput) error {
	missing := map[string]string{}
	seen := map[string]bool{}
	for i, f := range in {
		if f.EpisodeID == "" || seen[f.EpisodeID] {
			continue
		}
		seen[f.EpisodeID] = true
		if _, err := tx.Episode(f.EpisodeID); entity.ErrorCode(err) == entity.ENOTFOUND {
			missing[fmt.Sprintf("facts[%d].episode_id", i)] = "no such episode"
		} else if err != nil {
			return err
		}
	}
	if len(missing) > 0 {
		return &entity.Error{Code: entity.ENOTFOUND, Message: "unknown episode", Fields: missing}
	}
	return nil
}

// linkEpisode adds factIDs to the facts of episode id, writing it only
// if one is new.
func linkEpisode(tx graph.Tx, id string, factIDs []string) error {
	ep, err := tx.Episode(id)
	if err != nil {
		return err
	}
	n := len(ep.FactIDs)
	for _, f := range factIDs {
		if !slices.Contains(ep.FactIDs, f) {
			ep.FactIDs = append(ep.FactIDs, f)
		}
	}
	if len(ep.FactIDs) == n {
		return nil
	}
	return tx.PutEpisode(ep)
}

// cardinalities decides each statement's cardinality: the ontology wins;
// for predicates it does not define, the first hint given in the scope is
// remembered and used from then on; with neither, many, and unknown[i] says
// so. Conflicting hints become warnings.
func (s *Service) cardinalities(tx graph.Tx, in []FactInput, results []FactResult) (out []ontology.Cardinality, unknown []bool, err error) {
	out, unknown = make([]ontology.Cardinality, len(in)), make([]bool, len(in))
	remembered := map[string]ontology.Cardinality{}
	for i, f := range in {
		pred := s.Ontology.Canonical(f.Predicate)
		if c, ok := s.Ontology.Cardinality(pred); ok {
			out[i] = c
			if f.Cardinality != "" && f.Cardinality != c {
				results[i].Warning = fmt.Sprintf("cardinality hint %q ignored: the ontology defines %s as %q", f.Cardinality, pred, c)
			}
			continue
		}
		c, ok := remembered[pred]
		if !ok {
			v, found, err := tx.Meta("cardinality:" + pred)
			if err != nil {
				return nil, nil, err
			}
			if found {
				c, ok = ontology.Cardinality(v), true
			}
		}
		switch {
		case ok:
			if f.Cardinality != "" && f.Cardinality != c {
				results[i].Warning = fmt.Sprintf("cardinality hint %q ignored: %s was first described as %q in this scope", f.Cardinality, pred, c)
			}
		case f.Cardinality != "":
			c = f.Cardinality
			if err := tx.PutMeta("cardinality:"+pred, string(c)); err != nil {
				return nil, nil, err
			}
		default:
			c, unknown[i] = ontology.Many, true
			results[i].Warning = joinWarnings(results[i].Warning, unknownPredicateWarning(pred))
		}
		if f.Cardinality != "" || ok {
			remembered[pred] = c
		}
		out[i] = c
	}
	return out, unknown, nil
}

// unknownPredicateWarning is the warning on every write of a predicate the
// ontology does not define and no hint described.
func unknownPredicateWarning(pred string) string {
	return fmt.Sprintf("predicate %q is not in the ontology: treated as %q, several values at once (send cardinality \"one\" if a new value replaces the old; GET /v1/ontology lists the known predicates)", pred, ontology.Many)
}

// warnCoexisting sharpens the warning of each statement of group (one
// chain of a predicate the ontology does not define) whose fact is current
// next to other current values after the write: on_call handed from Alice
// to Bob leaves both "current" under the default cardinality, many. The
// warning names the values still current beside it and the one-line fix.
func warnCoexisting(chain []entity.Fact, ps []pending, group []int, results []FactResult, now time.Time) {
	var current []*entity.Fact
	for i := range chain {
		if f := &chain[i]; !f.Waiting && f.Status(now) == entity.StatusCurrent {
			current = append(current, f)
		}
	}
	if len(current) < 2 {
		return
	}
	for _, g := range group {
		r := &results[ps[g].idx]
		var others []string
		mine := false
		for _, f := range current {
			if f.ID == r.FactID {
				mine = true
				continue
			}
			since := "since an unknown time"
			if !f.ValidFrom.IsZero() {
				since = "since " + f.ValidFrom.Format(time.DateOnly)
			}
			others = append(others, fmt.Sprintf("%q (%s)", f.ObjectText(), since))
		}
		if !mine {
			continue
		}
		if len(others) > 3 {
			others = append(others[:3], fmt.Sprintf("%d more", len(others)-3))
		}
		pred, subject := current[0].Predicate, current[0].Subject
		w := fmt.Sprintf("predicate %q is not in the ontology, so its values coexist: %q still has %s current beside this one; "+
			"if a new value replaces the old, send cardinality \"one\" with the fact, or define %s in the ontology (GRAPHMEM_ONTOLOGY) with cardinality: one",
			pred, subject, strings.Join(others, ", "), pred)
		if generic := unknownPredicateWarning(pred); strings.Contains(r.Warning, generic) {
			r.Warning = strings.Replace(r.Warning, generic, w, 1)
		} else {
			r.Warning = joinWarnings(r.Warning, w)
		}
	}
}

func pointers(fs []entity.Fact) []*entity.Fact {
	out := make([]*entity.Fact, len(fs))
	for i := range fs {
		out[i] = &fs[i]
	}
	return out
}

// tombstoned reports which statements match a tombstone and may not come
// back: all but an explicit statement of the user made after the forget
// (said is when the statement was made: the episode's reference time, or
// now). Re-extracting an old episode therefore cannot revive a fact.
func (s *Service) tombstoned(tx graph.Tx, scope entity.Scope, in []FactInput, ents resolved, said time.Time) ([]bool, error) {
	fps := make([]string, len(in))
	for i := range in {
		fps[i] = s.fingerprint(scope, &in[i], ents)
	}
	found, err := tx.Tombstones(fps)
	if err != nil || len(found) == 0 {
		return make([]bool, len(in)), err
	}
	blocked := make([]bool, len(in))
	for i := range in {
		if t, ok := found[fps[i]]; ok && (in[i].SourceKind != entity.UserExplicit || !said.After(t.At)) {
			blocked[i] = true
		}
	}
	return blocked, nil
}

func (s *Service) fingerprint(scope entity.Scope, f *FactInput, ents resolved) string {
	subj := ents.of(f.Subject, f.SubjectType)
	obj := f.Value
	if strings.TrimSpace(f.Object) != "" {
		obj = ents.of(f.Object, f.ObjectType).Name
	}
	return entity.Fingerprint(scope, subj.Name, s.Ontology.Canonical(f.Predicate), obj)
}

// FactFingerprint is the tombstone fingerprint of a stored fact.
func FactFingerprint(f *entity.Fact) string {
	return entity.Fingerprint(f.Scope, f.Subject, f.Predicate, f.ObjectText())
}

// unforget clears ForgottenAt of fact id, taking it from the chain into the
// writes if Apply did not change it.
func unforget(writes, chain []entity.Fact, id string) []entity.Fact {
	if i := slices.IndexFunc(writes, func(f entity.Fact) bool { return f.ID == id }); i >= 0 {
		writes[i].ForgottenAt = nil
		return writes
	}
	if i := slices.IndexFunc(chain, func(f entity.Fact) bool { return f.ID == id }); i >= 0 && chain[i].ForgottenAt != nil {
		f := chain[i].Clone()
		f.ForgottenAt = nil
		writes = append(writes, f)
	}
	return writes
}

func joinWarnings(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// pipelineMin is the number of steps from which pipeline uses a second
// goroutine; fewer are not worth starting it.
const pipelineMin = 16

// pipeline calls use(i, produce(i)) for i in 0..n-1 in order, with make
// running ahead on a goroutine of its own (at most pipelineAhead steps)
// when n is large enough. make calls run in order, one at a time; use
// stops at its first error, and make soon after. A panic in make is raised
// again in the caller.
func pipeline[T any](n int, produce func(int) T, use func(int, T) error) error {
	if n < pipelineMin {
		for i := range n {
			if err := use(i, produce(i)); err != nil {
				return err
			}
		}
		return nil
	}
	type step struct {
		v     T
		panic any
	}
	out := make(chan step, pipelineAhead)
	stop := make(chan struct{})
	go func() {
		defer close(out)
		defer func() {
			if p := recover(); p != nil {
				out <- step{panic: p}
			}
		}()
		for i := range n {
			select {
			case out <- step{v: produce(i)}:
			case <-stop:
				return
			}
		}
	}()
	i := 0
	for st := range out {
		if st.panic != nil {
			panic(st.panic)
		}
		if err := use(i, st.v); err != nil {
			close(stop)
			for range out { // let produce finish before its state is reused
			}
			return err
		}
		i++
	}
	return nil
}

// pipelineAhead bounds the results made and not yet used.
const pipelineAhead = 64
