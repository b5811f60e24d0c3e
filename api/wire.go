package api

import (
	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/memory"
)

// The API's answers, in package wire so that clients can decode them
// without the server.
type (
	Fact            = wire.Fact
	FactList        = wire.FactList
	FactDetail      = wire.FactDetail
	FactResult      = wire.FactResult
	FactsResponse   = wire.FactsResponse
	Entity          = wire.Entity
	EntityMatch     = wire.EntityMatch
	EntityMatchList = wire.EntityMatchList
	EntityDetail    = wire.EntityDetail
	EntityGraph     = wire.EntityGraph
	GraphNode       = wire.GraphNode
	Timeline        = wire.Timeline
	Episode         = wire.Episode
	EpisodeList     = wire.EpisodeList
	EpisodeAccepted = wire.EpisodeAccepted
	SearchHit       = wire.SearchHit
	Explanation     = wire.Explanation
	SearchResponse  = wire.SearchResponse
	NameLink        = wire.NameLink
	ContextFact     = wire.ContextFact
	ContextEpisode  = wire.ContextEpisode
	ContextResponse = wire.ContextResponse
	AuditList       = wire.AuditList
	Overview        = wire.Overview
	OverviewCounts  = wire.OverviewCounts
	ChangeItem      = wire.ChangeItem
	Session         = wire.Session
	Health          = wire.Health
	Lag             = wire.Lag
	ErrorBody       = wire.ErrorBody
	ErrorDetail     = wire.ErrorDetail
)

// Headers and media types of the API (package wire).
const (
	RequestIDHeader = wire.RequestIDHeader
	ScopeHeader     = wire.ScopeHeader
	NDJSON          = wire.NDJSON
)

// auditRecords is the service's audit records in the API's shape.
func auditRecords(rs []memory.AuditRecord) []wire.AuditRecord {
	out := make([]wire.AuditRecord, len(rs))
	for i, r := range rs {
		out[i] = wire.AuditRecord{ID: r.ID, At: r.At, Actor: r.Actor, Action: r.Action, Reason: r.Reason,
			FactIDs: r.FactIDs, EpisodeID: r.EpisodeID, EntityID: r.EntityID, Result: forgetResult(r.Result)}
	}
	return out
}

// forgetResult is a forget's counts in the API's shape.
func forgetResult(r memory.ForgetResult) wire.ForgetResult {
	out := wire.ForgetResult{Mode: string(r.Mode), DryRun: r.DryRun, Facts: r.Facts, Episodes: r.Episodes,
		Entities: r.Entities, Tombstones: r.Tombstones, FactIDs: r.FactIDs, Resolved: r.Resolved}
	for _, it := range r.Items {
		out.Items = append(out.Items, wire.ForgetItem(it))
	}
	return out
}
