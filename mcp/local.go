package mcp

import (
	"context"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/recall"
)

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

// NewLocal returns a Local backend for scope. Unless svc already has one,
// it gives svc the engine's selection of a forget by query.
func NewLocal(svc *memory.Service, eng *recall.Engine, scope entity.Scope) *Local {
	if svc.FindFacts == nil && eng != nil {
		svc.FindFacts = eng.FindFacts
	}
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
	return RememberResult{EpisodeID: ep.ID, Status: ep.Status, Created: created, Error: ep.Error, FactIDs: ep.FactIDs,
		Extraction: ep.Extraction.Summary()}, nil
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
	out := RecallResult{Context: res.Context, Tokens: res.Tokens, Mode: res.Mode, FactIDs: []string{}, Unresolved: res.Unresolved,
		Paths: res.Paths, Vectors: res.Vectors, VectorsSkipped: res.VectorsSkipped}
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
	out := SearchResult{Hits: make([]Hit, 0, len(res.Hits)), Unresolved: res.Unresolved,
		Vectors: res.Vectors, VectorsSkipped: res.VectorsSkipped}
	for _, h := range res.Hits {
		hit := Hit{Type: h.Type, ID: h.ID, Text: h.Text, Score: h.Score}
		if h.Fact != nil {
			hit.Status = h.Fact.StatusAt(req.AsOf, now)
		}
		out.Hits = append(out.Hits, hit)
	}
	return out, nil
}

// Timeline implements Backend: the entity is the one with that id, name
// or alias (memory.Service.Timeline).
func (l *Local) Timeline(ctx context.Context, req TimelineRequest) (TimelineResult, error) {
	d, err := l.Service.Timeline(ctx, l.Scope, req.Entity, req.Predicate, req.KnownAt)
	if err != nil {
		return TimelineResult{}, err
	}
	now := l.now()
	out := TimelineResult{Entity: EntityRef{ID: d.Entity.ID, Name: d.Entity.Name, Type: d.Entity.Type}, Facts: make([]Fact, len(d.Facts))}
	for i := range d.Facts {
		out.Facts[i] = factView(&d.Facts[i], time.Time{}, now)
	}
	return out, nil
}

// Forget implements Backend: the selection is memory.Service.Forget's, a
// query's facts chosen by the engine (recall.Engine.FindFacts), as on
// every other interface.
func (l *Local) Forget(ctx context.Context, req ForgetRequest) (memory.ForgetResult, error) {
	return l.Service.Forget(ctx, l.Scope, memory.ForgetRequest{
		FactIDs: req.FactIDs, Entity: req.Entity, EpisodeID: req.EpisodeID, Query: req.Query, Mode: req.Mode,
		Reason: req.Reason, DryRun: req.DryRun, Actor: l.Actor,
	})
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

// Ontology implements Backend.
func (l *Local) Ontology(context.Context) (ontology.Description, error) {
	onto := l.Service.Ontology
	if onto == nil {
		onto = ontology.Default()
	}
	return onto.Describe(), nil
}
