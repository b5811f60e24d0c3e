package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/graphmem/graphmem/entity"
)

// Bounds on one JSON-RPC batch at /mcp. The transport accepts an array of
// calls from clients of the 2025-03-26 protocol, and without a bound one
// small body multiplies into hundreds of recalls and a response of
// hundreds of megabytes. A batch holds at most MaxBatchCalls messages, and
// their work — a recall costs one unit per DefaultMaxTokens of its
// max_tokens, a search one per DefaultSearchLimit hits of its limit, any
// other message one — adds up to at most MaxBatchWork units. A single
// call is never bounded here: its own limits apply.
const (
	MaxBatchCalls = 16
	MaxBatchWork  = 32
)

// JSON-RPC's error codes for a request that is not a valid one, and for
// invalid parameters.
const (
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
)

// checkBodies refuses, before the transport reads them, POST bodies that
// are batches over the bounds or hold a string that is not valid UTF-8
// (which the transport would read with U+FFFD in its place, and a tool
// store changed without a word), answering 400 with a JSON-RPC error (no
// id, as the protocol says for a request refused whole). Anything else
// passes on unchanged, its body still whole; a body over maxBody is left
// for the transport to refuse.
func checkBodies(next http.Handler, maxBody int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		if err == nil && int64(len(body)) <= maxBody {
			if path, bad := entity.InvalidJSONText(body); bad {
				writeRefusal(w, codeInvalidParams, path+": must be valid UTF-8", map[string]any{"field": path})
				return
			}
			if msg, data := batchProblem(body); msg != "" {
				writeRefusal(w, codeInvalidRequest, msg, data)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

type readCloser struct {
	io.Reader
	io.Closer
}

// batchProblem says why body, when it is a batch, is over the bounds, or
// "" when it is not. A body that does not parse is the transport's to
// refuse.
func batchProblem(body []byte) (string, map[string]int) {
	body = bytes.TrimLeft(body, " \t\r\n")
	if len(body) == 0 || body[0] != '[' {
		return "", nil
	}
	var calls []json.RawMessage
	if err := json.Unmarshal(body, &calls); err != nil {
		return "", nil
	}
	data := map[string]int{"calls": len(calls), "max_calls": MaxBatchCalls, "max_work": MaxBatchWork}
	if len(calls) > MaxBatchCalls {
		return fmt.Sprintf("batch: at most %d calls in one batch, this one holds %d; send them one by one or in smaller batches",
			MaxBatchCalls, len(calls)), data
	}
	work := 0
	for _, c := range calls {
		work += callWork(c)
	}
	data["work"] = work
	if work > MaxBatchWork {
		return fmt.Sprintf("batch: its calls ask for %d units of work, at most %d in one batch (a context costs one per %d tokens of max_tokens, a search one per %d hits of limit, any other call one)",
			work, MaxBatchWork, entity.DefaultMaxTokens, entity.DefaultSearchLimit), data
	}
	return "", nil
}

// callWork is the cost of one message of a batch (see MaxBatchWork).
// Arguments that do not parse cost one: the tool refuses them.
func callWork(raw json.RawMessage) int {
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name      string `json:"name"`
			Arguments struct {
				MaxTokens float64 `json:"max_tokens"`
				Limit     float64 `json:"limit"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &msg) != nil || msg.Method != "tools/call" {
		return 1
	}
	switch msg.Params.Name {
	case ToolContext, ToolRecall:
		return units(msg.Params.Arguments.MaxTokens, entity.DefaultMaxTokens)
	case ToolSearch:
		return units(msg.Params.Arguments.Limit, entity.DefaultSearchLimit)
	}
	return 1
}

// units is n in units of per, rounded up, at least one and at most one
// more than a batch may hold (so that no value overflows a sum).
func units(n float64, per int) int {
	if !(n > float64(per)) { // NaN, absent, or within one unit
		return 1
	}
	if n > float64(per)*(MaxBatchWork+1) {
		return MaxBatchWork + 1
	}
	u := int(n) / per
	if float64(u*per) < n {
		u++
	}
	return u
}

func writeRefusal[D any](w http.ResponseWriter, code int, msg string, data D) {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": code, "message": msg, "data": data},
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(body)
}
