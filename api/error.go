package api

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/entity"
)

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
	status := wire.Status(err)
	body := wire.NewErrorBody(err)
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
