package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/temporal"
)

// ForgetMode says how Forget removes what it selects.
type ForgetMode string

// Forget modes.
const (
	ModeForget ForgetMode = "forget"
	ModePurge             = "purge"
)

// ForgetRequest selects what to forget or purge. FactIDs, Entity (a name or
// an id), EpisodeID and Query may be combined.
type ForgetRequest struct {
	FactIDs   []string
	Entity    string
	EpisodeID string
	// Query selects the facts Service.FindFacts finds for it (at most Limit,
	// entity.DefaultForgetLimit when 0).
	Query  string
	Limit  int
	Mode   ForgetMode
	Reason string
	DryRun bool
	Actor  string // who asked: the key's name, for the audit record
}

// FactFinder selects the facts a forget query names, best first, and says
// how the names it mentions resolved (recall.Engine.FindFacts).
type FactFinder func(ctx context.Context, scope entity.Scope, query string, limit int) (entity.Selection, error)

// ForgetResult counts what was (or, for a dry run, would be) removed.
type ForgetResult struct {
	Mode       ForgetMode `json:"mode"`
	DryRun     bool       `json:"dry_run,omitempty"`
	Facts      int        `json:"facts"`
	Episodes   int        `json:"episodes"`
	Entities   int        `json:"entities"`
	Tombstones int        `json:"tombstones"`
	FactIDs    []string   `json:"fact_ids,omitempty"`
	// Resolved says, for a request by query, which entity each name it
	// mentions resolved to: the facts selected touch one of them.
	Resolved []entity.NameMatch `json:"resolved,omitempty"`
	// Items name what was (or would be) removed: each fact by its
	// sentence, each entity by its name, each episode by its id. They are
	// never kept in the audit record.
	Items []ForgetItem `json:"items,omitempty"`
}

// ForgetItem is one record a forget or purge removes.
type ForgetItem struct {
	Type string `json:"type"` // fact, entity or episode
	ID   string `json:"id"`
	Name string `json:"name,omitempty"` // the fact's sentence or the entity's name
}

// AuditRecord notes a forget or purge: ids, time, actor and counts — never
// content.
type AuditRecord struct {
	ID        string       `json:"id"`
	At        time.Time    `json:"at"`
	Actor     string       `json:"actor,omitempty"`
	Action    string       `json:"action"`
	Reason    string       `json:"reason,omitempty"`
	FactIDs   []string     `json:"fact_ids,omitempty"`
	EpisodeID string       `json:"episode_id,omitempty"`
	EntityID  string       `json:"entity_id,omitempty"`
	Result    ForgetResult `json:"result"`
}

// auditKey holds the scope's audit log (most recent last, capped).
const (
	auditKey = "audit"
	maxAudit = 1000
)

// Forget removes facts from every recall path and writes tombstones so they
// cannot silently come back (mode forget), or physically deletes them with
// their source episodes (mode purge, for privacy requests): every fact
// derived only from a purged episode goes, facts with other sources lose
// that provenance, entities left with no facts are deleted and summaries of
// touched entities are cleared. Either way an audit record keeps ids, time,
// actor and counts. Returns ENOTFOUND for unknown ids or names.
func (s *Service) Forget(ctx context.Context, scope entity.Scope, req ForgetRequest) (ForgetResult, error) {
	if req.Mode == "" {
		req.Mode = ModeForget
	}
	if err := req.validate(); err != nil {
		return ForgetResult{}, err
	}
	var resolved []entity.NameMatch
	if q := strings.TrimSpace(req.Query); q != "" {
		var found []string
		var err error
		if found, resolved, err = s.queryFacts(ctx, scope, req, q); err != nil {
			return ForgetResult{}, err
		}
		if len(found) == 0 && len(req.FactIDs) == 0 && req.Entity == "" && req.EpisodeID == "" {
			return ForgetResult{Mode: req.Mode, DryRun: req.DryRun, Resolved: resolved}, nil
		}
		req.FactIDs = append(slices.Clip(req.FactIDs), found...)
	}
	var res ForgetResult
	write := func(tx graph.Tx) error {
		res = ForgetResult{Mode: req.Mode, DryRun: req.DryRun, Resolved: resolved}
		return s.forgetIn(tx, req, &res)
	}
	var err error
	if req.DryRun {
		err = s.Store.View(ctx, scope, write)
	} else {
		err = s.update(ctx, scope, write)
	}
	if err == nil && req.Mode == ModePurge && !req.DryRun && s.Purged != nil {
		err = s.Purged(ctx)
	}
	return res, err
}

// validate checks the shape of a forget request whose mode is set.
func (req ForgetRequest) validate() error {
	fe := entity.FieldErrors{}
	if req.Mode != ModeForget && req.Mode != ModePurge {
		fe.Add("mode", "must be forget or purge")
	}
	if len(req.FactIDs) == 0 && req.Entity == "" && req.EpisodeID == "" && strings.TrimSpace(req.Query) == "" {
		fe.Add("fact_ids", "give fact_ids, entity, query or episode_id")
	}
	if len(req.FactIDs) > entity.MaxBatch {
		fe.Add("fact_ids", "too many ids")
	}
	if req.Limit < 0 || req.Limit > entity.MaxBatch {
		fe.Add("limit", fmt.Sprintf("must be between 1 and %d", entity.MaxBatch))
	}
	return fe.Err()
}

// queryFacts selects the facts query q finds (up to req.Limit), refusing
// a selection made on a guess; it returns the ids that fit in the batch
// beside req.FactIDs and the names the query resolved.
func (s *Service) queryFacts(ctx context.Context, scope entity.Scope, req ForgetRequest, q string) ([]string, []entity.NameMatch, error) {
	if s.FindFacts == nil {
		return nil, nil, entity.Errorf(entity.EUNPROCESSABLE, "forgetting by query needs the search index, which is not open here")
	}
	limit := req.Limit
	if limit == 0 {
		limit = entity.DefaultForgetLimit
	}
	sel, err := s.FindFacts(ctx, scope, q, limit)
	if err != nil {
		return nil, nil, err
	}
	if err := refuseGuess(sel); err != nil {
		return nil, nil, err
	}
	// One request selects at most a batch: the query's best matches
	// fill what the given ids leave.
	found := sel.FactIDs[:min(len(sel.FactIDs), max(entity.MaxBatch-len(req.FactIDs), 0))]
	return found, sel.Resolved, nil
}

// forgetIn forgets or purges in tx what req selects, filling res, and,
// unless it is a dry run, appends the audit record.
func (s *Service) forgetIn(tx graph.Tx, req ForgetRequest, res *ForgetResult) error {
	now := s.now()
	facts, ent, err := s.selectFacts(tx, req)
	if err != nil {
		return err
	}
	if req.Mode == ModePurge {
		err = s.purge(tx, facts, req, now, res)
	} else {
		err = s.forget(tx, facts, ent, req, now, res)
	}
	if err != nil || req.DryRun {
		return err
	}
	kept := *res
	kept.Items = nil
	rec := AuditRecord{ID: s.NewID(), At: now, Actor: req.Actor, Action: string(req.Mode), Reason: req.Reason,
		FactIDs: res.FactIDs, EpisodeID: req.EpisodeID, Result: kept}
	if ent != nil {
		rec.EntityID = ent.ID
	}
	return appendAudit(tx, rec)
}

// refuseGuess refuses a selection made on a guess: a name the query
// mentions that memory does not know, that names several entities, or
// that only a spelling near it resolves. Nothing changes; the error names
// the query and offers the candidates.
func refuseGuess(sel entity.Selection) error {
	var why []string
	for _, n := range sel.Unresolved {
		w := fmt.Sprintf("memory holds nothing named %q", n.Name)
		if len(n.Candidates) > 0 {
			w += fmt.Sprintf(" (did you mean %s?)", quoteAll(n.Candidates, " or "))
		}
		why = append(why, w)
	}
	for _, n := range sel.Ambiguous {
		why = append(why, fmt.Sprintf("%q may name %s: name one", n.Name, quoteAll(n.Candidates, " or ")))
	}
	if len(why) == 0 {
		return nil
	}
	msg := strings.Join(why, "; ") + "; nothing was changed"
	code := entity.ECONFLICT // names several entities
	if len(sel.Unresolved) > 0 {
		code = entity.ENOTFOUND // as an unknown entity by name is
	}
	return &entity.Error{Code: code, Message: msg, Fields: map[string]string{"query": msg}}
}

func quoteAll(ss []string, sep string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, sep)
}

// selectFacts gathers the facts a request names.
func (s *Service) selectFacts(tx graph.Tx, req ForgetRequest) ([]entity.Fact, *entity.Entity, error) {
	var out []entity.Fact
	seen := map[string]bool{}
	add := func(f entity.Fact) {
		if !seen[f.ID] {
			seen[f.ID] = true
			out = append(out, f)
		}
	}
	for _, id := range req.FactIDs {
		f, err := tx.Fact(id)
		if err != nil {
			return nil, nil, err
		}
		add(f)
	}
	var ent *entity.Entity
	if req.Entity != "" {
		e, err := entityByRef(tx, req.Entity)
		if err != nil {
			return nil, nil, err
		}
		ent = &e
		fs, err := tx.FactsOf(e.ID, maxEntityFacts)
		if err != nil {
			return nil, nil, err
		}
		for _, f := range fs {
			add(f)
		}
	}
	// A purge of an episode removes only what derives from it alone: the
	// purge itself decides which of its facts go.
	if req.EpisodeID != "" {
		ep, err := tx.Episode(req.EpisodeID)
		if err != nil {
			return nil, nil, err
		}
		if req.Mode == ModePurge {
			return out, ent, nil
		}
		for _, id := range ep.FactIDs {
			f, err := tx.Fact(id)
			if entity.ErrorCode(err) == entity.ENOTFOUND {
				continue
			} else if err != nil {
				return nil, nil, err
			}
			add(f)
		}
	}
	return out, ent, nil
}

func (s *Service) forget(tx graph.Tx, facts []entity.Fact, ent *entity.Entity, req ForgetRequest, now time.Time, res *ForgetResult) error {
	var writes []entity.Fact
	tombs := map[string]*entity.Tombstone{}
	for _, f := range facts {
		if f.ForgottenAt != nil {
			continue
		}
		res.Facts++
		res.FactIDs = append(res.FactIDs, f.ID)
		res.Items = append(res.Items, factItem(&f))
		fp := FactFingerprint(&f)
		t, ok := tombs[fp]
		if !ok {
			t = &entity.Tombstone{Scope: f.Scope, Fingerprint: fp, At: now, Reason: req.Reason}
			tombs[fp] = t
		}
		t.FactIDs = append(t.FactIDs, f.ID)
		f.ForgottenAt = &now
		writes = append(writes, f)
	}
	res.Tombstones = len(tombs)
	if ent != nil && ent.ForgottenAt == nil {
		res.Entities = 1
		res.Items = append(res.Items, ForgetItem{Type: "entity", ID: ent.ID, Name: ent.Name})
	}
	if req.DryRun {
		return nil
	}
	if err := tx.PutFacts(writes); err != nil {
		return err
	}
	if err := forgetEpisodes(tx, writes, now); err != nil {
		return err
	}
	for _, t := range tombs {
		if err := tx.PutTombstone(*t); err != nil {
			return err
		}
	}
	if ent != nil && ent.ForgottenAt == nil {
		ent.ForgottenAt, ent.UpdatedAt, ent.Summary = &now, now, ""
		return tx.PutEntities([]entity.Entity{*ent})
	}
	return nil
}

// purge deletes the facts, their source episodes, the facts derived only
// from those episodes, and entities left with no facts.
func (s *Service) purge(tx graph.Tx, facts []entity.Fact, req ForgetRequest, now time.Time, res *ForgetResult) error {
	p := newPurgeSet(facts, req.EpisodeID)
	if err := p.followEpisodes(tx); err != nil {
		return err
	}
	p.report(res)
	touched := p.touched()
	if err := p.unlink(tx, now); err != nil {
		return err
	}
	if req.DryRun {
		return s.countOrphans(tx, touched, p.facts, res)
	}
	for id := range p.facts {
		if err := tx.DeleteFact(id); err != nil {
			return err
		}
	}
	for ep := range p.eps {
		if err := tx.DeleteEpisode(ep); err != nil {
			return err
		}
	}
	// Recompute the chains of kept facts that changed, so links and
	// intervals stay consistent without the purged facts.
	if err := s.rechain(tx, p.kept, now); err != nil {
		return err
	}
	return s.dropOrphans(tx, touched, now, res)
}

// purgeSet is what a purge deletes and the kept facts it changes.
type purgeSet struct {
	facts map[string]entity.Fact // to delete, by id
	eps   map[string]bool        // episodes to delete
	kept  map[string]entity.Fact // kept facts changed, by id
}

// newPurgeSet dooms the facts, their source episodes and the episode
// episodeID (if given).
func newPurgeSet(facts []entity.Fact, episodeID string) *purgeSet {
	p := &purgeSet{facts: map[string]entity.Fact{}, eps: map[string]bool{}, kept: map[string]entity.Fact{}}
	if episodeID != "" {
		p.eps[episodeID] = true
	}
	for _, f := range facts {
		p.facts[f.ID] = f
		for _, ep := range f.EpisodeIDs {
			p.eps[ep] = true
		}
	}
	return p
}

// followEpisodes handles the facts derived from purged episodes: gone if
// they have no other source, otherwise they lose that provenance. An
// episode the scope does not hold is dropped from the set.
func (p *purgeSet) followEpisodes(tx graph.Tx) error {
	for ep := range p.eps {
		e, err := tx.Episode(ep)
		if entity.ErrorCode(err) == entity.ENOTFOUND {
			delete(p.eps, ep)
			continue
		} else if err != nil {
			return err
		}
		for _, id := range e.FactIDs {
			if _, ok := p.facts[id]; ok {
				continue
			}
			f, ok, err := p.keptFact(tx, id)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			f.Claims = slices.DeleteFunc(f.Claims, func(c entity.Claim) bool { return p.eps[c.EpisodeID] })
			f.EpisodeIDs = slices.DeleteFunc(f.EpisodeIDs, func(id string) bool { return p.eps[id] })
			if len(f.Claims) == 0 {
				p.facts[f.ID] = f
				delete(p.kept, f.ID)
			} else {
				p.kept[f.ID] = f
			}
		}
	}
	return nil
}

// keptFact returns the fact id as the purge has changed it so far, else
// as stored; false if the scope does not hold it.
func (p *purgeSet) keptFact(tx graph.Tx, id string) (entity.Fact, bool, error) {
	if f, ok := p.kept[id]; ok {
		return f, true, nil
	}
	f, err := tx.Fact(id)
	if entity.ErrorCode(err) == entity.ENOTFOUND {
		return f, false, nil
	} else if err != nil {
		return f, false, err
	}
	return f, true, nil
}

// report counts and lists in res the facts and episodes to delete, in
// order of id.
func (p *purgeSet) report(res *ForgetResult) {
	res.Facts, res.Episodes = len(p.facts), len(p.eps)
	for id := range p.facts {
		res.FactIDs = append(res.FactIDs, id)
	}
	slices.Sort(res.FactIDs)
	for _, id := range res.FactIDs {
		f := p.facts[id]
		res.Items = append(res.Items, factItem(&f))
	}
	for _, id := range slices.Sorted(maps.Keys(p.eps)) {
		res.Items = append(res.Items, ForgetItem{Type: "episode", ID: id})
	}
}

// touched returns the subjects and objects of the facts to delete.
func (p *purgeSet) touched() map[string]bool {
	touched := map[string]bool{}
	for _, f := range p.facts {
		touched[f.SubjectID] = true
		if f.ObjectID != "" {
			touched[f.ObjectID] = true
		}
	}
	return touched
}

// unlink readies the neighbours in a chain to lose their links to purged
// facts; a value a purged fact had superseded stays ended rather than
// silently becoming current again.
func (p *purgeSet) unlink(tx graph.Tx, now time.Time) error {
	for _, f := range p.facts {
		for _, id := range []string{f.Supersedes, f.SupersededBy} {
			if id == "" {
				continue
			}
			if _, gone := p.facts[id]; gone {
				continue
			}
			g, ok, err := p.keptFact(tx, id)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if g.SupersededBy == f.ID {
				temporal.KeepEnded(&g, f.ValidFrom, now)
			}
			p.kept[id] = g
		}
	}
	return nil
}

// rechain writes the changed facts and recomputes their chains.
func (s *Service) rechain(tx graph.Tx, changed map[string]entity.Fact, now time.Time) error {
	if len(changed) == 0 {
		return nil
	}
	writes := make([]entity.Fact, 0, len(changed))
	keys := map[graph.ChainKey]bool{}
	for _, f := range changed {
		if f.Supersedes != "" {
			if _, err := tx.Fact(f.Supersedes); entity.ErrorCode(err) == entity.ENOTFOUND {
				f.Supersedes = ""
			}
		}
		if f.SupersededBy != "" {
			if _, err := tx.Fact(f.SupersededBy); entity.ErrorCode(err) == entity.ENOTFOUND {
				f.SupersededBy = ""
			}
		}
		writes = append(writes, f)
		keys[graph.ChainKey{SubjectID: f.SubjectID, Predicate: f.Predicate}] = true
	}
	if err := tx.PutFacts(writes); err != nil {
		return err
	}
	chains, err := tx.Chains(mapKeys(keys))
	if err != nil {
		return err
	}
	for k, chain := range chains {
		card, _, err := s.cardinality(tx, k.Predicate)
		if err != nil {
			return err
		}
		if err := tx.PutFacts(temporal.Recompute(chain, temporal.Rules{Cardinality: card}, now, s.NewID)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) countOrphans(tx graph.Tx, touched map[string]bool, doomed map[string]entity.Fact, res *ForgetResult) error {
	for id := range touched {
		fs, err := tx.FactsOf(id, maxEntityFacts)
		if err != nil {
			return err
		}
		left := 0
		for _, f := range fs {
			if _, gone := doomed[f.ID]; !gone {
				left++
			}
		}
		if left == 0 {
			res.Entities++
			if e, err := tx.Entity(id); err == nil {
				res.Items = append(res.Items, ForgetItem{Type: "entity", ID: id, Name: e.Name})
			}
		}
	}
	return nil
}

// dropOrphans deletes touched entities that have no facts left and clears
// the summaries of the others, which may have been built from purged text.
func (s *Service) dropOrphans(tx graph.Tx, touched map[string]bool, now time.Time, res *ForgetResult) error {
	var keep []entity.Entity
	for id := range touched {
		e, err := tx.Entity(id)
		if entity.ErrorCode(err) == entity.ENOTFOUND {
			continue
		} else if err != nil {
			return err
		}
		fs, err := tx.FactsOf(id, 1)
		if err != nil {
			return err
		}
		if len(fs) == 0 {
			if err := tx.DeleteEntity(id); err != nil {
				return err
			}
			res.Entities++
			res.Items = append(res.Items, ForgetItem{Type: "entity", ID: id, Name: e.Name})
			continue
		}
		if e.Summary != "" {
			e.Summary, e.UpdatedAt = "", now
			keep = append(keep, e)
		}
	}
	return tx.PutEntities(keep)
}

// factItem names a fact by its sentence.
func factItem(f *entity.Fact) ForgetItem {
	name := f.Text
	if name == "" {
		name = f.Subject + " " + f.Predicate + " " + f.ObjectText()
	}
	return ForgetItem{Type: "fact", ID: f.ID, Name: name}
}

func appendAudit(tx graph.Tx, rec AuditRecord) error {
	var log []AuditRecord
	v, ok, err := tx.Meta(auditKey)
	if err != nil {
		return err
	}
	if ok {
		if err := json.Unmarshal([]byte(v), &log); err != nil {
			return entity.Wrap(entity.EINTERNAL, "audit", err)
		}
	}
	log = append(log, rec)
	if len(log) > maxAudit {
		log = log[len(log)-maxAudit:]
	}
	b, err := json.Marshal(log)
	if err != nil {
		return err
	}
	return tx.PutMeta(auditKey, string(b))
}

// Audit returns the scope's forget and purge records, most recent first.
func (s *Service) Audit(ctx context.Context, scope entity.Scope, limit int) ([]AuditRecord, error) {
	var log []AuditRecord
	err := s.Store.View(ctx, scope, func(tx graph.Tx) error {
		v, ok, err := tx.Meta(auditKey)
		if err != nil || !ok {
			return err
		}
		return json.Unmarshal([]byte(v), &log)
	})
	slices.Reverse(log)
	if limit = clampLimit(limit); len(log) > limit {
		log = log[:limit]
	}
	return log, err
}

// forgetEpisodes takes the source episodes of forgotten facts out of
// recall: their text would tell the forgotten fact again.
func forgetEpisodes(tx graph.Tx, facts []entity.Fact, now time.Time) error {
	seen := map[string]bool{}
	for _, f := range facts {
		for _, id := range f.EpisodeIDs {
			if seen[id] {
				continue
			}
			seen[id] = true
			ep, err := tx.Episode(id)
			if entity.ErrorCode(err) == entity.ENOTFOUND {
				continue
			} else if err != nil {
				return err
			}
			if ep.ForgottenAt == nil {
				ep.ForgottenAt = &now
				if err := tx.PutEpisode(ep); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
