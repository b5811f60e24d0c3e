package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graphmem/graphmem/bench"
	"github.com/graphmem/graphmem/extract"
	"github.com/graphmem/graphmem/extract/extracttest"
	"github.com/graphmem/graphmem/fixtures"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
)

// benchEpisodes sends n episodes of the extraction gold set through the
// episode queue and extraction on cfg's store, against cfg's model or,
// when none is configured, a fake endpoint in this process answering the
// gold set's scripted answers. The baseline is bare calls to the same
// endpoint with the same concurrency.
func benchEpisodes(ctx context.Context, cfg Config, n, workers int) (episodeRun, error) {
	workers = max(workers, 1)
	run := episodeRun{Episodes: n, EpisodeWorkers: workers, EpisodeModel: cfg.LLMModel, EpisodePrompt: cfg.LLMPrompt}
	if cfg.LLMBaseURL == "" || cfg.LLMModel == "" {
		answers, err := fixtures.ExtractScriptedByContent()
		if err != nil {
			return run, err
		}
		fake := extracttest.Start(extracttest.Scripted(answers))
		defer fake.Close()
		cfg.LLMBaseURL, cfg.LLMModel = fake.BaseURL(), "scripted"
		run.EpisodeModel = "scripted (built-in fake endpoint)"
	}
	cases, err := fixtures.ExtractGold()
	if err != nil {
		return run, err
	}
	in := make([]memory.EpisodeInput, len(cases))
	for i, c := range cases {
		ref := c.Episode.ReferenceTime
		in[i] = memory.EpisodeInput{Content: c.Episode.Content, Speaker: c.Episode.Speaker, Role: c.Episode.Role, ReferenceTime: &ref}
	}
	onto, err := ontology.Load(cfg.Ontology)
	if err != nil {
		return run, err
	}
	var calls atomic.Int64
	ex, err := newEpisodeExtractor(cfg, onto, slog.New(slog.DiscardHandler), func(u extract.Usage) { calls.Add(int64(u.Calls)) })
	if err != nil {
		return run, err
	}
	store, err := openStore(ctx, cfg)
	if err != nil {
		return run, err
	}
	defer store.Close()
	svc := memory.New(store, onto)
	svc.Extract = ex
	res, err := bench.Episodes(ctx, svc, fmt.Sprintf("bench-episodes-%d", time.Now().UnixNano()), in, n, workers)
	if err != nil {
		return run, err
	}
	run.EpisodesPerSec, run.EpisodesFailed = res.PerSec, res.Failed
	run.EpisodeCallsPerEpisode = float64(calls.Load()) / float64(n)
	run.EpisodePromptTokens = float64(res.PromptTokens) / float64(n)
	run.EpisodeCompletionTokens = float64(res.CompletionTokens) / float64(n)
	run.BaselineBareCallsPerSecond, err = bareCallRate(ctx, ex.(*episodeExtractor).x, n, workers)
	return run, err
}

// bareCallRate makes n bare calls with workers goroutines and returns calls
// per second.
func bareCallRate(ctx context.Context, x *extract.Extractor, n, workers int) (float64, error) {
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		errOnce sync.Once
		first   error
	)
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				if err := x.BareCall(ctx); err != nil {
					errOnce.Do(func() { first = err })
					return
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return 0, fmt.Errorf("baseline: %w", first)
	}
	return float64(n) / time.Since(start).Seconds(), nil
}
