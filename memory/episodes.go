package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// EpisodeInput is something that happened, as sent to POST /v1/episodes.
type EpisodeInput struct {
	Content        string            `json:"content"`
	Kind           string            `json:"kind,omitempty"`
	Speaker        string            `json:"speaker,omitempty"`
	Role           string            `json:"role,omitempty"`
	ReferenceTime  *time.Time        `json:"reference_time,omitempty"`
	SourceKind     entity.SourceKind `json:"source_kind,omitempty"`
	IdempotencyKey string            `json:"idempotency_key,omitempty"`
	Metadata       map[string]any    `json:"metadata,omitempty"`
}

// ValidateEpisode checks an episode's fields.
func ValidateEpisode(in *EpisodeInput) error {
	fe := entity.FieldErrors{}
	if strings.TrimSpace(in.Content) == "" {
		fe.Add("content", "required")
	}
	if len(in.Content) > entity.MaxEpisodeBytes {
		fe.Add("content", fmt.Sprintf("at most %d bytes", entity.MaxEpisodeBytes))
	}
	switch in.Kind {
	case "", entity.KindMessage, entity.KindText, entity.KindJSON:
	default:
		fe.Add("kind", "must be message, text or json")
	}
	switch in.Role {
	case "", entity.RoleUser, entity.RoleAssistant, entity.RoleSystem, entity.RoleTool:
	default:
		fe.Add("role", "must be user, assistant, system or tool")
	}
	if in.SourceKind != "" && !in.SourceKind.Valid() {
		fe.Add("source_kind", "must be one of user_explicit, user_implicit, agent_inferred, tool, import")
	}
	entity.CheckLen(fe, "speaker", in.Speaker, entity.MaxNameLen)
	entity.CheckLen(fe, "idempotency_key", in.IdempotencyKey, entity.MaxKeyLen)
	entity.CheckAttributes(fe, "metadata", in.Metadata)
	return fe.Err()
}

// AddEpisode stores an episode durably before returning. With an extractor
// attached (Service.Extract) it is queued for extraction; without one it is
// stored as done — still searchable, with no facts. A repeated
// idempotency_key returns the episode stored first and created false.
func (s *Service) AddEpisode(ctx context.Context, scope entity.Scope, in EpisodeInput) (entity.Episode, bool, error) {
	if err := ValidateEpisode(&in); err != nil {
		return entity.Episode{}, false, err
	}
	now := s.now()
	ep := entity.Episode{
		ID: s.NewID(), Scope: scope, Kind: in.Kind, Content: in.Content, Speaker: strings.TrimSpace(in.Speaker),
		Role: in.Role, ReferenceTime: now, RecordedAt: now, SourceKind: in.SourceKind,
		Status: entity.EpisodeDone, Metadata: in.Metadata, IdempotencyKey: in.IdempotencyKey,
	}
	if ep.Kind == "" {
		ep.Kind = entity.KindMessage
	}
	if in.ReferenceTime != nil {
		ep.ReferenceTime = in.ReferenceTime.UTC()
	}
	if ep.SourceKind == "" {
		ep.SourceKind = defaultEpisodeSource(ep.Role)
	}
	if s.Extract != nil {
		ep.Status = entity.EpisodeQueued
	} else {
		ep.Extraction = &entity.Extraction{Skipped: NoExtractor}
	}
	created, fresh := true, ep
	err := s.update(ctx, scope, func(tx graph.Tx) error {
		ep, created = fresh, true // a retried transaction starts over
		if in.IdempotencyKey != "" {
			old, err := tx.EpisodeByKey(in.IdempotencyKey)
			if err == nil {
				ep, created = old, false
				return nil
			} else if entity.ErrorCode(err) != entity.ENOTFOUND {
				return err
			}
		}
		return tx.PutEpisode(ep)
	})
	if err == nil && created && ep.Status == entity.EpisodeQueued {
		s.wake()
	}
	return ep, created, err
}

// NoExtractor is why an episode stored without an extraction model has no
// facts.
const NoExtractor = "no extraction model is configured (GRAPHMEM_LLM_BASE_URL, GRAPHMEM_LLM_MODEL)"

// defaultEpisodeSource is the source kind of an episode that states none.
// A user's turn is user_implicit, not user_explicit: the top authority
// (what the block's header says wins, what may lift a tombstone) must be
// claimed by the client that knows the user said it, never given to
// whatever posts text without saying where it comes from. What an
// assistant or a tool says is not the user's word.
func defaultEpisodeSource(role string) entity.SourceKind {
	switch role {
	case entity.RoleAssistant, entity.RoleSystem:
		return entity.AgentInferred
	case entity.RoleTool:
		return entity.Tool
	}
	return entity.UserImplicit
}

// Episode returns one episode; ENOTFOUND if the scope has none with id.
func (s *Service) Episode(ctx context.Context, scope entity.Scope, id string) (entity.Episode, error) {
	var ep entity.Episode
	err := s.Store.View(ctx, scope, func(tx graph.Tx) error {
		var err error
		ep, err = tx.Episode(id)
		return err
	})
	return ep, err
}

// Episodes lists episodes, optionally of one status.
func (s *Service) Episodes(ctx context.Context, scope entity.Scope, status, cursor string, limit int) ([]entity.Episode, string, error) {
	switch status {
	case "", entity.EpisodeQueued, entity.EpisodeProcessing, entity.EpisodeDone, entity.EpisodeFailed:
	default:
		return nil, "", entity.FieldErrors{"status": "must be queued, processing, done or failed"}.Err()
	}
	var eps []entity.Episode
	var next string
	err := s.Store.View(ctx, scope, func(tx graph.Tx) error {
		var err error
		eps, next, err = tx.Episodes(status, cursor, clampLimit(limit))
		return err
	})
	return eps, next, err
}

// RetryEpisode queues a failed episode again, now. Returns ENOTFOUND, or
// ECONFLICT for an episode that has not failed or when no extractor is
// configured.
func (s *Service) RetryEpisode(ctx context.Context, scope entity.Scope, id string) (entity.Episode, error) {
	if s.Extract == nil {
		return entity.Episode{}, entity.Errorf(entity.ECONFLICT, "no extraction model is configured")
	}
	var ep entity.Episode
	err := s.update(ctx, scope, func(tx graph.Tx) error {
		var err error
		if ep, err = tx.Episode(id); err != nil {
			return err
		}
		if ep.Status != entity.EpisodeFailed {
			return entity.Errorf(entity.ECONFLICT, "episode %s is %s, not failed", id, ep.Status)
		}
		ep.Status, ep.Error, ep.Attempts, ep.NextAttemptAt = entity.EpisodeQueued, "", 0, nil
		return tx.PutEpisode(ep)
	})
	if err == nil {
		s.wake()
	}
	return ep, err
}

// WaitEpisode waits until the episode is done or failed, or ctx ends, and
// returns it as it then is. The workers of this service wake it as soon as
// they store the episode; it also looks every 20 ms, for episodes another
// process works on.
func (s *Service) WaitEpisode(ctx context.Context, scope entity.Scope, id string) (entity.Episode, error) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		settled, stop := s.awaitEpisode(id)
		ep, err := s.Episode(ctx, scope, id)
		if err != nil && ctx.Err() != nil {
			// The wait ran out during the read (a remote store): answer
			// the episode as it stands, read without the spent deadline.
			stop()
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			return s.Episode(rctx, scope, id)
		}
		if err != nil || ep.Status == entity.EpisodeDone || ep.Status == entity.EpisodeFailed {
			stop()
			return ep, err
		}
		select {
		case <-ctx.Done():
			stop()
			return ep, nil
		case <-settled:
		case <-tick.C:
			stop()
		}
	}
}

// awaitEpisode returns a channel closed when this service's workers next
// store episode id, and a function that stops waiting.
func (s *Service) awaitEpisode(id string) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	s.waitMu.Lock()
	defer s.waitMu.Unlock()
	if s.waiters == nil {
		s.waiters = map[string][]chan struct{}{}
	}
	s.waiters[id] = append(s.waiters[id], ch)
	return ch, func() {
		s.waitMu.Lock()
		defer s.waitMu.Unlock()
		ws := s.waiters[id]
		if i := slices.Index(ws, ch); i >= 0 {
			ws = slices.Delete(ws, i, i+1)
		}
		if len(ws) == 0 {
			delete(s.waiters, id)
		} else {
			s.waiters[id] = ws
		}
	}
}

// episodesSettled wakes the waiters of the episodes just stored.
func (s *Service) episodesSettled(xs []extraction) {
	s.waitMu.Lock()
	defer s.waitMu.Unlock()
	for _, x := range xs {
		for _, ch := range s.waiters[x.ep.ID] {
			close(ch)
		}
		delete(s.waiters, x.ep.ID)
	}
}
