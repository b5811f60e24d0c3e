package api

import "github.com/graphmem/graphmem/api/wire"

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
	ErrorBody       = wire.ErrorBody
	ErrorDetail     = wire.ErrorDetail
)

// Headers and media types of the API (package wire).
const (
	RequestIDHeader = wire.RequestIDHeader
	ScopeHeader     = wire.ScopeHeader
	NDJSON          = wire.NDJSON
)
