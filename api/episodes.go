package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
)

// episodeRequest is the body of POST /v1/episodes.
type episodeRequest struct {
	Content        string         `json:"content" validate:"required,notblank" doc:"at most 256 KiB"`
	Kind           *string        `json:"kind,omitempty" validate:"omitempty,oneof=message text json" doc:"default message"`
	Speaker        string         `json:"speaker,omitempty" validate:"max=256"`
	Role           *string        `json:"role,omitempty" validate:"omitempty,oneof=user assistant system tool"`
	ReferenceTime  *string        `json:"reference_time,omitempty" validate:"omitempty,time" doc:"when it happened (default now); relative dates are resolved against it"`
	SourceKind     *string        `json:"source_kind,omitempty" validate:"omitempty,oneof=user_explicit user_implicit agent_inferred tool import" doc:"where it comes from; user_explicit (the top authority) only when sent: by default user_implicit for role user or none, agent_inferred for assistant and system, tool for tool"`
	IdempotencyKey string         `json:"idempotency_key,omitempty" validate:"max=256" doc:"a repeat returns the episode stored first"`
	Metadata       map[string]any `json:"metadata,omitempty" validate:"max=64,dive,keys,min=1,max=64,endkeys" doc:"each value at most 8 KiB of JSON"`
}

// noExtraction is the warning of an episode accepted by a server without
// an extraction model.
const noExtraction = "no extraction model is configured (GRAPHMEM_LLM_BASE_URL, GRAPHMEM_LLM_MODEL): the episode is stored and searchable, but no facts are extracted from it"

// maxWaitFacts bounds the facts returned inline by a waited episode.
const maxWaitFacts = 200

func (s *Server) registerEpisodeRoutes() {
	g := s.v1
	g.POST("/episodes", s.postEpisode)
	g.GET("/episodes", s.listEpisodes)
	g.GET("/episodes/:id", s.getEpisode)
	g.POST("/episodes/:id/retry", s.retryEpisode)
	s.Document(
		Endpoint{Method: "POST", Path: "/v1/episodes", Tag: "episodes",
			Summary: "Store an episode durably and queue it for extraction (202); a repeated idempotency_key answers 200 with the first episode.",
			Query:   episodePostQuery, Body: episodeRequest{},
			Example: map[string]any{"content": "We moved the production database to port 3307 today.", "speaker": "Sam", "role": "user",
				"reference_time": "2024-03-01T09:00:00Z", "source_kind": "user_explicit"},
			Status: http.StatusAccepted, Also: []int{http.StatusOK}, Response: EpisodeAccepted{},
			Errors: []int{http.StatusServiceUnavailable}, Links: episodeLinks},
		Endpoint{Method: "GET", Path: "/v1/episodes", Tag: "episodes", Summary: "List episodes, optionally of one status.",
			Query: episodeListQuery, Response: EpisodeList{}},
		Endpoint{Method: "GET", Path: "/v1/episodes/:id", Tag: "episodes", Summary: "One episode with its status, error and the facts derived from it.",
			Response: Episode{}, Errors: []int{http.StatusNotFound}},
		Endpoint{Method: "POST", Path: "/v1/episodes/:id/retry", Tag: "episodes",
			Summary: "Queue a failed episode for extraction again (409 if it has not failed or no model is configured).",
			Status:  http.StatusAccepted, Response: EpisodeAccepted{}, Errors: []int{http.StatusNotFound, http.StatusConflict}},
	)
}

var (
	episodePostQuery = []Param{{Name: "wait", Type: "boolean", Description: "wait for extraction and return the facts produced"}}
	episodeListQuery = []Param{
		{Name: "status", Enum: []string{entity.EpisodeQueued, entity.EpisodeProcessing, entity.EpisodeDone, entity.EpisodeFailed}},
		limitParam, cursorParam,
	}
	episodeLinks = []Link{
		{Name: "episode", To: "GET /v1/episodes/:id", Param: "id", From: "$response.body#/episode_id"},
		{Name: "retry", To: "POST /v1/episodes/:id/retry", Param: "id", From: "$response.body#/episode_id"},
	}
)

func (s *Server) postEpisode(c *gin.Context) {
	q, err := parseQuery(c, episodePostQuery...)
	if err != nil {
		Error(c, err)
		return
	}
	wait := q.bool("wait")
	var req episodeRequest
	if err := s.DecodeJSON(c, &req); err != nil {
		Error(c, err)
		return
	}
	in := memory.EpisodeInput{
		Content: req.Content, Kind: deref(req.Kind), Speaker: req.Speaker, Role: deref(req.Role),
		SourceKind: entity.SourceKind(deref(req.SourceKind)), IdempotencyKey: req.IdempotencyKey, Metadata: req.Metadata,
		ReferenceTime: optTime(req.ReferenceTime),
	}
	ctx, scope := c.Request.Context(), Scope(c)
	ep, created, err := s.svc.AddEpisode(ctx, scope, in)
	if err != nil {
		Error(c, err)
		return
	}
	status := http.StatusAccepted
	if !created {
		status = http.StatusOK
	}
	out := EpisodeAccepted{EpisodeID: ep.ID, Status: ep.Status, Error: ep.Error, Extraction: wire.NewExtraction(ep.Extraction)}
	if wait {
		wctx, cancel := context.WithTimeout(ctx, s.opts.WaitTimeout)
		ep, err = s.svc.WaitEpisode(wctx, scope, ep.ID)
		cancel()
		if err != nil {
			Error(c, err)
			return
		}
		out = EpisodeAccepted{EpisodeID: ep.ID, Status: ep.Status, Error: ep.Error, FactIDs: ep.FactIDs, Extraction: wire.NewExtraction(ep.Extraction)}
		if ep.Status == entity.EpisodeDone || ep.Status == entity.EpisodeFailed {
			status = http.StatusOK
			now := s.now()
			for _, id := range ep.FactIDs[:min(len(ep.FactIDs), maxWaitFacts)] {
				d, err := s.svc.Fact(ctx, scope, id, now)
				if entity.ErrorCode(err) == entity.ENOTFOUND {
					continue // forgotten since
				} else if err != nil {
					Error(c, err)
					return
				}
				out.Facts = append(out.Facts, wire.NewFact(d.Fact, now, now))
			}
		}
	}
	if s.svc.Extract == nil {
		out.Warning = noExtraction
	}
	c.JSON(status, out)
}

func (s *Server) listEpisodes(c *gin.Context) {
	q, err := parseQuery(c, episodeListQuery...)
	if err != nil {
		Error(c, err)
		return
	}
	eps, next, err := s.svc.Episodes(c.Request.Context(), Scope(c), q.str("status"), q.str("cursor"), q.int("limit"))
	if err != nil {
		Error(c, err)
		return
	}
	out := EpisodeList{Items: make([]Episode, len(eps)), NextCursor: wire.Cursor(next)}
	for i, e := range eps {
		out.Items[i] = wire.NewEpisode(e)
	}
	c.JSON(http.StatusOK, out)
}

func (s *Server) getEpisode(c *gin.Context) {
	if _, err := parseQuery(c); err != nil {
		Error(c, err)
		return
	}
	ep, err := s.svc.Episode(c.Request.Context(), Scope(c), c.Param("id"))
	if err != nil {
		Error(c, err)
		return
	}
	c.JSON(http.StatusOK, wire.NewEpisode(ep))
}

func (s *Server) retryEpisode(c *gin.Context) {
	if _, err := parseQuery(c); err != nil {
		Error(c, err)
		return
	}
	ep, err := s.svc.RetryEpisode(c.Request.Context(), Scope(c), c.Param("id"))
	if err != nil {
		Error(c, err)
		return
	}
	c.JSON(http.StatusAccepted, EpisodeAccepted{EpisodeID: ep.ID, Status: ep.Status})
}
