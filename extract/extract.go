package extract

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/ontology"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultTimeout        = 60 * time.Second
	DefaultMaxTokens      = 4096
	DefaultMaxRetries     = 4
	DefaultRetryBaseDelay = 500 * time.Millisecond
	DefaultRetryMaxDelay  = 30 * time.Second
	DefaultMaxKnown       = 50
	DefaultImportance     = 5
)

// Response formats the Extractor asks for, in fallback order; ModeAuto
// starts with the first and steps down when the server refuses one.
const (
	ModeAuto             = "auto"
	ModeJSONSchema       = "json_schema"        // structured outputs, strict schema
	ModeJSONObjectSchema = "json_object_schema" // JSON mode with the schema attached (llama.cpp servers)
	ModeJSONObject       = "json_object"        // JSON mode: valid JSON, shape checked by us
	ModeText             = "text"               // no response_format; the prompt asks for the JSON object
)

// Config says which endpoint and model to use and how patiently.
type Config struct {
	// BaseURL of the OpenAI-compatible API, including its version path:
	// "https://api.openai.com/v1", "http://127.0.0.1:11434/v1" (Ollama),
	// "http://127.0.0.1:8000/v1" (vLLM), "http://127.0.0.1:8080/v1"
	// (llama.cpp server), "https://NAME.openai.azure.com/openai/v1" (Azure,
	// with WithRequestOptions(option.WithHeader("api-key", key)) when it
	// wants its own header). Required.
	BaseURL string
	// Model name as the endpoint knows it. Required.
	Model string
	// APIKey is sent as a bearer token; local servers usually need none.
	APIKey string
	// Timeout bounds each call (not the whole Extract); default 60s. A call
	// that times out is retried like a network failure.
	Timeout time.Duration
	// MaxRetries is how many times a call failing with 429, 5xx or a network
	// error is repeated; default 4. Negative means none.
	MaxRetries int
	// RetryBaseDelay and RetryMaxDelay shape the backoff: base·2^attempt,
	// capped at RetryMaxDelay, with jitter. A Retry-After longer than
	// RetryMaxDelay ends the retries (EUNAVAILABLE) rather than holding a
	// worker: the episode queue retries later. Defaults 500ms and 30s.
	RetryBaseDelay time.Duration
	RetryMaxDelay  time.Duration
	// MaxKnown caps how many known entities go into the prompt; default 50.
	MaxKnown int
	// Mode is the response format: ModeAuto ("" too) finds the one the
	// server accepts; any other mode is pinned, for servers that misreport
	// what they support, and a refusal of it fails the call.
	Mode string
	// MaxTokens caps the completion of each call (sent as max_tokens), so a
	// model that will not stop cannot hold a worker, or a local server, for
	// minutes; default DefaultMaxTokens. Negative sends no cap, for models
	// that refuse the field.
	MaxTokens int
	// Temperature, TopP and TopK are the sampling settings, sent as given
	// when set; unset (nil, 0), the server's defaults hold, because some
	// models reject any value but their own. Small local models loop at a
	// server's low default temperature and need their makers' values
	// (Gemma 3: temperature 1.0, top_k 64, top_p 0.95). top_k is not part
	// of OpenAI's API; llama.cpp, vLLM and LM Studio read it.
	Temperature *float64
	TopP        *float64
	TopK        int
	// Prompt is the prompt style: PromptFull ("" too) or PromptCompact,
	// for small local models.
	Prompt string
	// Seed, when set, is sent as seed with every call, so a server that
	// samples (llama.cpp, vLLM, Ollama) gives the same answer to the same
	// prompt: repeatable evaluations and tests against a sampling model.
	Seed *int64
}

// Option changes an Extractor built by New.
type Option func(*Extractor)

// WithHTTPClient sets the HTTP client used for calls (proxies, TLS).
func WithHTTPClient(c *http.Client) Option {
	return func(x *Extractor) { x.httpClient = c }
}

// WithRequestOptions adds SDK request options after the Extractor's own, e.g.
// azure.WithEndpoint or extra headers. Do not add option.WithMaxRetries: the
// Extractor's retry loop must stay the only one for Usage.Calls to be exact.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return func(x *Extractor) { x.reqOpts = append(x.reqOpts, opts...) }
}

// WithSleep replaces the wait between retries; tests use it to record the
// delays instead of sleeping. The function must return ctx.Err() when ctx
// ends first.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(x *Extractor) { x.sleep = sleep }
}

// WithLogger sets where retries, fallbacks, repairs and drops are logged.
func WithLogger(l *slog.Logger) Option {
	return func(x *Extractor) { x.log = l }
}

// WithOntology sets the ontology used when Input.Ontology is nil; the
// default is ontology.Default().
func WithOntology(o *ontology.Ontology) Option {
	return func(x *Extractor) { x.onto = o }
}

// Extractor extracts entities and facts from episodes. It is safe for
// concurrent use.
type Extractor struct {
	cfg        Config
	client     openai.Client
	httpClient *http.Client
	reqOpts    []option.RequestOption
	sleep      func(context.Context, time.Duration) error
	log        *slog.Logger
	onto       *ontology.Ontology
	// sys caches the system prompt of the last ontology seen: it is the
	// same for every episode, which also lets servers with prompt caching
	// reuse it.
	sys atomic.Pointer[sysPrompt]
	// learned holds the index in modes of the response format to start
	// with; it only goes down the list, once the server has refused a
	// format, so later episodes do not pay for the refusal again. It is
	// shared by the Extractors of the same endpoint and model.
	learned *endpointMode
	// pinned is the index in modes of Config.Mode, or -1 for ModeAuto.
	pinned int
}

// New checks cfg, fills its defaults and returns an Extractor. It returns
// EINVALID when BaseURL or Model is missing or BaseURL is not a URL.
func New(cfg Config, opts ...Option) (*Extractor, error) {
	fe := entity.FieldErrors{}
	cfg.BaseURL = strings.TrimSpace(cfg.BaseURL)
	cfg.Model = strings.TrimSpace(cfg.Model)
	if cfg.BaseURL == "" {
		fe.Add("base_url", "required")
	} else if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		fe.Add("base_url", "must be an http or https URL")
	}
	if cfg.Model == "" {
		fe.Add("model", "required")
	}
	cfg.Mode = strings.TrimSpace(cfg.Mode)
	pinned := -1
	if cfg.Mode != "" && cfg.Mode != ModeAuto {
		if pinned = slices.Index(modes, cfg.Mode); pinned < 0 {
			fe.Add("mode", "must be one of auto, "+strings.Join(modes, ", "))
		}
	}
	switch cfg.Prompt = strings.TrimSpace(cfg.Prompt); cfg.Prompt {
	case "":
		cfg.Prompt = PromptFull
	case PromptFull, PromptCompact:
	default:
		fe.Add("prompt", "must be full or compact")
	}
	if err := fe.Err(); err != nil {
		err.(*entity.Error).Op = "extract.New"
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	} else if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.RetryBaseDelay <= 0 {
		cfg.RetryBaseDelay = DefaultRetryBaseDelay
	}
	if cfg.RetryMaxDelay <= 0 {
		cfg.RetryMaxDelay = DefaultRetryMaxDelay
	}
	if cfg.RetryMaxDelay < cfg.RetryBaseDelay {
		cfg.RetryMaxDelay = cfg.RetryBaseDelay
	}
	if cfg.MaxKnown <= 0 {
		cfg.MaxKnown = DefaultMaxKnown
	}

	x := &Extractor{cfg: cfg, sleep: sleepCtx, log: slog.New(slog.DiscardHandler), pinned: pinned}
	for _, o := range opts {
		o(x)
	}
	if x.onto == nil {
		x.onto = ontology.Default()
	}
	if pinned >= 0 {
		x.learned = &endpointMode{}
		x.learned.level.Store(int32(pinned))
	} else {
		em, _ := learned.LoadOrStore(cfg.BaseURL+" "+cfg.Model, &endpointMode{})
		x.learned = em.(*endpointMode)
	}

	// The client is built without DefaultClientOptions on purpose: nothing
	// is read from OPENAI_* environment variables, so the configuration the
	// operator gave is the whole configuration.
	copts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		copts = append(copts, option.WithAPIKey(cfg.APIKey))
	}
	if x.httpClient != nil {
		copts = append(copts, option.WithHTTPClient(x.httpClient))
	}
	copts = append(copts, x.reqOpts...)
	x.client = openai.NewClient(copts...)
	return x, nil
}

// Prompt returns the prompt style, PromptFull or PromptCompact.
func (x *Extractor) Prompt() string { return x.cfg.Prompt }

// Mode returns the response format the next Extract starts with:
// one of ModeJSONSchema, ModeJSONObjectSchema, ModeJSONObject, ModeText.
func (x *Extractor) Mode() string {
	return modes[x.learned.level.Load()]
}

// Input is what one extraction looks at.
type Input struct {
	// Episode to extract from: Content, Speaker, Role, Kind, ReferenceTime
	// and SourceKind are used.
	Episode entity.Episode
	// Ontology names the entity types and predicates the model should use;
	// nil means the Extractor's (see WithOntology).
	Ontology *ontology.Ontology
	// Known are entities of the scope the episode may refer to (Name, Type
	// and Aliases are used). The caller picks them; at most Config.MaxKnown
	// are sent, in the given order.
	Known []entity.Entity
	// Now stands in for Episode.ReferenceTime when that is zero, so relative
	// dates still resolve; zero means time.Now().
	Now time.Time
}

// Output is what the model found, after validation.
type Output struct {
	Entities []Entity `json:"entities"`
	Facts    []Fact   `json:"facts"`
	// Proposed counts the facts of the answer, kept or not.
	Proposed int `json:"proposed"`
	// Warnings are notes on kept facts: a predicate the ontology does not
	// define, read as one it does.
	Warnings []string `json:"warnings,omitempty"`
	// Dropped lists the facts of the answer that were left out, and why.
	Dropped []Drop `json:"dropped,omitempty"`
	// Mode is the response format of the answer that was used.
	Mode string `json:"mode"`
	// Repaired is set when the first answer was unusable and the repair
	// call's answer was used.
	Repaired bool `json:"repaired,omitempty"`
}

// Entity is an entity the episode mentions. Type is lower case; the model is
// asked to use the ontology's types, "thing" when none fits.
type Entity struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Aliases []string `json:"aliases,omitempty"`
}

// Fact is one extracted statement. Subject and Object are entity names (as
// the model wrote them; resolution to ids is the caller's job), Predicate is
// canonical (snake_case, ontology synonyms replaced). Exactly one of Object
// and Value is set.
type Fact struct {
	Subject   string `json:"subject"`
	Predicate string `json:"predicate"`
	Object    string `json:"object,omitempty"`
	Value     string `json:"value,omitempty"`
	Text      string `json:"text"`
	// ValidFrom nil means "since an unknown time"; ValidTo nil "still true".
	// ValidTo set with ValidFrom nil is an explicit end ("I no longer work at
	// Acme"), see Ended.
	ValidFrom *time.Time `json:"valid_from"`
	ValidTo   *time.Time `json:"valid_to"`
	// Cardinality is "one", "many" or "" (no opinion). For predicates the
	// ontology defines, it is the ontology's, whatever the model said.
	Cardinality ontology.Cardinality `json:"cardinality,omitempty"`
	SourceKind  entity.SourceKind    `json:"source_kind"`
	// Importance is 1–10.
	Importance int `json:"importance"`
	// Attributes holds "reason" (string) and "alternatives" ([]string) when
	// the model gave them, plus any other scalar attributes in JSON mode.
	Attributes map[string]any `json:"attributes,omitempty"`
	// mapped says how an invented predicate was mapped to the ontology.
	mapped string
}

// Ended reports whether f states that something stopped being true at
// ValidTo, with no claim about when it started.
func (f Fact) Ended() bool { return f.ValidTo != nil && f.ValidFrom == nil }

// Drop is a fact of the answer left out of Output, by its index in the
// answer's facts list, with its reason (an entity.Drop… code).
type Drop struct {
	Index int `json:"index"`
	entity.DroppedFact
}

// Usage counts what an Extract cost. Calls is every request sent to the
// endpoint, failed ones included; tokens are summed over the answers the
// endpoint reported usage for.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	Calls            int   `json:"calls"`
}

// Add adds o to u, for callers keeping totals.
func (u *Usage) Add(o Usage) {
	u.PromptTokens += o.PromptTokens
	u.CompletionTokens += o.CompletionTokens
	u.Calls += o.Calls
}

// Extract asks the model for the entities and facts of in.Episode.
//
// An episode with blank content yields an empty Output without a call. On
// the normal path it makes exactly one call; see the package doc for
// retries, the JSON-mode fallback and the repair call.
//
// Each fact of the answer is checked: subject and predicate non-empty,
// one of object and value (both set: the object when it names one of the
// answer's entities, else the value), times RFC 3339 (a bare date is read as
// midnight in the reference time's zone), valid_to after valid_from,
// source_kind known, importance 1–10 (missing: 5), cardinality one, many or
// null. The source kind is capped by the episode (see SourceKindCeiling): a
// model cannot make an assistant's or a tool's words into user statements.
// A fact must be grounded: its subject and its object or value named by the
// episode's content, its speaker or a known entity (a value may also be a
// date the model resolved), so that what a small model invents stays out.
// A fact repeating an earlier one of the answer is a duplicate. Broken,
// permission-like, ungrounded and repeated facts are dropped and listed in
// Output.Dropped with their reason (entity.Drop…); only an answer whose
// every fact is broken in form gets the repair call.
//
// Errors: EUNAVAILABLE (retries exhausted on 429/5xx/network, a Retry-After
// beyond RetryMaxDelay, a 401/403/404 refusal, ctx done — it wraps
// ctx.Err()), EUNPROCESSABLE (the endpoint rejected this request, the model
// refused, or the answer stayed unusable after the repair call). Usage is
// valid with an error too.
func (x *Extractor) Extract(ctx context.Context, in Input) (Output, Usage, error) {
	var u Usage
	if strings.TrimSpace(in.Episode.Content) == "" {
		return Output{Entities: []Entity{}, Facts: []Fact{}, Mode: x.Mode()}, u, nil
	}
	onto := in.Ontology
	if onto == nil {
		onto = x.onto
	}
	ref := in.Episode.ReferenceTime
	if ref.IsZero() {
		ref = in.Now
	}
	if ref.IsZero() {
		ref = time.Now()
	}
	known := in.Known
	if len(known) > x.cfg.MaxKnown {
		known = known[:x.cfg.MaxKnown]
	}
	compact := x.cfg.Prompt == PromptCompact
	user := userPrompt(in.Episode, known, ref)
	if compact {
		user = compactUserPrompt(in.Episode, known, ref)
	}
	msgs := []openai.ChatCompletionMessageParamUnion{
		openai.SystemMessage(x.systemPrompt(onto)),
		openai.UserMessage(user),
	}
	v := validator{onto: onto, ref: ref, ceiling: SourceKindCeiling(in.Episode), ep: in.Episode, known: known, compact: compact}

	mode := x.Mode()
	content, err := x.complete(ctx, msgs, &mode, &u)
	if err != nil {
		return Output{}, u, err
	}
	out, verr := v.answer(content)
	if verr == nil {
		out.Mode = mode
		x.logDrops(out)
		return out, u, nil
	}

	// The answer is unusable; the model sees it and what was wrong. Under
	// strict structured outputs that means the server ignored the schema,
	// so the repair goes out in JSON mode, which every server we target
	// understands. A server that took the schema in JSON mode compiles it
	// into a grammar (or ignores it, as plain JSON mode): the repair stays
	// there, so the grammar still holds the model to the answer's shape.
	x.log.Warn("extract: unusable answer, asking for a repair", "mode", mode, "error", verr.Error())
	msgs = append(msgs,
		openai.AssistantMessage(clip(content, maxEcho)),
		openai.UserMessage(repairPrompt(verr, compact)),
	)
	if x.pinned < 0 && mode == ModeJSONSchema {
		mode = ModeJSONObject
	}
	content, err = x.complete(ctx, msgs, &mode, &u)
	if err != nil {
		return Output{}, u, err
	}
	out, verr2 := v.answer(content)
	var ea *errAnswer
	if errors.As(verr2, &ea) && ea.broken != nil {
		// Well formed again, every fact broken again: the model has said
		// what it has to say. Nothing is kept, and the report says why.
		out, verr2 = *ea.broken, nil
	}
	if verr2 != nil {
		return Output{}, u, &entity.Error{
			Code:    entity.EUNPROCESSABLE,
			Op:      "extract.Extract",
			Message: "the model's answer is unusable after one repair: " + verr2.Error(),
			Err:     verr2,
		}
	}
	out.Mode = mode
	out.Repaired = true
	x.logDrops(out)
	return out, u, nil
}

func (x *Extractor) logDrops(out Output) {
	for _, d := range out.Dropped {
		x.log.Info("extract: fact dropped", "index", d.Index, "predicate", d.Predicate, "reason", d.Reason, "detail", d.Detail)
	}
}

// maxEcho bounds how much of a bad answer is sent back in the repair call.
const maxEcho = 16 << 10

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Cut on a rune boundary.
	for n > 0 && n < len(s) && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// backoff returns the wait before retry number attempt (0-based): base·2^n
// capped at max, then "equal jitter" — half fixed, half random — so that
// workers failing together do not retry together.
func backoff(base, max time.Duration, attempt int) time.Duration {
	d := base
	for i := 0; i < attempt && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	half := d / 2
	return half + rand.N(d-half+1)
}
