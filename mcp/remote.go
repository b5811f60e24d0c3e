package mcp

import (
	"context"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/client"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/recall"
	"github.com/graphmem/graphmem/temporal"
)

// Remote is a Backend that sends every call to a running graphmem server's
// /v1 endpoints through the Go client. The server derives the scope from
// the client's key (and the client's scope, when set, picks one of the
// key's scopes).
type Remote struct {
	Client *client.Client
}

var _ Backend = (*Remote)(nil)

// NewRemote returns a Remote backend for the server at base.
func NewRemote(base, key, scope string) *Remote {
	return &Remote{Client: client.New(base, client.WithAPIKey(key), client.WithScope(scope))}
}

// Remember implements Backend.
func (r *Remote) Remember(ctx context.Context, in memory.EpisodeInput) (RememberResult, error) {
	acc, created, err := r.Client.Remember(ctx, wire.EpisodeInput(in))
	if err != nil {
		return RememberResult{}, err
	}
	out := RememberResult{EpisodeID: acc.EpisodeID, Status: acc.Status, Created: created, Error: acc.Error, FactIDs: acc.FactIDs}
	if acc.Extraction != nil {
		out.Extraction = acc.Extraction.Summary
	}
	return out, nil
}

// AddFacts implements Backend.
func (r *Remote) AddFacts(ctx context.Context, facts []memory.FactInput) ([]memory.FactResult, error) {
	in := make([]wire.FactInput, len(facts))
	for i := range facts {
		in[i] = WireFact(facts[i])
	}
	res, err := r.Client.AddFacts(ctx, in...)
	if err != nil {
		return nil, err
	}
	out := make([]memory.FactResult, len(res))
	for i, x := range res {
		out[i] = memory.FactResult{FactID: x.FactID, Action: temporal.Action(x.Action), Superseded: x.Superseded, Warning: x.Warning}
	}
	return out, nil
}

// WireFact is a statement in the client's type, which has the same JSON.
func WireFact(f memory.FactInput) wire.FactInput {
	return wire.FactInput{Subject: f.Subject, SubjectType: f.SubjectType, Predicate: f.Predicate, Object: f.Object,
		ObjectType: f.ObjectType, Value: f.Value, Text: f.Text, ValidFrom: f.ValidFrom, ValidTo: f.ValidTo,
		StartUnknown: f.StartUnknown, SourceKind: f.SourceKind, EpisodeID: f.EpisodeID, Confidence: f.Confidence,
		Importance: f.Importance, Attributes: f.Attributes, Cardinality: string(f.Cardinality),
		SubjectAliases: f.SubjectAliases, ObjectAliases: f.ObjectAliases}
}

// Recall implements Backend.
func (r *Remote) Recall(ctx context.Context, req recall.ContextRequest) (RecallResult, error) {
	out, err := r.Client.Context(ctx, client.ContextRequest{
		Query: req.Query, AsOf: req.AsOf, KnownAt: req.KnownAt, ReferenceTime: req.ReferenceTime,
		MaxTokens: req.MaxTokens, Mode: string(req.Mode), Format: req.Format, Focus: req.Focus,
	})
	if err != nil {
		return RecallResult{}, err
	}
	res := RecallResult{Context: out.Context, Tokens: out.Tokens, Mode: recall.Mode(out.Mode), FactIDs: make([]string, len(out.Facts)),
		Unresolved: nameLinks(out.Unresolved), Paths: paths(out.Paths), Vectors: out.Vectors, VectorsSkipped: out.VectorsSkipped}
	for i, f := range out.Facts {
		res.FactIDs[i] = f.Fact.ID
	}
	return res, nil
}

// Search implements Backend.
func (r *Remote) Search(ctx context.Context, req recall.SearchRequest) (SearchResult, error) {
	out, err := r.Client.Search(ctx, client.SearchRequest(req))
	if err != nil {
		return SearchResult{}, err
	}
	res := SearchResult{Hits: make([]Hit, len(out.Hits)), Unresolved: nameLinks(out.Unresolved), Vectors: out.Vectors,
		VectorsSkipped: out.VectorsSkipped}
	for i, h := range out.Hits {
		res.Hits[i] = Hit{Type: h.Type, ID: h.ID, Text: h.Text, Score: h.Score}
		if h.Fact != nil {
			res.Hits[i].Status = h.Fact.Status
		}
	}
	return res, nil
}

func nameLinks(ns []wire.NameLink) []recall.NameLink {
	out := make([]recall.NameLink, len(ns))
	for i, n := range ns {
		out[i] = recall.NameLink(n)
	}
	return out
}

// paths are a context's walked paths in recall's type.
func paths(ps []wire.Path) []recall.Path {
	out := make([]recall.Path, len(ps))
	for i, p := range ps {
		out[i] = recall.Path{Complete: p.Complete, Missing: p.Missing, Text: p.Text, Hops: make([]recall.PathHop, len(p.Hops))}
		for j, h := range p.Hops {
			out[i].Hops[j] = recall.PathHop{Entity: h.Entity, EntityID: h.EntityID, Predicate: h.Predicate, Inverse: h.Inverse,
				To: h.To, ToID: h.ToID, FactID: h.FactID, Status: entity.Status(h.Status)}
		}
	}
	return out
}

// Timeline implements Backend.
func (r *Remote) Timeline(ctx context.Context, req TimelineRequest) (TimelineResult, error) {
	tl, err := r.Client.Timeline(ctx, req.Entity, client.TimelineQuery{Predicate: req.Predicate, KnownAt: req.KnownAt})
	if err != nil {
		return TimelineResult{}, err
	}
	out := TimelineResult{Entity: EntityRef{ID: tl.Entity.ID, Name: tl.Entity.Name, Type: tl.Entity.Type}, Facts: make([]Fact, len(tl.Items))}
	for i, f := range tl.Items {
		out.Facts[i] = Fact{ID: f.ID, Subject: f.Subject, Predicate: f.Predicate, Object: f.Object, Value: f.Value, Text: f.Text,
			ValidFrom: f.ValidFrom, ValidTo: f.ValidTo, Status: f.Status, Supersedes: f.Supersedes, SupersededBy: f.SupersededBy,
			SourceKind: string(f.SourceKind), Attributes: f.Attributes}
	}
	return out, nil
}

// Forget implements Backend.
func (r *Remote) Forget(ctx context.Context, req ForgetRequest) (memory.ForgetResult, error) {
	mode := req.Mode
	if mode == "" {
		mode = memory.ModeForget
	}
	res, err := r.Client.Forget(ctx, client.ForgetRequest{
		FactIDs: req.FactIDs, Entity: req.Entity, Query: req.Query, EpisodeID: req.EpisodeID,
		Mode: string(mode), Reason: req.Reason, DryRun: req.DryRun,
	})
	out := memory.ForgetResult{Mode: memory.ForgetMode(res.Mode), DryRun: res.DryRun, Facts: res.Facts, Episodes: res.Episodes,
		Entities: res.Entities, Tombstones: res.Tombstones, FactIDs: res.FactIDs, Resolved: res.Resolved}
	for _, it := range res.Items {
		out.Items = append(out.Items, memory.ForgetItem(it))
	}
	return out, err
}

// Ontology implements Backend.
func (r *Remote) Ontology(ctx context.Context) (ontology.Description, error) {
	o, err := r.Client.Ontology(ctx)
	d := ontology.Description{EntityTypes: make([]ontology.TypeDescription, len(o.EntityTypes)),
		Predicates: make([]ontology.PredicateDescription, len(o.Predicates)), Unknown: o.Unknown}
	for i, t := range o.EntityTypes {
		d.EntityTypes[i] = ontology.TypeDescription(t)
	}
	for i, p := range o.Predicates {
		d.Predicates[i] = ontology.PredicateDescription{Name: p.Name, Description: p.Description,
			Cardinality: ontology.Cardinality(p.Cardinality), Synonyms: p.Synonyms, Inverse: p.Inverse, Symmetric: p.Symmetric,
			Decision: p.Decision, Reverses: p.Reverses, TTL: p.TTL}
	}
	return d, err
}
