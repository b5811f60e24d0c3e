package neo4j

import (
	"context"
	"errors"
	"strings"

	neo "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/graphmem/graphmem/entity"
)

// translate turns a driver error into an *entity.Error; errors that already
// are one pass through unchanged.
func translate(op string, err error) error {
	if err == nil {
		return nil
	}
	var ee *entity.Error
	if errors.As(err, &ee) {
		return err
	}
	return &entity.Error{Code: classify(err), Op: op, Message: err.Error(), Err: err}
}

// classify picks the application code of a driver error.
func classify(err error) entity.Code {
	var (
		conn  *neo.ConnectivityError
		limit *neo.TransactionExecutionLimit
		dbErr *neo.Neo4jError
	)
	switch {
	case errors.As(err, &limit):
		// Retries ran out: classify what kept failing.
		if n := len(limit.Errors); n > 0 && limit.Errors[n-1] != nil && limit.Errors[n-1] != err {
			return classify(limit.Errors[n-1])
		}
		return entity.EUNAVAILABLE
	case errors.As(err, &conn):
		return entity.EUNAVAILABLE
	case errors.As(err, &dbErr):
		return classifyCode(dbErr.Code)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		// As on the embedded store: the caller stopped waiting.
		return entity.EUNAVAILABLE
	}
	if connectionMessage(err.Error()) {
		return entity.EUNAVAILABLE
	}
	return entity.EINTERNAL
}

// classifyCode maps a Neo4j status code (Neo.Classification.Category.Title).
func classifyCode(code string) entity.Code {
	switch {
	case code == "Neo.ClientError.Schema.ConstraintValidationFailed":
		return entity.ECONFLICT
	case code == "Neo.ClientError.Cluster.NotALeader",
		code == "Neo.ClientError.General.ForbiddenOnReadOnlyDatabase",
		code == "Neo.ClientError.Database.DatabaseNotFound",
		code == "Neo.TransientError.General.DatabaseUnavailable",
		code == "Neo.ClientError.Security.AuthorizationExpired",
		code == "Neo.ClientError.Security.TokenExpired",
		strings.HasPrefix(code, "Neo.TransientError."):
		// An unavailable or switching database, a lost leader, locks that
		// could not be taken in time: all pass, so callers should retry.
		return entity.EUNAVAILABLE
	}
	return entity.EINTERNAL
}

// internal wraps a failure of this adapter's own code (a record that does
// not decode); nil stays a nil error.
func internal(op string, err error) error {
	if err == nil {
		return nil
	}
	return entity.Wrap(entity.EINTERNAL, op, err)
}

// lostConnection reports whether err says the server or database went
// away, rather than a statement failing.
func lostConnection(err error) bool {
	var (
		conn  *neo.ConnectivityError
		limit *neo.TransactionExecutionLimit
		dbErr *neo.Neo4jError
	)
	switch {
	case errors.As(err, &limit):
		n := len(limit.Errors)
		return n > 0 && limit.Errors[n-1] != nil && limit.Errors[n-1] != err && lostConnection(limit.Errors[n-1])
	case errors.As(err, &conn):
		return true
	case errors.As(err, &dbErr):
		return dbErr.Code == "Neo.TransientError.General.DatabaseUnavailable" ||
			dbErr.Code == "Neo.ClientError.Database.DatabaseNotFound"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	}
	return connectionMessage(err.Error())
}

// connectionMessage recognises connection failures the driver has not
// wrapped as a ConnectivityError.
func connectionMessage(msg string) bool {
	for _, s := range []string{"connection refused", "ConnectivityError", "broken pipe", "connection reset", "i/o timeout", "EOF"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
