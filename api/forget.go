package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/memory"
)

// forgetRequest is the body of POST /v1/forget.
type forgetRequest struct {
	FactIDs   []string           `json:"fact_ids" validate:"required_without_all=Entity Query EpisodeID,max=1000,dive,required,max=64" doc:"give at least one of fact_ids, entity, query and episode_id"`
	Entity    string             `json:"entity" validate:"notblank,max=256"`
	Query     string             `json:"query" validate:"max=2000"`
	EpisodeID string             `json:"episode_id" validate:"max=64"`
	Mode      *memory.ForgetMode `json:"mode" validate:"omitempty,oneof=forget purge" doc:"default forget"`
	Reason    string             `json:"reason" validate:"max=1000"`
	DryRun    bool               `json:"dry_run"`
	Limit     *Int               `json:"limit" validate:"omitempty,min=1,max=1000" doc:"most facts a query may select (default 50); with fact_ids, at most 1000 facts in all"`
}

func (s *Server) registerForgetRoutes() {
	s.v1.POST("/forget", s.postForget)
	s.v1.GET("/audit", s.getAudit)
	s.Document(
		Endpoint{Method: "POST", Path: "/v1/forget", Tag: "forgetting",
			Summary: "Forget facts (they leave every recall path; tombstones stop them coming back) or purge them with their source episodes (privacy). A query can run as a dry run that lists what it would remove.",
			Body:    forgetRequest{}, Response: wire.ForgetResult{},
			Example: map[string]any{"query": "production database port", "dry_run": true},
			Errors:  []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}},
		Endpoint{Method: "GET", Path: "/v1/audit", Tag: "forgetting",
			Summary: "Forget and purge records of the scope, most recent first: ids, time, actor and counts, never content.",
			Query:   auditQuery, Response: AuditList{}},
	)
}

func (s *Server) postForget(c *gin.Context) {
	var req forgetRequest
	if err := s.DecodeJSON(c, &req); err != nil {
		Error(c, err)
		return
	}
	ctx := c.Request.Context()
	res, err := s.svc.Forget(ctx, Scope(c), memory.ForgetRequest{
		FactIDs: req.FactIDs, Entity: req.Entity, EpisodeID: req.EpisodeID, Query: req.Query, Limit: intOf(req.Limit),
		Mode: deref(req.Mode), Reason: req.Reason, DryRun: req.DryRun, Actor: Actor(c),
	})
	if err != nil {
		Error(c, err)
		return
	}
	c.JSON(http.StatusOK, forgetResult(res))
}

var auditQuery = []Param{limitParam}

func (s *Server) getAudit(c *gin.Context) {
	q, err := parseQuery(c, auditQuery...)
	if err != nil {
		Error(c, err)
		return
	}
	items, err := s.svc.Audit(c.Request.Context(), Scope(c), q.int("limit"))
	if err != nil {
		Error(c, err)
		return
	}
	c.JSON(http.StatusOK, AuditList{Items: auditRecords(items)})
}
