package mcp

import (
	"context"
	"strings"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/recall"
	"github.com/graphmem/graphmem/search"
)

// ForgetQueryLimit is how many of the best-matching facts a forget by
// query selects: enough for "forget my address", small enough that a
// vague query cannot wipe a scope.
const ForgetQueryLimit = 10

// Local is a Backend on a memory service and a recall engine in this
// process, bound to one scope chosen by configuration. The service's
// Changed must notify the engine's index (Index.Notify), as serve and
// graphmem mcp wire them: a recall right after a write then finds it.
type Local struct {
	Service *memory.Service
	Engine  *recall.Engine
	Scope   entity.Scope
	// Actor is recorded in the audit log of forget and purge.
	Actor string
}

var _ Backend = (*Local)(nil)

// NewLocal returns a Local backend for scope.
func NewLocal(svc *memory.Service, eng *recall.Engine, scope entity.Scope) *Local {
	return &Local{Service: svc, Engine: eng, Scope: scope, Actor: "mcp"}
}

func (l *Local) now() time.Time {
	if l.Service.Now != nil {
		return l.Service.Now().UTC()
	}
	return time.Now().UTC()
}

func (l *Local) engine() (*recall.Engine, error) {
	if l.Engine == nil {
		return nil, entity.Errorf(entity.EUNAVAILABLE, "recall is not available: no search index is configured")
	}
	return l.Engine, nil
}

// Remember implements Backend.
func (l *Local) Remember(ctx context.Context, in memory.EpisodeInput) (RememberResult, error) {
	ep, created, err := l.Service.AddEpisode(ctx, l.Scope, in)
	if err != nil {
		return RememberResult{}, err
	}
	return RememberResult{EpisodeID: ep.ID, Status: ep.Status, Created: created, Error: ep.Error, FactIDs: ep.FactIDs}, nil
}

// AddFacts implements Backend.
func (l *Local) AddFacts(ctx context.Context, facts []memory.FactInput) ([]memory.FactResult, error) {
	res, err := l.Service.AddFacts(ctx, l.Scope, facts)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Recall implements Backend.
func (l *Local) Recall(ctx context.Context, req recall.ContextRequest) (RecallResult, error) {
	eng, err := l.engine()
	if err != nil {
		return RecallResult{}, err
	}
	res, err := eng.Context(ctx, l.Scope, req)
	if err != nil {
		return RecallResult{}, err
	}
	out := RecallResult{Context: res.Context, Tokens: res.Tokens, Mode: res.Mode, FactIDs: []string{}}
	for _, f := range res.Facts {
		out.FactIDs = append(out.FactIDs, f.Fact.ID)
	}
	return out, nil
}

// Search implements Backend.
func (l *Local) Search(ctx context.Context, req recall.SearchRequest) (SearchResult, error) {
	eng, err := l.engine()
	if err != nil {
		return SearchResult{}, err
	}
	res, err := eng.Search(ctx, l.Scope, req)
	if err != nil {
		return SearchResult{}, err
	}
	now := l.now()
	out := SearchResult{Hits: make([]Hit, 0, len(res.Hits))}
	for _, h := range res.Hits {
		hit := Hit{Type: h.Type, ID: h.ID, Text: h.Text, Score: h.Score}
		if h.Fact != nil {
			hit.Status = h.Fact.StatusAt(req.AsOf, now)
		}
		out.Hits = append(out.Hits, hit)
	}
	return out, nil
}

// Timeline implements Backend. The entity is the best match for the name
// (exact, then alias, then fuzzy), or the entity with that id.
func (l *Local) Timeline(ctx context.Context, req TimelineRequest) (TimelineResult, error) {
	ent, err := l.findEntity(ctx, req.Entity)
	if err != nil {
		return TimelineResult{}, err
	}
	fs, err := l.Service.Timeline(ctx, l.Scope, ent.ID, req.Predicate, req.KnownAt)
	if err != nil {
		return TimelineResult{}, err
	}
	now := l.now()
	out := TimelineResult{Entity: EntityRef{ID: ent.ID, Name: ent.Name, Type: ent.Type}, Facts: make([]Fact, len(fs))}
	for i := range fs {
		out.Facts[i] = factView(&fs[i], time.Time{}, now)
	}
	return out, nil
}

func (l *Local) findEntity(ctx context.Context, name string) (entity.Entity, error) {
	ms, err := l.Service.FindEntities(ctx, l.Scope, name, 1)
	if err != nil && entity.ErrorCode(err) != entity.EINVALID {
		return entity.Entity{}, err
	}
	if len(ms) > 0 {
		return ms[0].Entity, nil
	}
	// Not a name: perhaps an id taken from an earlier answer.
	if d, err := l.Service.Entity(ctx, l.Scope, strings.TrimSpace(name)); err == nil {
		return d.Entity, nil
	}
	return entity.Entity{}, notFoundEntity(name)
}

func notFoundEntity(name string) error {
	return &entity.Error{Code: entity.ENOTFOUND, Message: "no entity matches " + quote(name),
		Fields: map[string]string{"entity": "no entity with this name, alias or id; try search to find the right name"}}
}

// Forget implements Backend. A query selects the best-matching current
// facts (at most ForgetQueryLimit) through the same search recall uses.
func (l *Local) Forget(ctx context.Context, req ForgetRequest) (memory.ForgetResult, error) {
	ids := req.FactIDs
	if q := strings.TrimSpace(req.Query); q != "" {
		eng, err := l.engine()
		if err != nil {
			return memory.ForgetResult{}, err
		}
		res, err := eng.Search(ctx, l.Scope, recall.SearchRequest{Query: q, Limit: ForgetQueryLimit, Types: []string{search.TypeFact}})
		if err != nil {
			return memory.ForgetResult{}, err
		}
		for _, h := range res.Hits {
			if h.Type == search.TypeFact {
				ids = append(ids, h.ID)
			}
		}
		if len(ids) == 0 && req.Entity == "" && req.EpisodeID == "" {
			mode := req.Mode
			if mode == "" {
				mode = memory.ModeForget
			}
			return memory.ForgetResult{Mode: mode, DryRun: req.DryRun}, nil
		}
	}
	res, err := l.Service.Forget(ctx, l.Scope, memory.ForgetRequest{
		FactIDs: ids, Entity: req.Entity, EpisodeID: req.EpisodeID, Mode: req.Mode,
		Reason: req.Reason, DryRun: req.DryRun, Actor: l.Actor,
	})
	return res, err
}

// factView is f as the tools show it, its status derived for valid time
// asOf (zero: now) at now.
func factView(f *entity.Fact, asOf, now time.Time) Fact {
	v := Fact{
		ID: f.ID, Subject: f.Subject, Predicate: f.Predicate, Object: f.Object, Value: f.Value, Text: f.Text,
		ValidTo: utcPtr(f.ValidTo), Status: f.StatusAt(asOf, now), SourceKind: string(f.SourceKind), Attributes: f.Attributes,
	}
	if !f.ValidFrom.IsZero() {
		t := f.ValidFrom.UTC()
		v.ValidFrom = &t
	}
	if f.Supersedes != "" {
		v.Supersedes = &f.Supersedes
	}
	if f.SupersededBy != "" {
		v.SupersededBy = &f.SupersededBy
	}
	return v
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
