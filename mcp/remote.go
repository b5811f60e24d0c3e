package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/recall"
)

// Remote is a Backend that sends every call to a running graphmem server's
// /v1 endpoints. The server derives the scope from Key (and Scope, when
// set, picks one of the key's scopes with the X-Graphmem-Scope header).
type Remote struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:8080.
	URL string
	// Key is sent as "Authorization: Bearer <key>"; empty for a server in
	// development mode.
	Key string
	// Scope, when set, picks one of the key's scopes.
	Scope string
	// HTTP is the client used; a client with a one-minute timeout when nil.
	HTTP *http.Client
}

var _ Backend = (*Remote)(nil)

// maxAnswerBytes bounds what Remote reads of one answer.
const maxAnswerBytes = 64 << 20

// NewRemote returns a Remote backend for the server at base.
func NewRemote(base, key, scope string) *Remote {
	return &Remote{URL: strings.TrimRight(base, "/"), Key: key, Scope: scope, HTTP: &http.Client{Timeout: time.Minute}}
}

// do sends body as JSON (nil: none) and decodes a 2xx answer into out.
// Error answers become *entity.Error with the server's code, message and
// fields; an unreachable server is EUNAVAILABLE.
func (r *Remote) do(ctx context.Context, method, path string, body, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, entity.Wrap(entity.EINTERNAL, "mcp.Remote", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(r.URL, "/")+path, rd)
	if err != nil {
		return 0, entity.Wrap(entity.EINTERNAL, "mcp.Remote", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.Key != "" {
		req.Header.Set("Authorization", "Bearer "+r.Key)
	}
	if r.Scope != "" {
		req.Header.Set("X-Graphmem-Scope", r.Scope)
	}
	hc := r.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: time.Minute}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, &entity.Error{Code: entity.EUNAVAILABLE, Message: fmt.Sprintf("graphmem server at %s is not reachable", r.URL), Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return resp.StatusCode, &entity.Error{Code: entity.EUNAVAILABLE, Message: "reading the server's answer failed", Err: err}
	}
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, remoteError(resp.StatusCode, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, entity.Wrap(entity.EINTERNAL, "mcp.Remote: decoding "+path, err)
		}
	}
	return resp.StatusCode, nil
}

// remoteError turns the server's one error shape into an *entity.Error.
func remoteError(status int, data []byte) error { return api.ParseError(status, data) }

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
		Context string            `json:"context"`
		Tokens  int               `json:"tokens"`
		Mode    recall.Mode       `json:"mode"`
		Facts   []json.RawMessage `json:"facts"`
	}
	if _, err := r.do(ctx, http.MethodPost, "/v1/context", req, &out); err != nil {
		return RecallResult{}, err
	}
	res := RecallResult{Context: out.Context, Tokens: out.Tokens, Mode: out.Mode, FactIDs: []string{}}
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
	}
	if _, err := r.do(ctx, http.MethodPost, "/v1/search", req, &out); err != nil {
		return SearchResult{}, err
	}
	res := SearchResult{Hits: make([]Hit, 0, len(out.Hits))}
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
	var found struct {
		Items []struct {
			Entity EntityRef `json:"entity"`
		} `json:"items"`
	}
	q := url.Values{"name": {req.Entity}, "limit": {"1"}}
	if _, err := r.do(ctx, http.MethodGet, "/v1/entities?"+q.Encode(), nil, &found); err != nil {
		return TimelineResult{}, err
	}
	var ent EntityRef
	if len(found.Items) > 0 {
		ent = found.Items[0].Entity
	} else {
		// Not a name: perhaps an id taken from an earlier answer.
		var d struct {
			Entity EntityRef `json:"entity"`
		}
		_, err := r.do(ctx, http.MethodGet, "/v1/entities/"+url.PathEscape(strings.TrimSpace(req.Entity)), nil, &d)
		if err != nil || d.Entity.ID == "" {
			return TimelineResult{}, notFoundEntity(req.Entity)
		}
		ent = d.Entity
	}
	tq := url.Values{}
	if req.Predicate != "" {
		tq.Set("predicate", req.Predicate)
	}
	if !req.KnownAt.IsZero() {
		tq.Set("known_at", req.KnownAt.UTC().Format(time.RFC3339Nano))
	}
	path := "/v1/entities/" + url.PathEscape(ent.ID) + "/timeline"
	if len(tq) > 0 {
		path += "?" + tq.Encode()
	}
	var list struct {
		Items []Fact `json:"items"`
	}
	if _, err := r.do(ctx, http.MethodGet, path, nil, &list); err != nil {
		return TimelineResult{}, err
	}
	if list.Items == nil {
		list.Items = []Fact{}
	}
	return TimelineResult{Entity: ent, Facts: list.Items}, nil
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
	Limit     int               `json:"limit,omitempty"`
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
	if body.Query != "" {
		body.Limit = ForgetQueryLimit // the same bound as a local forget by query
	}
	_, err := r.do(ctx, http.MethodPost, "/v1/forget", body, &out)
	return out, err
}
