package bench

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
)

// EpisodeResult is what Episodes measured.
type EpisodeResult struct {
	Episodes int
	Failed   int
	PerSec   float64
	// PromptTokens and CompletionTokens are summed from the episode
	// records, over every attempt.
	PromptTokens, CompletionTokens int64
}

// Episodes stores n episodes through svc (its Extract must be set), their
// contents taken from in in turn and spread over one scope per worker
// (a scope's episodes are extracted one at a time), runs workers queue
// workers until every episode is done or failed, and returns episodes per
// second from the first store to the last finish, with the tokens the
// episode records carry.
func Episodes(ctx context.Context, svc *memory.Service, scopePrefix string, in []memory.EpisodeInput, n, workers int) (EpisodeResult, error) {
	if svc.Extract == nil || len(in) == 0 || n < 1 {
		return EpisodeResult{}, fmt.Errorf("bench.Episodes: needs an extractor, inputs and n ≥ 1")
	}
	workers = max(workers, 1)
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		svc.RunWorkers(wctx, workers, slog.New(slog.DiscardHandler))
	}()
	defer func() { stop(); wg.Wait() }()

	type stored struct {
		scope entity.Scope
		id    string
	}
	eps := make([]stored, 0, n)
	start := time.Now()
	for i := range n {
		scope := entity.Scope(fmt.Sprintf("%s-%d", scopePrefix, i%workers))
		ep, _, err := svc.AddEpisode(ctx, scope, in[i%len(in)])
		if err != nil {
			return EpisodeResult{}, fmt.Errorf("episode %d: %w", i, err)
		}
		eps = append(eps, stored{scope, ep.ID})
	}
	res := EpisodeResult{Episodes: n}
	for _, e := range eps {
		ep, err := svc.WaitEpisode(ctx, e.scope, e.id)
		if err != nil {
			return res, err
		}
		if ep.Status != entity.EpisodeDone {
			res.Failed++
		}
		res.PromptTokens += ep.PromptTokens
		res.CompletionTokens += ep.CompletionTokens
	}
	res.PerSec = float64(n) / time.Since(start).Seconds()
	return res, nil
}
