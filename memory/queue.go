package memory

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/temporal"
)

// Extractor turns one episode into statements with (at most) one model
// call. known lists entities of the scope the episode may refer to. The
// report says what the model proposed and the extractor dropped, and what
// it cost; it is returned with errors too. The service completes it with
// what the store refuses and records it with the episode.
type Extractor interface {
	Extract(ctx context.Context, ep entity.Episode, known []entity.Entity) ([]FactInput, entity.Extraction, error)
}

// Queue settings.
const (
	MaxAttempts   = 5
	baseBackoff   = time.Second
	maxBackoff    = time.Minute
	pollInterval  = 500 * time.Millisecond
	maxKnown      = 50
	maxMentionKey = 2000
	// maxRuns bounds the scopes processed at once; the model calls among
	// them are bounded by the number of workers.
	maxRuns = 64
	// runChunk bounds the episodes of one scope taken up and stored in one
	// transaction when the model answers quickly.
	runChunk = 32
	// flushAfter bounds how long extracted facts wait for the next
	// episodes' to be stored with them: with a slow model each episode is
	// stored on its own.
	flushAfter = 50 * time.Millisecond
)

// RunWorkers processes queued episodes until ctx ends, with at most n
// model calls at a time. The queue lives in the store: episodes are stored
// before they are acknowledged, a restart resumes every unfinished one, and
// within a scope episodes are extracted one at a time in reference-time
// order. Episodes of many scopes are processed at once, so their writes
// share commits (group commit); and when the model answers quickly, the
// episodes waiting in a scope are taken up together and their facts stored
// in one transaction, still in order.
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
		runs     = make(chan struct{}, maxRuns)
		calls    = make(chan struct{}, n)
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
			case runs <- struct{}{}:
			case <-ctx.Done():
				wg.Wait()
				return
			}
			wg.Add(1)
			go func(sc entity.Scope, ids []string) {
				defer wg.Done()
				defer func() { <-runs }()
				s.processRun(ctx, sc, ids, calls, log)
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

// extraction is what the model made of one episode, on its way to the
// store.
type extraction struct {
	ep     entity.Episode
	facts  []FactInput
	report entity.Extraction
	err    error
}

// processRun processes the due episodes ids of one scope in order: it
// takes up a chunk (status processing, one more attempt each) in one
// transaction, extracts the episodes one by one (a model slot from calls
// at a time), and stores their results together, in one transaction, once
// the first of them has waited flushAfter or the chunk is done.
func (s *Service) processRun(ctx context.Context, scope entity.Scope, ids []string, calls chan struct{}, log *slog.Logger) {
	for len(ids) > 0 && ctx.Err() == nil {
		n := min(runChunk, len(ids))
		eps, err := s.takeUp(ctx, scope, ids[:n])
		ids = ids[n:]
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("episode queue: taking up episodes failed", "scope", scope, "err", err)
			}
			return
		}
		var done []extraction
		var first time.Time
		store := func() {
			for _, x := range s.storeExtractions(ctx, scope, done) {
				if x.err != nil && ctx.Err() == nil {
					log.Warn("episode extraction failed", "scope", scope, "episode", x.ep.ID, "err", x.err)
				}
			}
			done = nil
		}
		for _, ep := range eps {
			x, err := s.extractOne(ctx, scope, ep, done, calls)
			if ctx.Err() != nil {
				return // shutting down: the episodes stay due and resume later
			}
			if err != nil {
				log.Warn("episode queue: reading known entities failed", "scope", scope, "episode", ep.ID, "err", err)
				break
			}
			if len(done) == 0 {
				first = time.Now()
			}
			done = append(done, x)
			if time.Since(first) >= flushAfter {
				store()
			}
		}
		store()
	}
}

// takeUp marks the episodes ids that are still due as processing, one
// more attempt each, in one transaction, and returns them in order.
func (s *Service) takeUp(ctx context.Context, scope entity.Scope, ids []string) ([]entity.Episode, error) {
	var eps []entity.Episode
	err := s.Store.Update(ctx, scope, func(tx graph.Tx) error {
		eps = eps[:0]
		for _, id := range ids {
			ep, err := tx.Episode(id)
			if entity.ErrorCode(err) == entity.ENOTFOUND {
				continue
			} else if err != nil {
				return err
			}
			if ep.Status != entity.EpisodeQueued && ep.Status != entity.EpisodeProcessing {
				continue
			}
			ep.Status = entity.EpisodeProcessing
			ep.Attempts++
			if err := tx.PutEpisode(ep); err != nil {
				return err
			}
			eps = append(eps, ep)
		}
		return nil
	})
	return eps, err
}

// extractOne calls the model on one episode, with the entities it may
// refer to: those stored, and those named by the extractions before it
// that are not stored yet.
func (s *Service) extractOne(ctx context.Context, scope entity.Scope, ep entity.Episode, before []extraction, calls chan struct{}) (extraction, error) {
	var known []entity.Entity
	err := s.Store.View(ctx, scope, func(tx graph.Tx) error {
		var err error
		known, err = knownEntities(tx, &ep, before)
		return err
	})
	if err != nil {
		return extraction{}, err
	}
	select {
	case calls <- struct{}{}:
	case <-ctx.Done():
		return extraction{}, nil
	}
	defer func() { <-calls }()
	x := extraction{ep: ep}
	x.facts, x.report, x.err = s.Extract.Extract(ctx, ep, known)
	return x, nil
}

// storeExtractions stores the results of a chunk in one transaction, in
// order; if that fails, each on its own, so one episode's failure does
// not hold back the others. It returns the extractions with their errors.
func (s *Service) storeExtractions(ctx context.Context, scope entity.Scope, xs []extraction) []extraction {
	if len(xs) == 0 {
		return nil
	}
	err := s.update(ctx, scope, func(tx graph.Tx) error {
		for i := range xs {
			if err := s.storeExtraction(tx, scope, &xs[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil && len(xs) > 1 {
		for i := range xs {
			x := &xs[i]
			if err := s.update(ctx, scope, func(tx graph.Tx) error { return s.storeExtraction(tx, scope, x) }); err != nil {
				x.err = err
			}
		}
	} else if err != nil {
		xs[0].err = err
	}
	s.episodesSettled(xs)
	return xs
}

// storeExtraction records one extraction: its facts and status done, or
// the model's failure with a backoff (failed after MaxAttempts).
func (s *Service) storeExtraction(tx graph.Tx, scope entity.Scope, x *extraction) error {
	id := x.ep.ID
	cur, err := tx.Episode(id)
	if entity.ErrorCode(err) == entity.ENOTFOUND {
		return nil // forgotten or purged meanwhile
	} else if err != nil {
		return err
	}
	rep := x.report
	if x.err != nil {
		rep.Error = x.err.Error()
		cur.PromptTokens += rep.PromptTokens
		cur.CompletionTokens += rep.CompletionTokens
		cur.Extraction = &rep
		cur.Error = x.err.Error()
		if cur.Attempts >= MaxAttempts {
			cur.Status, cur.NextAttemptAt = entity.EpisodeFailed, nil
		} else {
			t := s.now().Add(backoff(cur.Attempts))
			cur.Status, cur.NextAttemptAt = entity.EpisodeQueued, &t
		}
		return tx.PutEpisode(cur)
	}
	facts := x.facts
	for i := range facts {
		facts[i].EpisodeID = id
		if facts[i].SourceKind == "" {
			facts[i].SourceKind = cur.SourceKind
		}
	}
	var ok []FactInput
	for i := range facts {
		if err := ValidateFacts(facts[i : i+1]); err != nil {
			rep.Drop(dropped(facts[i], entity.DropMalformed, fieldProblems(err)))
			continue
		}
		ok = append(ok, facts[i])
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
		for i, r := range res {
			switch r.Action {
			case Refused:
				rep.Drop(dropped(ok[i], entity.DropPermission, r.Warning))
			case temporal.BlockedByTombstone:
				blocked = true
				rep.Drop(dropped(ok[i], entity.DropForgotten, "the user forgot this fact; extraction does not bring it back"))
			default:
				rep.Kept++
				if r.Warning != "" && !slices.Contains(rep.Warnings, r.Warning) {
					rep.Warnings = append(rep.Warnings, r.Warning)
				}
			}
		}
	}
	cur.Status, cur.Error, cur.NextAttemptAt = entity.EpisodeDone, "", nil
	cur.PromptTokens += rep.PromptTokens
	cur.CompletionTokens += rep.CompletionTokens
	cur.Extraction = &rep
	if blocked && cur.ForgottenAt == nil {
		// The episode re-tells something the user had forgotten: its
		// text stays out of recall like the fact itself.
		now := s.now()
		cur.ForgottenAt = &now
	}
	return tx.PutEpisode(cur)
}

// dropped describes a statement of the model left out, for the report.
func dropped(f FactInput, reason, detail string) entity.DroppedFact {
	obj := f.Object
	if obj == "" {
		obj = f.Value
	}
	return entity.DroppedFact{Subject: f.Subject, Predicate: f.Predicate, Object: obj, Reason: reason, Detail: detail}
}

// fieldProblems says what ValidateFacts found wrong with one statement:
// "object: give either object or value, not both".
func fieldProblems(err error) string {
	var e *entity.Error
	if !errors.As(err, &e) || len(e.Fields) == 0 {
		return entity.ErrorMessage(err)
	}
	out := make([]string, 0, len(e.Fields))
	for k, v := range e.Fields {
		out = append(out, strings.TrimPrefix(k, "facts[0].")+": "+v)
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

func backoff(attempt int) time.Duration {
	d := time.Duration(float64(baseBackoff) * math.Pow(2, float64(attempt-1)))
	return min(d, maxBackoff)
}

// knownEntities finds entities the episode may refer to: those whose name
// or alias equals a run of one to three words of the content, or the
// speaker; then names the extractions before it (not stored yet) gave to
// subjects and objects, matched the same way. Bounded to maxKnown.
func knownEntities(tx graph.Tx, ep *entity.Episode, before []extraction) ([]entity.Entity, error) {
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
	named := map[string]bool{}
	for _, x := range before {
		for _, f := range x.facts {
			for _, n := range [][2]string{{f.Subject, f.SubjectType}, {f.Object, f.ObjectType}} {
				k := entity.Normalize(n[0])
				if !seen[k] || len(m[k]) > 0 || named[k] || len(out) >= maxKnown {
					continue
				}
				named[k] = true
				out = append(out, entity.Entity{Name: strings.TrimSpace(n[0]), Type: n[1]})
			}
		}
	}
	return out, nil
}
