package api

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"

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

// ErrorBody is the one error shape of DESIGN §6.
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

// statusClientClosed is recorded for requests whose client left before
// the answer (a common convention; never seen by a client).
const statusClientClosed = 499

// retryAfter is the delay suggested to clients when a dependency is down.
const retryAfter = "1"

// Error renders err in the one error shape with its status and aborts the
// request. Internal errors are logged with the request id and shown only as
// "internal error"; their cause never reaches the client.
func Error(c *gin.Context, err error) {
	if c.Request.Context().Err() != nil && errors.Is(err, c.Request.Context().Err()) {
		// The client went away: nobody reads the answer, and it is not a
		// server fault to count or log as one.
		c.Set(ctxErrorCode, "client_closed_request")
		c.AbortWithStatus(statusClientClosed)
		return
	}
	status := Status(err)
	body := ErrorBody{Error: ErrorDetail{Code: entity.ErrorCode(err), Message: entity.ErrorMessage(err)}}
	var e *entity.Error
	if errors.As(err, &e) && e.Code != entity.EINTERNAL {
		body.Error.Fields = e.Fields
	}
	if body.Error.Code == "" {
		body.Error.Code = entity.EINTERNAL
	}
	switch {
	case status >= 500:
		logger(c).LogAttrs(c.Request.Context(), slog.LevelError, "request failed",
			slog.String("error", err.Error()), slog.Int("status", status))
	default:
		// Kept for the request log line: what went wrong, in one word.
		c.Set(ctxErrorCode, string(body.Error.Code))
	}
	if (status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests) && c.Writer.Header().Get("Retry-After") == "" {
		c.Header("Retry-After", retryAfter)
	}
	if status == http.StatusUnauthorized {
		c.Header("WWW-Authenticate", `Bearer realm="graphmem"`)
	}
	c.AbortWithStatusJSON(status, body)
}

// mediaTypeError refuses a request body of another media type than want.
func mediaTypeError(want string) error {
	return &entity.Error{Code: entity.EMEDIATYPE, Message: "unsupported media type",
		Fields: map[string]string{"Content-Type": "must be " + want}}
}

// invalid returns an EINVALID error for one field.
func invalid(field, msg string) error {
	return &entity.Error{Code: entity.EINVALID, Message: "invalid request", Fields: map[string]string{field: msg}}
}

// codeOf is the error code of an HTTP error status: the inverse of the
// statuses table, with the other 4xx read as EINVALID and gateway
// failures as EUNAVAILABLE.
func codeOf(status int) entity.Code {
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
