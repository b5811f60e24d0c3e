package memory

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/temporal"
)

// Extractor turns one episode into statements with (at most) one model
// call. known lists entities of the scope the episode may refer to. Usage
// is what the model reported, returned with errors too.
type Extractor interface {
	Extract(ctx context.Context, ep entity.Episode, known []entity.Entity) ([]FactInput, Usage, error)
}

// Usage is the tokens a model reported for one extraction.
type Usage struct {
	PromptTokens, CompletionTokens int64
}

// Queue settings.
const (
	MaxAttempts   = 5
	baseBackoff   = time.Second
	maxBackoff    = time.Minute
	pollInterval  = 500 * time.Millisecond
	maxKnown      = 50
	maxMentionKey = 2000
)

// RunWorkers processes queued episodes with n workers until ctx ends. The
// queue lives in the store: episodes are stored before they are
// acknowledged, a restart resumes every unfinished one, and within a scope
// episodes are processed one at a time in reference-time order.
func (s *Service) RunWorkers(ctx context.Context, n int, log *slog.Logger) {
	if s.Extract == nil {
		return
	}
	if n < 1 {
		n = 1
	}
	if log == nil {
		log = slog.Default()
	}
	var (
		mu       sync.Mutex
		busy     = map[entity.Scope]bool{}
		inflight = map[string]bool{}
		wg       sync.WaitGroup
		slots    = make(chan struct{}, n)
	)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return
		case <-timer.C:
		case <-s.wakeup:
		}
		due, err := s.Store.DueEpisodes(ctx, s.now(), 256)
		if err != nil && ctx.Err() == nil {
			log.Warn("episode queue: listing due episodes failed", "err", err)
		}
		byScope := map[entity.Scope][]string{}
		var scopes []entity.Scope
		mu.Lock()
		for _, r := range due {
			if busy[r.Scope] || inflight[r.ID] {
				continue
			}
			if _, ok := byScope[r.Scope]; !ok {
				scopes = append(scopes, r.Scope)
			}
			byScope[r.Scope] = append(byScope[r.Scope], r.ID)
		}
		for _, sc := range scopes {
			busy[sc] = true
			for _, id := range byScope[sc] {
				inflight[id] = true
			}
		}
		mu.Unlock()
		for _, sc := range scopes {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				wg.Wait()
				return
			}
			wg.Add(1)
			go func(sc entity.Scope, ids []string) {
				defer wg.Done()
				defer func() { <-slots }()
				for _, id := range ids {
					if ctx.Err() != nil {
						break
					}
					if err := s.processEpisode(ctx, sc, id); err != nil && ctx.Err() == nil {
						log.Warn("episode extraction failed", "scope", sc, "episode", id, "err", err)
					}
				}
				mu.Lock()
				delete(busy, sc)
				for _, id := range ids {
					delete(inflight, id)
				}
				mu.Unlock()
				s.wake()
			}(sc, byScope[sc])
		}
		timer.Reset(pollInterval)
	}
}

// processEpisode extracts one episode and stores its facts, or records the
// failure with a backoff. It returns the extraction error, if any.
func (s *Service) processEpisode(ctx context.Context, scope entity.Scope, id string) error {
	var ep entity.Episode
	var known []entity.Entity
	err := s.Store.Update(ctx, scope, func(tx graph.Tx) error {
		var err error
		if ep, err = tx.Episode(id); err != nil {
			return err
		}
		if ep.Status != entity.EpisodeQueued && ep.Status != entity.EpisodeProcessing {
			return errSkip
		}
		ep.Status = entity.EpisodeProcessing
		ep.Attempts++
		if known, err = knownEntities(tx, &ep); err != nil {
			return err
		}
		return tx.PutEpisode(ep)
	})
	if errors.Is(err, errSkip) || entity.ErrorCode(err) == entity.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	facts, usage, xerr := s.Extract.Extract(ctx, ep, known)
	if ctx.Err() != nil {
		return nil // shutting down: the episode stays due and resumes later
	}
	err = s.update(ctx, scope, func(tx graph.Tx) error {
		cur, err := tx.Episode(id)
		if err != nil {
			return err
		}
		if xerr != nil {
			cur.PromptTokens += usage.PromptTokens
			cur.CompletionTokens += usage.CompletionTokens
			cur.Error = xerr.Error()
			if cur.Attempts >= MaxAttempts {
				cur.Status, cur.NextAttemptAt = entity.EpisodeFailed, nil
			} else {
				t := s.now().Add(backoff(cur.Attempts))
				cur.Status, cur.NextAttemptAt = entity.EpisodeQueued, &t
			}
			return tx.PutEpisode(cur)
		}
		for i := range facts {
			facts[i].EpisodeID = id
			if facts[i].SourceKind == "" {
				facts[i].SourceKind = cur.SourceKind
			}
		}
		var ok []FactInput
		for i := range facts {
			if ValidateFacts(facts[i:i+1]) == nil {
				ok = append(ok, facts[i])
			}
		}
		blocked := false
		if len(ok) > 0 {
			ref := cur.ReferenceTime
			res, err := s.addFacts(tx, scope, ok, s.now(), &ref)
			if err != nil {
				return err
			}
			if cur, err = tx.Episode(id); err != nil {
				return err
			}
			for _, r := range res {
				blocked = blocked || r.Action == temporal.BlockedByTombstone
			}
		}
		cur.Status, cur.Error, cur.NextAttemptAt = entity.EpisodeDone, "", nil
		cur.PromptTokens += usage.PromptTokens
		cur.CompletionTokens += usage.CompletionTokens
		if blocked && cur.ForgottenAt == nil {
			// The episode re-tells something the user had forgotten: its
			// text stays out of recall like the fact itself.
			now := s.now()
			cur.ForgottenAt = &now
		}
		return tx.PutEpisode(cur)
	})
	if err != nil {
		return err
	}
	return xerr
}

var errSkip = errors.New("skip")

func backoff(attempt int) time.Duration {
	d := time.Duration(float64(baseBackoff) * math.Pow(2, float64(attempt-1)))
	return min(d, maxBackoff)
}

// knownEntities finds entities the episode may refer to: those whose name
// or alias equals a run of one to three words of the content, or the
// speaker. Bounded to maxKnown.
func knownEntities(tx graph.Tx, ep *entity.Episode) ([]entity.Entity, error) {
	words := strings.Fields(entity.Normalize(ep.Content))
	keys := []string{}
	seen := map[string]bool{}
	add := func(k string) {
		if k != "" && !seen[k] && len(keys) < maxMentionKey {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	add(entity.Normalize(ep.Speaker))
	for i := range words {
		for n := 1; n <= 3 && i+n <= len(words); n++ {
			add(strings.Join(words[i:i+n], " "))
		}
	}
	m, err := tx.EntitiesByKey(keys)
	if err != nil {
		return nil, err
	}
	var out []entity.Entity
	ids := map[string]bool{}
	for _, k := range keys {
		for _, e := range m[k] {
			if !ids[e.ID] && len(out) < maxKnown {
				ids[e.ID] = true
				out = append(out, e)
			}
		}
	}
	return out, nil
}
