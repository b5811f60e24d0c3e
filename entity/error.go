package entity

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Code classifies an Error. The set is closed: adapters translate their own
// failures into one of these at the boundary, and the HTTP layer maps each
// code to a status in one table.
type Code string

// Error codes.
const (
	EINVALID         Code = "invalid_argument"    // the caller sent something malformed
	EUNPROCESSABLE   Code = "failed_precondition" // well-formed, but the state forbids it
	ENOTFOUND        Code = "not_found"
	ECONFLICT        Code = "conflict"
	EUNAUTHENTICATED Code = "unauthenticated"
	EPERMISSION      Code = "permission_denied"
	ETOOLARGE        Code = "too_large"
	EMEDIATYPE       Code = "unsupported_media_type" // a body in a format the operation does not read
	EMETHOD          Code = "method_not_allowed"     // a method the resource does not answer
	ETIMEOUT         Code = "request_timeout"        // the request body did not arrive in time
	ERATELIMIT       Code = "rate_limited"
	EUNAVAILABLE     Code = "unavailable" // a dependency (the store, the model) is down; retry later
	EINTERNAL        Code = "internal"
)

// Error is graphmem's single application error. Fields names offending input
// by JSON path ("facts[0].predicate") so clients can point at the mistake.
type Error struct {
	Code    Code
	Message string
	Fields  map[string]string
	Op      string // the operation that failed, for logs
	Err     error  // the wrapped cause, never shown to clients for EINTERNAL
}

// Errorf returns an Error with the given code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an Error of the given code that wraps err, recording op.
func Wrap(code Code, op string, err error) *Error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Op: op, Message: err.Error(), Err: err}
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	b.WriteString(string(e.Code))
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if len(e.Fields) > 0 {
		keys := make([]string, 0, len(e.Fields))
		for k := range e.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "; %s: %s", k, e.Fields[k])
		}
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the code of the first Error in err's chain, EINTERNAL for
// any other non-nil error, and "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the client-safe message of err: internal errors are
// reported only as "internal error".
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Code != EINTERNAL {
		return e.Message
	}
	return "internal error"
}

// FieldErrors collects per-field problems and turns them into one EINVALID.
type FieldErrors map[string]string

// Add records msg for field unless the field already has a message.
func (f FieldErrors) Add(field, msg string) {
	if _, ok := f[field]; !ok {
		f[field] = msg
	}
}

// Err returns nil when no field has a problem.
func (f FieldErrors) Err() error {
	if len(f) == 0 {
		return nil
	}
	return &Error{Code: EINVALID, Message: "invalid request", Fields: map[string]string(f)}
}
