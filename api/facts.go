package api

import (
	"time"

	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
)

// factInput is one fact of POST /v1/facts. Times are strings so a bad one
// is reported by its JSON path; limits mirror the memory service's.
// Optional fields whose empty value would be meaningless are pointers: null
// or absent is the default, "" is refused.
type factInput struct {
	Subject        string                `json:"subject" validate:"required,word,max=256"`
	SubjectType    string                `json:"subject_type,omitempty" validate:"max=64"`
	SubjectAliases []string              `json:"subject_aliases,omitempty" validate:"max=16,dive,required,word,max=256" doc:"other names of the subject (Sam for Sam Okafor); they become its entity's aliases, so a question naming either finds it"`
	Predicate      string                `json:"predicate" validate:"required,word,max=64"`
	Object         string                `json:"object,omitempty" validate:"required_without=Value,excluded_with=Value,word,max=256" doc:"an entity name; exactly one of object and value"`
	ObjectType     string                `json:"object_type,omitempty" validate:"max=64"`
	ObjectAliases  []string              `json:"object_aliases,omitempty" validate:"excluded_with=Value,max=16,dive,required,word,max=256" doc:"other names of the object entity"`
	Value          string                `json:"value,omitempty" validate:"required_without=Object,excluded_with=Object,notblank,max=2000" doc:"a literal; exactly one of object and value"`
	Text           string                `json:"text,omitempty" validate:"max=4000"`
	ValidFrom      *string               `json:"valid_from,omitempty" validate:"omitempty,time" doc:"default: now"`
	ValidTo        *string               `json:"valid_to,omitempty" validate:"omitempty,time" doc:"after valid_from; alone, it ends the matching fact (waiting for its start if none is known yet)"`
	StartUnknown   bool                  `json:"start_unknown,omitempty" validate:"excluded_with=ValidFrom" doc:"true instead of valid_from: true since an unknown time (answers as_of at any time before its end)"`
	SourceKind     *string               `json:"source_kind,omitempty" validate:"omitempty,oneof=user_explicit user_implicit agent_inferred tool import" doc:"default agent_inferred"`
	EpisodeID      string                `json:"episode_id,omitempty" validate:"max=128"`
	Confidence     *float64              `json:"confidence,omitempty" validate:"omitempty,gte=0,lte=1"`
	Importance     *Int                  `json:"importance,omitempty" validate:"omitempty,min=1,max=10"`
	Attributes     map[string]any        `json:"attributes,omitempty" validate:"max=64,dive,keys,min=1,max=64,endkeys" doc:"e.g. reason, alternatives; each value at most 8 KiB of JSON"`
	Cardinality    *ontology.Cardinality `json:"cardinality,omitempty" validate:"omitempty,oneof=one many" doc:"a hint for predicates the ontology does not define"`
}

// factsRequest is the body of POST /v1/facts.
type factsRequest struct {
	Facts []factInput `json:"facts" validate:"required,min=1,max=1000"`
}

// rawFactsRequest is decoded first, so each fact can then be decoded on its
// own and its errors named facts[i].field.
type rawFactsRequest struct {
	Facts []json.RawMessage `json:"facts" validate:"required,min=1,max=1000"`
}

func (s *Server) registerFactRoutes() {
	g := s.v1
	g.POST("/facts", s.postFacts)
	g.GET("/facts", s.listFacts)
	g.GET("/facts/:id", s.getFact)
	g.DELETE("/facts/:id", s.deleteFact)

	s.Document(
		Endpoint{Method: "POST", Path: "/v1/facts", Tag: "facts",
			Summary: "Add structured facts; the temporal rules decide what each one does.",
			Body:    factsRequest{}, Response: FactsResponse{},
			Example: map[string]any{"facts": []any{
				map[string]any{"subject": "production database", "predicate": "port", "value": "3307", "valid_from": "2024-03-01T00:00:00Z", "source_kind": "user_explicit"},
				map[string]any{"subject": "Alice Chen", "subject_type": "person", "predicate": "works_at", "object": "Acme Corp", "object_type": "organization"},
			}},
			Errors: []int{http.StatusNotFound, http.StatusServiceUnavailable},
			Links: []Link{
				{Name: "fact", To: "GET /v1/facts/:id", Param: "id", From: "$response.body#/results/0/fact_id"},
				{Name: "delete", To: "DELETE /v1/facts/:id", Param: "id", From: "$response.body#/results/0/fact_id"},
			}},
		Endpoint{Method: "GET", Path: "/v1/facts", Tag: "facts", Summary: "List facts valid at as_of, as known at known_at.",
			Query: factQuery, Response: FactList{}},
		Endpoint{Method: "GET", Path: "/v1/facts/:id", Tag: "facts", Summary: "One fact with its provenance episodes and supersession chain, as known at known_at (a retracted fact is not found as known since its retraction).",
			Query: getFactQuery, Response: FactDetail{}, Errors: []int{http.StatusNotFound},
			Links: []Link{
				{Name: "subject", To: "GET /v1/entities/:id", Param: "id", From: "$response.body#/fact/subject_id"},
				{Name: "timeline", To: "GET /v1/entities/:id/timeline", Param: "id", From: "$response.body#/fact/subject_id"},
				{Name: "graph", To: "GET /v1/entities/:id/graph", Param: "id", From: "$response.body#/fact/subject_id"},
			}},
		Endpoint{Method: "DELETE", Path: "/v1/facts/:id", Tag: "facts", Summary: "Retract a fact (it was never true: from now on it is not found, reads with an earlier known_at still see it) or forget it (it leaves every recall path and cannot come back).",
			Query: deleteFactQuery, Response: OneOf{Fact{}, wire.ForgetResult{}}, Errors: []int{http.StatusNotFound}},
	)
}

var (
	factQuery = []Param{
		{Name: "subject", Description: "entity name (exact or alias)", Max: entity.MaxNameLen},
		{Name: "predicate", Max: entity.MaxPredicateLen},
		{Name: "object", Description: "entity name or literal value", Max: entity.MaxValueLen},
		{Name: "as_of", Type: "date-time", Description: "valid time (default now)"},
		{Name: "known_at", Type: "date-time", Description: "transaction time (default now)"},
		{Name: "include_history", Type: "boolean", Description: "every fact regardless of as_of"},
		limitParam, cursorParam,
	}
	getFactQuery    = []Param{{Name: "known_at", Type: "date-time", Description: "transaction time (default now): the fact as believed then; a fact retracted by then, or not yet recorded, is not found"}}
	deleteFactQuery = []Param{{Name: "mode", Enum: []string{"retract", "forget"}, Description: "retract (default) answers the fact; forget answers counts"}}
)

func (s *Server) postFacts(c *gin.Context) {
	in, err := s.decodeFacts(c)
	if err != nil {
		Error(c, err)
		return
	}
	res, err := s.svc.AddFacts(c.Request.Context(), Scope(c), in)
	if err != nil {
		Error(c, err)
		return
	}
	out := FactsResponse{Results: make([]FactResult, len(res))}
	for i, r := range res {
		out.Results[i] = FactResult{FactID: r.FactID, Action: string(r.Action), Superseded: append([]string{}, r.Superseded...), Warning: r.Warning}
		s.metrics.facts.WithLabelValues(string(r.Action)).Inc()
	}
	c.JSON(http.StatusOK, out)
}

// decodeFacts decodes and validates a POST /v1/facts body: shape first
// (JSON types, unknown fields, tags), then the domain rules, every problem
// named by its JSON path.
func (s *Server) decodeFacts(c *gin.Context) ([]memory.FactInput, error) {
	return decodeFactsBody(s.jsonBody(c), s.opts.MaxBodyBytes)
}

func decodeFactsBody(dec *json.Decoder, limit int64) ([]memory.FactInput, error) {
	var raw rawFactsRequest
	if err := decodeOne(dec, &raw); err != nil {
		return nil, decodeError(err, "", limit)
	}
	fe := entity.FieldErrors{}
	if err := validate.Struct(&raw); err != nil {
		shapeErrors(err, "", fe)
		return nil, fe.Err()
	}
	in := make([]factInput, len(raw.Facts))
	bad := map[string]bool{}
	for i, r := range raw.Facts {
		p := fmt.Sprintf("facts[%d].", i)
		d := json.NewDecoder(bytes.NewReader(r))
		d.DisallowUnknownFields()
		if err := d.Decode(&in[i]); err != nil {
			mergeErr(fe, decodeError(err, p, limit), p)
			bad[p] = true
			continue
		}
		// An empty list gives no aliases, as the document says (the
		// validator's excluded_with would count an empty list as given).
		if len(in[i].ObjectAliases) == 0 {
			in[i].ObjectAliases = nil
		}
		if err := validate.Struct(&in[i]); err != nil {
			shapeErrors(err, p, fe)
		}
	}
	out := make([]memory.FactInput, len(in))
	for i := range in {
		out[i] = in[i].toMemory()
	}
	// Domain rules (exactly one of object and value, valid_to after
	// valid_from…) for every fact that decoded: one that did not is only
	// partly read, and would draw spurious complaints.
	var de *entity.Error
	if err := memory.ValidateFacts(out); errors.As(err, &de) {
		for f, msg := range de.Fields {
			p, _, _ := strings.Cut(f, "].")
			if !bad[p+"]."] {
				fe.Add(f, msg)
			}
		}
	} else if err != nil {
		return nil, err
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// mergeErr adds err's fields to fe, or its message under the field prefix.
func mergeErr(fe entity.FieldErrors, err error, prefix string) {
	var e *entity.Error
	if errors.As(err, &e) && len(e.Fields) > 0 {
		for k, v := range e.Fields {
			fe.Add(k, v)
		}
		return
	}
	fe.Add(strings.TrimSuffix(prefix, "."), entity.ErrorMessage(err))
}

func (f *factInput) toMemory() memory.FactInput {
	return memory.FactInput{
		Subject: f.Subject, SubjectType: f.SubjectType, SubjectAliases: f.SubjectAliases, Predicate: f.Predicate,
		Object: f.Object, ObjectType: f.ObjectType, ObjectAliases: f.ObjectAliases, Value: f.Value, Text: f.Text, SourceKind: entity.SourceKind(deref(f.SourceKind)),
		EpisodeID: f.EpisodeID, Confidence: f.Confidence, Importance: intOf(f.Importance),
		Attributes: f.Attributes, Cardinality: deref(f.Cardinality), StartUnknown: f.StartUnknown,
		ValidFrom: optTime(f.ValidFrom), ValidTo: optTime(f.ValidTo),
	}
}

// parseFactQuery reads the filters of GET /v1/facts.
func parseFactQuery(c *gin.Context) (memory.FactQuery, error) {
	q, err := parseQuery(c, factQuery...)
	if err != nil {
		return memory.FactQuery{}, err
	}
	return memory.FactQuery{
		Subject: q.str("subject"), Predicate: q.str("predicate"), Object: q.str("object"),
		AsOf: q.time("as_of"), KnownAt: q.time("known_at"), IncludeHistory: q.bool("include_history"),
		Limit: q.int("limit"), Cursor: q.str("cursor"),
	}, nil
}

func (s *Server) listFacts(c *gin.Context) {
	fq, err := parseFactQuery(c)
	if err != nil {
		Error(c, err)
		return
	}
	fs, next, err := s.svc.Facts(c.Request.Context(), Scope(c), fq)
	if err != nil {
		Error(c, err)
		return
	}
	c.JSON(http.StatusOK, FactList{Items: wire.NewFacts(fs, fq.AsOf, s.now()), NextCursor: wire.Cursor(next)})
}

func (s *Server) getFact(c *gin.Context) {
	q, err := parseQuery(c, getFactQuery...)
	if err != nil {
		Error(c, err)
		return
	}
	now := s.now()
	knownAt := q.time("known_at")
	if knownAt.IsZero() {
		knownAt = now
	}
	d, err := s.svc.Fact(c.Request.Context(), Scope(c), c.Param("id"), knownAt)
	if err != nil {
		Error(c, err)
		return
	}
	out := FactDetail{Fact: wire.NewFact(d.Fact, now, now), Chain: wire.NewFacts(d.Chain, now, now), Episodes: make([]Episode, len(d.Episodes))}
	for i, e := range d.Episodes {
		out.Episodes[i] = wire.NewEpisode(e)
	}
	c.JSON(http.StatusOK, out)
}

func (s *Server) deleteFact(c *gin.Context) {
	q, err := parseQuery(c, deleteFactQuery...)
	if err != nil {
		Error(c, err)
		return
	}
	switch q.str("mode") {
	case "", "retract":
		f, err := s.svc.Retract(c.Request.Context(), Scope(c), c.Param("id"))
		if err != nil {
			Error(c, err)
			return
		}
		c.JSON(http.StatusOK, wire.NewFact(f, time.Time{}, s.now()))
	default:
		res, err := s.svc.Forget(c.Request.Context(), Scope(c), memory.ForgetRequest{
			FactIDs: []string{c.Param("id")}, Mode: memory.ModeForget, Actor: Actor(c)})
		if err != nil {
			Error(c, err)
			return
		}
		c.JSON(http.StatusOK, forgetResult(res))
	}
}
