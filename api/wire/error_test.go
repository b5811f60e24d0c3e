package wire

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/graphmem/graphmem/entity"
)

// TestCodeOf_InvertsStatus: a client that reads a bare status (a proxy's
// answer, a body cut short) gets back the code the server meant, for every
// code of the table.
func TestCodeOf_InvertsStatus(t *testing.T) {
	for code, status := range statuses {
		if got := CodeOf(status); got != code {
			t.Errorf("%s is %d, read back as %s", code, status, got)
		}
		if got := entity.ErrorCode(Err(status, []byte("<html>proxy</html>"))); got != code {
			t.Errorf("a bare %d reads as %s, want %s", status, got, code)
		}
	}
	for status, want := range map[int]entity.Code{
		http.StatusMethodNotAllowed: entity.EMETHOD, http.StatusRequestTimeout: entity.ETIMEOUT,
		http.StatusUnsupportedMediaType: entity.EMEDIATYPE, http.StatusBadGateway: entity.EUNAVAILABLE,
		http.StatusGatewayTimeout: entity.EUNAVAILABLE, http.StatusTeapot: entity.EINVALID, 0: entity.EINTERNAL,
	} {
		if got := CodeOf(status); got != want {
			t.Errorf("%d reads as %s, want %s", status, got, want)
		}
	}
}

// TestErr_KeepsTheErrorShape: fields survive the round trip, and internal
// errors show nothing of their cause.
func TestErr_KeepsTheErrorShape(t *testing.T) {
	in := &entity.Error{Code: entity.EINVALID, Message: "invalid request", Fields: map[string]string{"facts[0].valid_from": entity.TimeMessage}}
	b, _ := json.Marshal(NewErrorBody(in))
	e, ok := Err(Status(in), b).(*entity.Error)
	if !ok || e.Code != entity.EINVALID || e.Fields["facts[0].valid_from"] != entity.TimeMessage {
		t.Errorf("read back %+v", e)
	}
	if body := NewErrorBody(entity.Wrap(entity.EINTERNAL, "store", errors.New("disk on fire"))); body.Error.Message != "internal error" || body.Error.Fields != nil {
		t.Errorf("internal error shown as %+v", body)
	}
}
