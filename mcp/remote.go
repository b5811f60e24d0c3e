package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/graphmem/graphmem/client"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/recall"
)

// Remote is a Backend that sends every call to a running graphmem server's
// /v1 endpoints through the API client. The server derives the scope from
// the client's key (and its Scope, when set, picks one of the key's
// scopes).
type Remote struct {
	Client *client.Client
}

var _ Backend = (*Remote)(nil)

// NewRemote returns a Remote backend for the server at base.
func NewRemote(base, key, scope string) *Remote {
	return &Remote{Client: client.New(base, key, scope)}
}

func (r *Remote) do(ctx context.Context, method, path string, body, out any) (int, error) {
	return r.Client.Do(ctx, method, path, body, out)
}

// episodeBody is POST /v1/episodes: times as RFC 3339 strings.
type episodeBody struct {
	Content        string            `json:"content"`
	Kind           string            `json:"kind,omitempty"`
	Speaker        string            `json:"speaker,omitempty"`
	Role           string            `json:"role,omitempty"`
	ReferenceTime  string            `json:"reference_time,omitempty"`
	SourceKind     entity.SourceKind `json:"source_kind,omitempty"`
	IdempotencyKey string            `json:"idempotency_key,omitempty"`
	Metadata       map[string]any    `json:"metadata,omitempty"`
}

// Remember implements Backend.
func (r *Remote) Remember(ctx context.Context, in memory.EpisodeInput) (RememberResult, error) {
	body := episodeBody{Content: in.Content, Kind: in.Kind, Speaker: in.Speaker, Role: in.Role,
		SourceKind: in.SourceKind, IdempotencyKey: in.IdempotencyKey, Metadata: in.Metadata}
	if in.ReferenceTime != nil {
		body.ReferenceTime = in.ReferenceTime.UTC().Format(time.RFC3339Nano)
	}
	var out RememberResult
	status, err := r.do(ctx, http.MethodPost, "/v1/episodes", body, &out)
	if err != nil {
		return RememberResult{}, err
	}
	// 202: stored now; 200: the idempotency key named an earlier episode.
	out.Created = status == http.StatusAccepted || status == http.StatusCreated
	return out, nil
}

// AddFacts implements Backend.
func (r *Remote) AddFacts(ctx context.Context, facts []memory.FactInput) ([]memory.FactResult, error) {
	var out struct {
		Results []memory.FactResult `json:"results"`
	}
	if _, err := r.do(ctx, http.MethodPost, "/v1/facts", map[string]any{"facts": facts}, &out); err != nil {
		return nil, err
	}
	return out.Results, nil
}

// Recall implements Backend.
func (r *Remote) Recall(ctx context.Context, req recall.ContextRequest) (RecallResult, error) {
	var out struct {
		Context    string            `json:"context"`
		Tokens     int               `json:"tokens"`
		Mode       recall.Mode       `json:"mode"`
		Facts      []json.RawMessage `json:"facts"`
		Unresolved []recall.NameLink `json:"unresolved"`
		Vectors    string            `json:"vectors"`
		Skipped    string            `json:"vectors_skipped"`
	}
	if _, err := r.do(ctx, http.MethodPost, "/v1/context", req, &out); err != nil {
		return RecallResult{}, err
	}
	res := RecallResult{Context: out.Context, Tokens: out.Tokens, Mode: out.Mode, FactIDs: []string{}, Unresolved: out.Unresolved,
		Vectors: out.Vectors, VectorsSkipped: out.Skipped}
	for _, raw := range out.Facts {
		// A context fact is either a fact or {"fact": {...}} with the
		// role it plays; take the id from whichever it is.
		var f struct {
			ID   string `json:"id"`
			Fact struct {
				ID string `json:"id"`
			} `json:"fact"`
		}
		if json.Unmarshal(raw, &f) == nil {
			if f.ID == "" {
				f.ID = f.Fact.ID
			}
			if f.ID != "" {
				res.FactIDs = append(res.FactIDs, f.ID)
			}
		}
	}
	return res, nil
}

// Search implements Backend.
func (r *Remote) Search(ctx context.Context, req recall.SearchRequest) (SearchResult, error) {
	var out struct {
		Hits []struct {
			Hit
			Fact *struct {
				Status entity.Status `json:"status"`
			} `json:"fact"`
		} `json:"hits"`
		Unresolved []recall.NameLink `json:"unresolved"`
		Vectors    string            `json:"vectors"`
		Skipped    string            `json:"vectors_skipped"`
	}
	if _, err := r.do(ctx, http.MethodPost, "/v1/search", req, &out); err != nil {
		return SearchResult{}, err
	}
	res := SearchResult{Hits: make([]Hit, 0, len(out.Hits)), Unresolved: out.Unresolved, Vectors: out.Vectors,
		VectorsSkipped: out.Skipped}
	for _, h := range out.Hits {
		hit := h.Hit
		if h.Fact != nil && hit.Status == "" {
			hit.Status = h.Fact.Status
		}
		res.Hits = append(res.Hits, hit)
	}
	return res, nil
}

// Timeline implements Backend.
func (r *Remote) Timeline(ctx context.Context, req TimelineRequest) (TimelineResult, error) {
	q := url.Values{}
	if req.Predicate != "" {
		q.Set("predicate", req.Predicate)
	}
	if !req.KnownAt.IsZero() {
		q.Set("known_at", req.KnownAt.UTC().Format(time.RFC3339Nano))
	}
	path := "/v1/entities/" + url.PathEscape(req.Entity) + "/timeline"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out struct {
		Entity EntityRef `json:"entity"`
		Items  []Fact    `json:"items"`
	}
	if _, err := r.do(ctx, http.MethodGet, path, nil, &out); err != nil {
		return TimelineResult{}, err
	}
	if out.Items == nil {
		out.Items = []Fact{}
	}
	return TimelineResult{Entity: out.Entity, Facts: out.Items}, nil
}

// forgetBody is POST /v1/forget.
type forgetBody struct {
	FactIDs   []string          `json:"fact_ids,omitempty"`
	Entity    string            `json:"entity,omitempty"`
	Query     string            `json:"query,omitempty"`
	EpisodeID string            `json:"episode_id,omitempty"`
	Mode      memory.ForgetMode `json:"mode"`
	Reason    string            `json:"reason,omitempty"`
	DryRun    bool              `json:"dry_run,omitempty"`
}

// Forget implements Backend.
func (r *Remote) Forget(ctx context.Context, req ForgetRequest) (memory.ForgetResult, error) {
	mode := req.Mode
	if mode == "" {
		mode = memory.ModeForget
	}
	var out memory.ForgetResult
	body := forgetBody{
		FactIDs: req.FactIDs, Entity: req.Entity, Query: req.Query, EpisodeID: req.EpisodeID,
		Mode: mode, Reason: req.Reason, DryRun: req.DryRun,
	}
	_, err := r.do(ctx, http.MethodPost, "/v1/forget", body, &out)
	return out, err
}

// Ontology implements Backend.
func (r *Remote) Ontology(ctx context.Context) (ontology.Description, error) {
	var d ontology.Description
	_, err := r.do(ctx, "GET", "/v1/ontology", nil, &d)
	return d, err
}
