package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/graphmem/graphmem/entity"
)

// statuses maps each application error code to its HTTP status: the one
// place where the two meet.
var statuses = map[entity.Code]int{
	entity.EINVALID:         http.StatusBadRequest,
	entity.EUNAUTHENTICATED: http.StatusUnauthorized,
	entity.EPERMISSION:      http.StatusForbidden,
	entity.ENOTFOUND:        http.StatusNotFound,
	entity.ECONFLICT:        http.StatusConflict,
	entity.ETOOLARGE:        http.StatusRequestEntityTooLarge,
	entity.EMEDIATYPE:       http.StatusUnsupportedMediaType,
	entity.EMETHOD:          http.StatusMethodNotAllowed,
	entity.ETIMEOUT:         http.StatusRequestTimeout,
	entity.EUNPROCESSABLE:   http.StatusUnprocessableEntity,
	entity.ERATELIMIT:       http.StatusTooManyRequests,
	entity.EUNAVAILABLE:     http.StatusServiceUnavailable,
	entity.EINTERNAL:        http.StatusInternalServerError,
}

// Status returns the HTTP status of err's code.
func Status(err error) int {
	if s, ok := statuses[entity.ErrorCode(err)]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// CodeOf is the error code of an HTTP error status: the inverse of Status,
// with the other 4xx read as EINVALID and gateway failures as EUNAVAILABLE.
// A client reads it when an answer does not carry the error shape (a
// proxy's, or a body cut short).
func CodeOf(status int) entity.Code {
	for c, st := range statuses {
		if st == status && c != entity.EINTERNAL {
			return c
		}
	}
	switch {
	case status == http.StatusBadGateway || status == http.StatusGatewayTimeout:
		return entity.EUNAVAILABLE
	case status/100 == 4:
		return entity.EINVALID
	}
	return entity.EINTERNAL
}

// ErrorBody is the one error shape of docs/design.md §6.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the content of ErrorBody. Fields names offending input by
// JSON path ("facts[0].predicate") or query parameter.
type ErrorDetail struct {
	Code    entity.Code       `json:"code"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields,omitempty"`
}

// NewErrorBody is err as a client sees it: internal errors only as
// "internal error", without fields.
func NewErrorBody(err error) ErrorBody {
	body := ErrorBody{Error: ErrorDetail{Code: entity.ErrorCode(err), Message: entity.ErrorMessage(err)}}
	var e *entity.Error
	if errors.As(err, &e) && e.Code != entity.EINTERNAL {
		body.Error.Fields = e.Fields
	}
	if body.Error.Code == "" {
		body.Error.Code = entity.EINTERNAL
	}
	return body
}

// Err turns an error answer back into an *entity.Error: the code, message
// and fields of body when it has the error shape, else a code read from
// the status alone (CodeOf).
func Err(status int, body []byte) error {
	var b ErrorBody
	if json.Unmarshal(body, &b) == nil && b.Error.Code != "" {
		return &entity.Error{Code: b.Error.Code, Message: b.Error.Message, Fields: b.Error.Fields}
	}
	return &entity.Error{Code: CodeOf(status), Message: fmt.Sprintf("the server answered %d %s", status, http.StatusText(status))}
}

// Headers graphmem reads or writes.
const (
	// RequestIDHeader carries the request id: the client's if it sent a
	// well-formed one, else a generated one; echoed in every answer.
	RequestIDHeader = "X-Request-Id"
	// ScopeHeader picks one of the scopes the caller's key may use.
	ScopeHeader = "X-Graphmem-Scope"
)

// NDJSON is the media type of JSON Lines (export and import).
const NDJSON = "application/x-ndjson"
