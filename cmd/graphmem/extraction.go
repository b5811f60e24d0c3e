package main

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/extract"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
)

// episodeExtractor adapts extract.Extractor to the episode queue: one model
// call per episode, answers turned into memory.FactInput, usage reported
// and logged.
type episodeExtractor struct {
	x       *extract.Extractor
	onto    *ontology.Ontology
	model   string
	log     *slog.Logger
	onUsage func(extract.Usage)
}

// newEpisodeExtractor returns nil when no extraction model is configured:
// episodes are then stored and searchable, without facts.
func newEpisodeExtractor(cfg Config, onto *ontology.Ontology, log *slog.Logger, onUsage func(extract.Usage)) (memory.Extractor, error) {
	if cfg.LLMBaseURL == "" || cfg.LLMModel == "" {
		return nil, nil
	}
	mc, err := modelConfig(cfg)
	if err != nil {
		return nil, err
	}
	x, err := extract.New(mc, extract.WithOntology(onto), extract.WithLogger(log))
	if err != nil {
		return nil, err
	}
	return &episodeExtractor{x: x, onto: onto, model: cfg.LLMModel, log: log, onUsage: onUsage}, nil
}

func (e *episodeExtractor) Extract(ctx context.Context, ep entity.Episode, known []entity.Entity) ([]memory.FactInput, entity.Extraction, error) {
	out, usage, err := e.x.Extract(ctx, extract.Input{Episode: ep, Ontology: e.onto, Known: known})
	if e.onUsage != nil {
		e.onUsage(usage)
	}
	mode := out.Mode
	if mode == "" {
		mode = e.x.Mode()
	}
	e.log.Info("extract: episode", "episode_id", ep.ID, "model", e.model, "mode", mode,
		"prompt_tokens", usage.PromptTokens, "completion_tokens", usage.CompletionTokens,
		"calls", usage.Calls, "proposed", out.Proposed, "dropped", len(out.Dropped), "ok", err == nil)
	rep := report(out, usage)
	rep.Mode, rep.Prompt = mode, e.x.Prompt()
	if err != nil {
		return nil, rep, err
	}
	return factInputs(out), rep, nil
}

// report is the episode's extraction report as the extractor sees it; the
// memory service adds what the store refuses and counts what is kept.
func report(out extract.Output, u extract.Usage) entity.Extraction {
	r := entity.Extraction{Mode: out.Mode, Repaired: out.Repaired, Proposed: out.Proposed, Warnings: out.Warnings,
		Calls: u.Calls, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	for _, d := range out.Dropped {
		r.Drop(d.DroppedFact)
	}
	return r
}

// modelConfig is the extraction endpoint of cfg.
func modelConfig(cfg Config) (extract.Config, error) {
	mc := extract.Config{BaseURL: cfg.LLMBaseURL, Model: cfg.LLMModel, APIKey: cfg.LLMAPIKey, Mode: cfg.LLMMode, Prompt: cfg.LLMPrompt}
	switch cfg.LLMMaxTokens {
	case "":
	case "off":
		mc.MaxTokens = -1
	default:
		n, err := strconv.Atoi(cfg.LLMMaxTokens)
		if err != nil || n <= 0 {
			return mc, fmt.Errorf("llm-max-tokens: %q is neither a positive number nor off", cfg.LLMMaxTokens)
		}
		mc.MaxTokens = n
	}
	d, err := positiveDuration("llm-timeout", cfg.LLMTimeout)
	if err != nil {
		return mc, err
	}
	mc.Timeout = d
	if mc.Temperature, err = fraction("llm-temperature", cfg.LLMTemp, 0, 2); err != nil {
		return mc, err
	}
	if mc.TopP, err = fraction("llm-top-p", cfg.LLMTopP, 0, 1); err != nil {
		return mc, err
	}
	if mc.TopP != nil && *mc.TopP == 0 {
		return mc, fmt.Errorf("llm-top-p: 0 leaves no token to sample; use a value above 0")
	}
	if cfg.LLMTopK != "" {
		if mc.TopK, err = strconv.Atoi(cfg.LLMTopK); err != nil || mc.TopK <= 0 {
			return mc, fmt.Errorf("llm-top-k: %q is not a positive number", cfg.LLMTopK)
		}
	}
	if cfg.LLMSeed != "" {
		n, err := strconv.ParseInt(cfg.LLMSeed, 10, 64)
		if err != nil {
			return mc, fmt.Errorf("llm-seed: %q is not an integer", cfg.LLMSeed)
		}
		mc.Seed = &n
	}
	return mc, nil
}

// fraction reads the number setting named flag, between lo and hi; empty is
// nil (the server's default).
func fraction(flag, v string, lo, hi float64) (*float64, error) {
	if v == "" {
		return nil, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < lo || f > hi {
		return nil, fmt.Errorf("%s: %q is not a number from %g to %g", flag, v, lo, hi)
	}
	return &f, nil
}

// factInputs turns an extraction answer into statements, typing subjects
// and objects with the entity types the model gave.
func factInputs(out extract.Output) []memory.FactInput {
	types := map[string]string{}
	aliases := map[string][]string{}
	for _, en := range out.Entities {
		types[entity.Normalize(en.Name)] = en.Type
		aliases[entity.Normalize(en.Name)] = en.Aliases
		for _, a := range en.Aliases {
			if _, ok := types[entity.Normalize(a)]; !ok {
				types[entity.Normalize(a)] = en.Type
			}
		}
	}
	fs := make([]memory.FactInput, 0, len(out.Facts))
	for _, f := range out.Facts {
		in := memory.FactInput{
			Subject: f.Subject, SubjectType: types[entity.Normalize(f.Subject)], Predicate: f.Predicate,
			Object: f.Object, Value: f.Value, Text: f.Text, ValidFrom: f.ValidFrom, ValidTo: f.ValidTo,
			SourceKind: f.SourceKind, Importance: f.Importance, Attributes: f.Attributes, Cardinality: f.Cardinality,
			SubjectAliases: aliases[entity.Normalize(f.Subject)],
		}
		if f.Object != "" {
			in.ObjectType = types[entity.Normalize(f.Object)]
			in.ObjectAliases = aliases[entity.Normalize(f.Object)]
		}
		fs = append(fs, in)
	}
	return fs
}

// llmUsageMetrics counts model calls and tokens.
func llmUsageMetrics(reg *prometheus.Registry) func(extract.Usage) {
	calls := prometheus.NewCounter(prometheus.CounterOpts{Name: "graphmem_llm_calls_total", Help: "Chat-completion requests sent for extraction, failed ones included."})
	tokens := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "graphmem_llm_tokens_total", Help: "Tokens reported by the extraction model."}, []string{"kind"})
	episodes := prometheus.NewCounter(prometheus.CounterOpts{Name: "graphmem_episodes_extracted_total", Help: "Episodes sent to the extraction model."})
	reg.MustRegister(calls, tokens, episodes)
	return func(u extract.Usage) {
		episodes.Inc()
		calls.Add(float64(u.Calls))
		tokens.WithLabelValues("prompt").Add(float64(u.PromptTokens))
		tokens.WithLabelValues("completion").Add(float64(u.CompletionTokens))
	}
}
