package extracttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/graphmem/graphmem/entity"
)

// Request is one request the fake received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
	// Params is Body decoded; zero when Body was not JSON.
	Params Params
}

// Params is the part of a chat-completions request body tests look at.
type Params struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	ResponseFormat *ResponseFormat `json:"response_format"`
	Temperature    *float64        `json:"temperature"`
	TopP           *float64        `json:"top_p"`
	TopK           *int            `json:"top_k"`
	Seed           *int64          `json:"seed"`
	MaxTokens      *int64          `json:"max_tokens"`
}

// Message is one chat message; Content is the text whether it was sent as a
// string or as text parts.
type Message struct {
	Role    string
	Content string
}

// UnmarshalJSON accepts both content forms of the protocol.
func (m *Message) UnmarshalJSON(b []byte) error {
	var raw struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	m.Role = raw.Role
	if len(raw.Content) == 0 || string(raw.Content) == "null" {
		return nil
	}
	if raw.Content[0] == '"' {
		return json.Unmarshal(raw.Content, &m.Content)
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw.Content, &parts); err != nil {
		return err
	}
	var b2 strings.Builder
	for _, p := range parts {
		b2.WriteString(p.Text)
	}
	m.Content = b2.String()
	return nil
}

// ResponseFormat is the request's response_format.
type ResponseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string          `json:"name"`
		Strict bool            `json:"strict"`
		Schema json.RawMessage `json:"schema"`
	} `json:"json_schema"`
	// Schema is a schema attached to a json_object format, the way
	// llama.cpp servers take one.
	Schema json.RawMessage `json:"schema"`
}

// Format returns the response_format type ("json_schema", "json_object",
// "text"), or "" when the request had none.
func (r Request) Format() string {
	if r.Params.ResponseFormat == nil {
		return ""
	}
	return r.Params.ResponseFormat.Type
}

// Prompt returns every message's content, one after the other.
func (r Request) Prompt() string {
	var b strings.Builder
	for _, m := range r.Params.Messages {
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}

// Reply scripts one answer of the fake.
type Reply struct {
	// Status defaults to 200.
	Status int
	// Header is added to the response (e.g. Retry-After).
	Header map[string]string
	// Content is the assistant message of a 200 answer.
	Content string
	// FinishReason defaults to "stop".
	FinishReason string
	// PromptTokens and CompletionTokens override the usage the fake reports
	// (by default about one token per four characters).
	PromptTokens, CompletionTokens int64
	// Body, when set, is sent verbatim instead of a generated body.
	Body string
	// Hangup closes the connection without any answer.
	Hangup bool
	// Stall answers nothing until the client gives up.
	Stall bool
}

// Handler picks the reply to the n-th call (0-based).
type Handler func(n int, req Request) Reply

// Server is the fake endpoint.
type Server struct {
	*httptest.Server
	handler Handler
	mu      sync.Mutex
	reqs    []Request
}

// NewServer starts a fake that answers with h and stops it when the test
// ends.
func NewServer(t testing.TB, h Handler) *Server {
	t.Helper()
	s := Start(h)
	t.Cleanup(s.Close)
	return s
}

// Start starts a fake on a loopback port that answers with h, outside a Go
// test (tests of other languages run it as a process); the caller closes it.
func Start(h Handler) *Server {
	s := &Server{handler: h}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the base URL a client is configured with: the server's URL
// plus "/v1", as for OpenAI, Ollama, vLLM and llama.cpp. The fake also
// answers on "/chat/completions" at the root, for base URLs without a
// version path.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests returns a copy of every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Calls returns how many requests were received.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

// Reset forgets the recorded requests; the call numbering starts again.
func (s *Server) Reset() {
	s.mu.Lock()
	s.reqs = nil
	s.mu.Unlock()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	_ = json.Unmarshal(body, &req.Params)
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()

	if r.Method != http.MethodPost || (r.URL.Path != "/v1/chat/completions" && r.URL.Path != "/chat/completions") {
		writeError(w, http.StatusNotFound, "invalid_request_error", "", fmt.Sprintf("Unknown request URL: %s %s", r.Method, r.URL.Path))
		return
	}
	rep := s.handler(n, req)
	switch {
	case rep.Hangup:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case rep.Stall:
		<-r.Context().Done()
		return
	}
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.Header().Set("Content-Type", "application/json")
	if rep.Body != "" {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, rep.Body)
		return
	}
	if status != http.StatusOK {
		writeError(w, status, "server_error", "", http.StatusText(status))
		return
	}
	finish := rep.FinishReason
	if finish == "" {
		finish = "stop"
	}
	pt, ct := rep.PromptTokens, rep.CompletionTokens
	if pt == 0 {
		pt = int64(utf8.RuneCountInString(req.Prompt()))/4 + 1
	}
	if ct == 0 {
		ct = int64(utf8.RuneCountInString(rep.Content))/4 + 1
	}
	model := req.Params.Model
	if model == "" {
		model = "fake-model"
	}
	resp := map[string]any{
		"id":      fmt.Sprintf("chatcmpl-fake-%d", n+1),
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   model,
		"choices": []any{map[string]any{
			"index": 0,
			"message": map[string]any{
				"role":    "assistant",
				"content": rep.Content,
				"refusal": nil,
			},
			"logprobs":      nil,
			"finish_reason": finish,
		}},
		"usage": map[string]any{
			"prompt_tokens":     pt,
			"completion_tokens": ct,
			"total_tokens":      pt + ct,
		},
		"system_fingerprint": "fp_fake",
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(resp)
}

func writeError(w http.ResponseWriter, status int, typ, param, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, errorBody(typ, param, msg))
}

// errorBody is an OpenAI-shaped error body.
func errorBody(typ, param, msg string) string {
	var p any
	if param != "" {
		p = param
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": p, "code": nil,
	}})
	return string(b)
}

// Sequence answers the n-th call with replies[n]; calls past the end get
// the last reply.
func Sequence(replies ...Reply) Handler {
	return func(n int, _ Request) Reply {
		if n >= len(replies) {
			n = len(replies) - 1
		}
		return replies[n]
	}
}

// Always answers every call with r.
func Always(r Reply) Handler {
	return func(int, Request) Reply { return r }
}

// Answer is a 200 answer whose message content is s.
func Answer(s string) Reply { return Reply{Content: s} }

// Error is an error status with an OpenAI-shaped body.
func Error(status int, msg string) Reply {
	return Reply{Status: status, Body: errorBody("server_error", "", msg)}
}

// ServerError is a 500 as OpenAI sends it.
func ServerError() Reply {
	return Error(http.StatusInternalServerError, "The server had an error while processing your request. Sorry about that!")
}

// RateLimited is a 429 asking to wait retryAfter (seconds, or an HTTP date).
func RateLimited(retryAfter string) Reply {
	r := Reply{Status: http.StatusTooManyRequests,
		Body: errorBody("requests", "", "Rate limit reached for requests. Please try again later.")}
	if retryAfter != "" {
		r.Header = map[string]string{"Retry-After": retryAfter}
	}
	return r
}

// Garbled is a 200 whose content is not the requested JSON: cut-off JSON
// followed by chatter, as a model that ignored the format produces.
func Garbled() Reply {
	return Answer(`Sure! Here are the facts I found: {"entities": [{"name": "production database", "type": "servi`)
}

// RejectSchema is the 400 a server without structured outputs answers to a
// json_schema response format.
func RejectSchema() Reply {
	return Reply{Status: http.StatusBadRequest, Body: errorBody("invalid_request_error", "response_format",
		"Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.")}
}

// LlamaCppPython answers like llama-cpp-python's server: a json_schema
// response format is refused with a 500 carrying a pydantic validation
// error, while json_object (with or without a schema) and plain requests
// get the reply h gives.
func LlamaCppPython(h Handler) Handler {
	return func(n int, req Request) Reply {
		if req.Format() == "json_schema" {
			return RejectSchemaWith500()
		}
		return h(n, req)
	}
}

// RejectSchemaWith500 is the answer of llama-cpp-python's server to a
// json_schema response format: status 500 and a validation error.
func RejectSchemaWith500() Reply {
	return Reply{Status: http.StatusInternalServerError, Body: errorBody("internal_server_error", "",
		`1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': "Input should be 'text' or 'json_object'", 'input': 'json_schema', 'ctx': {'expected': "'text' or 'json_object'"}}`)}
}

// Fixture is a scripted model answer kept in fixtures/llm, with the episode
// it answers.
type Fixture struct {
	// Note says what the fixture shows.
	Note string `json:"note"`
	// Episode and Known are the extraction's input.
	Episode entity.Episode  `json:"episode"`
	Known   []entity.Entity `json:"known,omitempty"`
	// Answer is the model's message content: the JSON object it returns.
	Answer json.RawMessage `json:"answer"`
}

// Reply answers with the fixture's answer.
func (f Fixture) Reply() Reply { return Answer(string(f.Answer)) }

// FixtureDir is the folder of the scripted answers, found from this source
// file so tests of any package can use it.
func FixtureDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "fixtures", "llm")
}

// LoadFixture reads fixtures/llm/name (".json" may be left out).
func LoadFixture(t testing.TB, name string) Fixture {
	t.Helper()
	if !strings.HasSuffix(name, ".json") {
		name += ".json"
	}
	b, err := os.ReadFile(filepath.Join(FixtureDir(), name))
	if err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	var f Fixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	if len(f.Answer) == 0 {
		t.Fatalf("fixture %s: no answer", name)
	}
	return f
}

// Fixtures lists the names of every fixture.
func Fixtures(t testing.TB) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(FixtureDir(), "*.json"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no fixtures in %s: %v", FixtureDir(), err)
	}
	names := make([]string, len(m))
	for i, p := range m {
		names[i] = strings.TrimSuffix(filepath.Base(p), ".json")
	}
	return names
}

// Episode returns the episode content of an extraction request: the text
// between the "<<<" and ">>>" lines of its first user message, or "" when
// it has none.
func (r Request) Episode() string {
	for _, m := range r.Params.Messages {
		if m.Role != "user" {
			continue
		}
		_, rest, ok := strings.Cut(m.Content, "\n<<<\n")
		if !ok {
			return ""
		}
		body, _, ok := strings.Cut(rest, "\n>>>\n")
		if !ok {
			return ""
		}
		return body
	}
	return ""
}

// Empty is the answer with nothing to remember.
const Empty = `{"entities": [], "facts": []}`

// Scripted answers extraction requests by their episode's content:
// answers[content][k] answers the request that already holds k answers of
// the model (0 for the first call, 1 for the repair call), the last one
// when there are fewer. Other requests get Empty.
func Scripted(answers map[string][]string) Handler {
	return func(_ int, req Request) Reply {
		as := answers[req.Episode()]
		if len(as) == 0 {
			return Answer(Empty)
		}
		k := 0
		for _, m := range req.Params.Messages {
			if m.Role == "assistant" {
				k++
			}
		}
		return Answer(as[min(k, len(as)-1)])
	}
}
