package neo4j

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	neo "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/graphmem/graphmem/entity"
)

func TestTranslate(t *testing.T) {
	own := &entity.Error{Code: entity.ENOTFOUND, Message: "fact not found"}
	for _, tc := range []struct {
		name string
		err  error
		want entity.Code
	}{
		{"connectivity", &neo.ConnectivityError{Inner: io.EOF}, entity.EUNAVAILABLE},
		{"wrapped connectivity", fmt.Errorf("run: %w", &neo.ConnectivityError{Inner: io.EOF}), entity.EUNAVAILABLE},
		{"database unavailable", &neo.Neo4jError{Code: "Neo.TransientError.General.DatabaseUnavailable"}, entity.EUNAVAILABLE},
		{"deadlock", &neo.Neo4jError{Code: "Neo.TransientError.Transaction.DeadlockDetected"}, entity.EUNAVAILABLE},
		{"not a leader", &neo.Neo4jError{Code: "Neo.ClientError.Cluster.NotALeader"}, entity.EUNAVAILABLE},
		{"constraint", &neo.Neo4jError{Code: "Neo.ClientError.Schema.ConstraintValidationFailed"}, entity.ECONFLICT},
		{"syntax", &neo.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError"}, entity.EINTERNAL},
		{"retries ran out on an outage", &neo.TransactionExecutionLimit{Cause: "timeout", Errors: []error{
			&neo.ConnectivityError{Inner: io.EOF}}}, entity.EUNAVAILABLE},
		{"retries ran out on a syntax error", &neo.TransactionExecutionLimit{Cause: "timeout", Errors: []error{
			&neo.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError"}}}, entity.EINTERNAL},
		{"deadline", context.DeadlineExceeded, entity.EUNAVAILABLE},
		{"cancelled", context.Canceled, entity.EUNAVAILABLE},
		{"unknown", errors.New("something else"), entity.EINTERNAL},
		{"already an application error", own, entity.ENOTFOUND},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := translate("op", tc.err)
			if got := entity.ErrorCode(err); got != tc.want {
				t.Errorf("translate(%v) = %v (code %q), want %q", tc.err, err, got, tc.want)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("translate(%v) = %v does not wrap the cause", tc.err, err)
			}
		})
	}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&neo.ConnectivityError{Inner: io.EOF}, true},
		{&neo.Neo4jError{Code: "Neo.TransientError.General.DatabaseUnavailable"}, true},
		{&neo.TransactionExecutionLimit{Errors: []error{&neo.ConnectivityError{Inner: io.EOF}}}, true},
		{&neo.Neo4jError{Code: "Neo.TransientError.Transaction.DeadlockDetected"}, false},
		{&neo.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError"}, false},
		{context.Canceled, false},
		{errors.New("dial tcp 127.0.0.1:7687: connect: connection refused"), true},
	} {
		if got := lostConnection(tc.err); got != tc.want {
			t.Errorf("lostConnection(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
	if translate("op", nil) != nil {
		t.Error("translate(nil) is not nil")
	}
	if internal("op", nil) != nil {
		t.Error("internal(nil) is not nil")
	}
}
