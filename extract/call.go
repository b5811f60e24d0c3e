package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/graphmem/graphmem/entity"
)

// modes in fallback order.
var modes = []string{ModeJSONSchema, ModeJSONObjectSchema, ModeJSONObject, ModeText}

// endpointMode is what the process learned about one endpoint and model:
// the response format to start with, and whether the one that works was
// logged yet.
type endpointMode struct {
	level  atomic.Int32
	logged atomic.Bool
}

// learned holds an endpointMode per base URL and model, for the life of the
// process, so every Extractor for the same server skips refused formats.
var learned sync.Map

func modeLevel(m string) int {
	for i, s := range modes {
		if s == m {
			return i
		}
	}
	return 0
}

// complete makes one logical call: it sends msgs in *mode, retrying
// transient failures (network errors, 408, 429, 502, 503, 504 and a 500
// without a validation error) with backoff, and stepping down at once to
// the next response format when the server refuses the current one, with
// whatever status (then *mode says which was used). Other failures are
// deterministic and end the call. It returns the answer's text.
func (x *Extractor) complete(ctx context.Context, msgs []openai.ChatCompletionMessageParamUnion, mode *string, u *Usage) (string, error) {
	const op = "extract.Extract"
	retries := 0
	for {
		u.Calls++
		callCtx, cancel := context.WithTimeout(ctx, x.cfg.Timeout)
		var res *http.Response
		params, opts := x.params(msgs, *mode)
		cc, err := x.client.Chat.Completions.New(callCtx, params, append(opts, option.WithResponseInto(&res))...)
		cancel()
		if err == nil {
			u.PromptTokens += cc.Usage.PromptTokens
			u.CompletionTokens += cc.Usage.CompletionTokens
			if !x.learned.logged.Swap(true) {
				x.log.Info("extract: endpoint answers in this response format",
					"base_url", x.cfg.BaseURL, "model", x.cfg.Model, "mode", *mode)
			}
			if len(cc.Choices) == 0 {
				return "", nil // judged (and repaired) like any empty answer
			}
			m := cc.Choices[0].Message
			if m.Content == "" && m.Refusal != "" {
				return "", &entity.Error{Code: entity.EUNPROCESSABLE, Op: op,
					Message: "the model refused: " + clip(m.Refusal, 200)}
			}
			return m.Content, nil
		}
		if ctx.Err() != nil {
			return "", &entity.Error{Code: entity.EUNAVAILABLE, Op: op,
				Message: "extraction stopped: " + ctx.Err().Error(), Err: ctx.Err()}
		}

		status, header, body := failure(res, err)
		switch {
		case x.pinned < 0 && modeLevel(*mode) < len(modes)-1 && status != 0 && mentionsResponseFormat(body):
			next := modes[modeLevel(*mode)+1]
			x.log.Warn("extract: server refused the response format, falling back",
				"from", *mode, "to", next, "status", status)
			*mode = next
			x.lowerMode(next)
			continue
		case status == http.StatusUnauthorized, status == http.StatusForbidden, status == http.StatusNotFound:
			// A wrong key, model or URL: nothing this episode can change,
			// but the operator can, so the queue should retry later.
			return "", &entity.Error{Code: entity.EUNAVAILABLE, Op: op,
				Message: fmt.Sprintf("model endpoint refused the call (%d): %s", status, summary(body, err)), Err: err}
		case transient(status, body):
			// retried below
		default:
			return "", &entity.Error{Code: entity.EUNPROCESSABLE, Op: op,
				Message: fmt.Sprintf("model endpoint rejected the request (%d): %s", status, summary(body, err)), Err: err}
		}

		what := "network error"
		if status != 0 {
			what = "status " + strconv.Itoa(status)
		}
		if retries >= x.cfg.MaxRetries {
			return "", &entity.Error{Code: entity.EUNAVAILABLE, Op: op,
				Message: fmt.Sprintf("model endpoint failing after %d calls, last: %s: %s", retries+1, what, summary(body, err)), Err: err}
		}
		delay := backoff(x.cfg.RetryBaseDelay, x.cfg.RetryMaxDelay, retries)
		if ra, ok := retryAfter(header, time.Now()); ok {
			if ra > x.cfg.RetryMaxDelay {
				return "", &entity.Error{Code: entity.EUNAVAILABLE, Op: op,
					Message: fmt.Sprintf("model endpoint asks to wait %s (%s), longer than the %s allowed", ra, what, x.cfg.RetryMaxDelay), Err: err}
			}
			delay = ra
		}
		x.log.Info("extract: retrying", "after", delay, "cause", what, "retry", retries+1)
		if serr := x.sleep(ctx, delay); serr != nil {
			return "", &entity.Error{Code: entity.EUNAVAILABLE, Op: op,
				Message: "extraction stopped: " + serr.Error(), Err: serr}
		}
		retries++
	}
}

// transient reports whether a failed call may succeed when sent again:
// no answer at all, 408, 429, 502, 503, 504, or a 500 that is not a
// validation error (servers built on FastAPI answer those with 500).
func transient(status int, body string) bool {
	switch status {
	case 0, http.StatusRequestTimeout, http.StatusTooManyRequests,
		http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	case http.StatusInternalServerError:
		return !validationError(body)
	}
	return false
}

// validationError reports whether an error body says the request itself
// was invalid, as pydantic-based servers phrase it.
func validationError(body string) bool {
	b := strings.ToLower(body)
	return strings.Contains(b, "validation error") || strings.Contains(b, "literal_error")
}

// lowerMode remembers, for every Extractor of this endpoint and model, that
// the server needs mode m or simpler.
func (x *Extractor) lowerMode(m string) {
	for {
		cur := x.learned.level.Load()
		if int(cur) >= modeLevel(m) || x.learned.level.CompareAndSwap(cur, int32(modeLevel(m))) {
			return
		}
	}
}

// The schemas go out as written: a map would be marshalled with its keys
// sorted, and a server that compiles the schema into a grammar makes the
// model write the properties in the schema's order (subject first, not
// attributes).
var (
	schemaJSON  = json.RawMessage(answerSchema)
	grammarJSON = json.RawMessage(grammarSchema)
)

// params builds the request for mode, with the request options it needs
// beyond what the SDK's types can say (top_k, the schema of a json_object
// format).
func (x *Extractor) params(msgs []openai.ChatCompletionMessageParamUnion, mode string) (openai.ChatCompletionNewParams, []option.RequestOption) {
	p := openai.ChatCompletionNewParams{Model: x.cfg.Model, Messages: msgs}
	var opts []option.RequestOption
	if x.cfg.Temperature != nil {
		p.Temperature = openai.Float(*x.cfg.Temperature)
	}
	if x.cfg.TopP != nil {
		p.TopP = openai.Float(*x.cfg.TopP)
	}
	if x.cfg.Seed != nil {
		p.Seed = openai.Int(*x.cfg.Seed)
	}
	if x.cfg.TopK > 0 {
		opts = append(opts, option.WithJSONSet("top_k", x.cfg.TopK))
	}
	if x.cfg.MaxTokens > 0 {
		p.MaxTokens = openai.Int(int64(x.cfg.MaxTokens))
	}
	schema, grammar := schemaJSON, grammarJSON
	if x.cfg.Prompt == PromptCompact {
		schema, grammar = compactSchemaJSON, compactGrammarJSON
	}
	switch mode {
	case ModeJSONSchema:
		p.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
				Name:        schemaName,
				Description: openai.String("Entities and dated facts extracted from one episode."),
				Strict:      openai.Bool(true),
				Schema:      schema,
			},
		}
	case ModeJSONObjectSchema:
		p.ResponseFormat.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
		opts = append(opts, option.WithJSONSet("response_format.schema", grammar))
	case ModeJSONObject:
		p.ResponseFormat.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
	}
	return p, opts
}

// failure gets the status, headers and body of a failed call. The SDK keeps
// the response even on error and refills its body, so this works whether or
// not the server's error body had the usual {"error": {...}} shape.
func failure(res *http.Response, err error) (int, http.Header, string) {
	var status int
	var header http.Header
	var body string
	if res != nil {
		status, header = res.StatusCode, res.Header
		if res.Body != nil {
			b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
			body = string(b)
		}
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		if status == 0 {
			status = apiErr.StatusCode
		}
		if header == nil && apiErr.Response != nil {
			header = apiErr.Response.Header
		}
		if body == "" {
			body = apiErr.RawJSON()
		}
	}
	return status, header, body
}

// mentionsResponseFormat reports whether an error body blames the
// structured-output request, the way OpenAI, vLLM, Ollama and llama.cpp
// phrase it.
func mentionsResponseFormat(body string) bool {
	b := strings.ToLower(body)
	for _, s := range []string{"response_format", "json_object", "schema", "structured output", "response format"} {
		if strings.Contains(b, s) {
			return true
		}
	}
	return false
}

// summary is a short, single-line description of a failure for messages
// that may end up on the episode.
func summary(body string, err error) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := ""
	if json.Unmarshal([]byte(body), &e) == nil && e.Error.Message != "" {
		msg = e.Error.Message
	} else if strings.TrimSpace(body) != "" {
		msg = body
	} else if err != nil {
		msg = err.Error()
	}
	msg = strings.Join(strings.Fields(msg), " ")
	return clip(msg, 200)
}

// retryAfter reads how long the server asks us to wait: retry-after-ms
// (OpenAI's), then Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// BareCall sends one minimal chat completion — a one-line prompt, a few
// tokens back, no response format — with the Extractor's client and
// settings: what a call to the endpoint costs by itself, for baselines.
func (x *Extractor) BareCall(ctx context.Context) error {
	callCtx, cancel := context.WithTimeout(ctx, x.cfg.Timeout)
	defer cancel()
	_, err := x.client.Chat.Completions.New(callCtx, openai.ChatCompletionNewParams{
		Model:     x.cfg.Model,
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Reply with the word OK.")},
		MaxTokens: openai.Int(4),
	})
	if err != nil {
		return &entity.Error{Code: entity.EUNAVAILABLE, Op: "extract.BareCall", Message: "model endpoint: " + err.Error(), Err: err}
	}
	return nil
}
