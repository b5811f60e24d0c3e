package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
)

// forgetRequest is the body of POST /v1/forget.
type forgetRequest struct {
	FactIDs   []string          `json:"fact_ids" validate:"omitempty,max=1000,dive,required,max=64"`
	Entity    string            `json:"entity" validate:"max=256"`
	Query     string            `json:"query" validate:"max=2000"`
	EpisodeID string            `json:"episode_id" validate:"max=64"`
	Mode      memory.ForgetMode `json:"mode" validate:"omitempty,oneof=forget purge"`
	Reason    string            `json:"reason" validate:"max=1000"`
	DryRun    bool              `json:"dry_run"`
	Limit     int               `json:"limit" validate:"omitempty,min=1,max=1000" doc:"most facts a query may select (default 50)"`
}

// AuditList is the answer of GET /v1/audit.
type AuditList struct {
	Items []memory.AuditRecord `json:"items"`
}

func (s *Server) registerForgetRoutes() {
	s.v1.POST("/forget", s.postForget)
	s.v1.GET("/audit", s.getAudit)
	s.Document(
		Endpoint{Method: "POST", Path: "/v1/forget", Tag: "forgetting",
			Summary: "Forget facts (they leave every recall path; tombstones stop them coming back) or purge them with their source episodes (privacy). A query can run as a dry run that lists what it would remove.",
			Body:    forgetRequest{}, Response: memory.ForgetResult{},
			Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusUnprocessableEntity}},
		Endpoint{Method: "GET", Path: "/v1/audit", Tag: "forgetting",
			Summary:  "Forget and purge records of the scope, most recent first: ids, time, actor and counts, never content.",
			Query:    []Param{{Name: "limit", Type: "integer"}},
			Response: AuditList{}, Errors: []int{http.StatusBadRequest}},
	)
}

func (s *Server) postForget(c *gin.Context) {
	var req forgetRequest
	if err := s.DecodeJSON(c, &req); err != nil {
		Error(c, err)
		return
	}
	ctx, scope := c.Request.Context(), Scope(c)
	ids := req.FactIDs
	if req.Query != "" {
		if s.opts.FindFacts == nil {
			Error(c, entity.Errorf(entity.EUNPROCESSABLE, "forgetting by query needs the search index, which this server does not have"))
			return
		}
		limit := req.Limit
		if limit == 0 {
			limit = 50
		}
		found, err := s.opts.FindFacts(ctx, scope, req.Query, limit)
		if err != nil {
			Error(c, err)
			return
		}
		if len(found) == 0 && len(ids) == 0 && req.Entity == "" && req.EpisodeID == "" {
			c.JSON(http.StatusOK, memory.ForgetResult{Mode: modeOr(req.Mode), DryRun: req.DryRun})
			return
		}
		ids = append(ids, found...)
	}
	res, err := s.svc.Forget(ctx, scope, memory.ForgetRequest{
		FactIDs: ids, Entity: req.Entity, EpisodeID: req.EpisodeID, Mode: req.Mode,
		Reason: req.Reason, DryRun: req.DryRun, Actor: Actor(c),
	})
	if err != nil {
		Error(c, err)
		return
	}
	if res.Mode == memory.ModePurge && !res.DryRun && s.opts.Purged != nil {
		if err := s.opts.Purged(ctx); err != nil {
			Error(c, err)
			return
		}
	}
	c.JSON(http.StatusOK, res)
}

func modeOr(m memory.ForgetMode) memory.ForgetMode {
	if m == "" {
		return memory.ModeForget
	}
	return m
}

func (s *Server) getAudit(c *gin.Context) {
	q := newQuery(c, "limit")
	limit := q.limit()
	if err := q.err(); err != nil {
		Error(c, err)
		return
	}
	items, err := s.svc.Audit(c.Request.Context(), Scope(c), limit)
	if err != nil {
		Error(c, err)
		return
	}
	if items == nil {
		items = []memory.AuditRecord{}
	}
	c.JSON(http.StatusOK, AuditList{Items: items})
}
