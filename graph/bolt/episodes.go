package bolt

import (
	"fmt"

	"github.com/graphmem/graphmem/entity"
)

func episodeIndexOf(scope, id string, old []byte) ([]ixEntry, error) {
	h, _, err := decodeEpisodeHead(old)
	return episodeIndex(scope, id, &h), err
}

func (t *tx) getEpisode(op, id string) (entity.Episode, error) {
	v := t.get(bEpisode, t.key(id))
	if v == nil {
		return entity.Episode{}, &entity.Error{Code: entity.ENOTFOUND, Op: op, Message: fmt.Sprintf("episode %q not found", id)}
	}
	e, err := decodeEpisode(t.scope, id, v)
	return e, t.wrap(op, err)
}

func (t *tx) Episode(id string) (entity.Episode, error) {
	const op = "bolt.Episode"
	if err := t.check(op); err != nil {
		return entity.Episode{}, err
	}
	return t.getEpisode(op, id)
}

func (t *tx) EpisodeByKey(key string) (entity.Episode, error) {
	const op = "bolt.EpisodeByKey"
	if err := t.check(op); err != nil {
		return entity.Episode{}, err
	}
	if key != "" {
		if id := t.get(bEpKey, t.key(key)); id != nil {
			e, err := t.getEpisode(op, string(id))
			if err != nil {
				return e, indexBroken(op, "ix_episode_key", string(id), err)
			}
			return e, nil
		}
	}
	return entity.Episode{}, &entity.Error{Code: entity.ENOTFOUND, Op: op, Message: "no episode with that idempotency key"}
}

func (t *tx) Episodes(status string, cursor string, limit int) ([]entity.Episode, string, error) {
	const op = "bolt.Episodes"
	if err := t.check(op); err != nil {
		return nil, "", err
	}
	get := func(id string, v []byte) (entity.Episode, bool, error) {
		e, err := decodeEpisode(t.scope, id, v)
		return e, true, t.wrap(op, err)
	}
	if status == "" {
		return scan(t, op, bEpisode, t.key(""), cursor, limit, get)
	}
	eps := t.bucket(bEpisode)
	return scan(t, op, bEpStatus, t.prefix(status), cursor, limit, func(id string, _ []byte) (entity.Episode, bool, error) {
		v := eps.Get(t.key(id))
		if v == nil {
			return entity.Episode{}, false, indexBroken(op, "ix_episode_status", id, nil)
		}
		return get(id, v)
	})
}

func (t *tx) PutEpisode(e entity.Episode) error {
	const op = "bolt.PutEpisode"
	if err := t.check(op); err != nil {
		return err
	}
	if err := checkPart(op, "id", e.ID, true); err != nil {
		return err
	}
	if err := checkPart(op, "status", e.Status, true); err != nil {
		return err
	}
	if err := checkPart(op, "idempotency_key", e.IdempotencyKey, false); err != nil {
		return err
	}
	if err := t.checkScope(op, &e.Scope); err != nil {
		return err
	}
	if e.IdempotencyKey != "" {
		if other := t.get(bEpKey, t.key(e.IdempotencyKey)); other != nil && string(other) != e.ID {
			return &entity.Error{Code: entity.ECONFLICT, Op: op, Message: fmt.Sprintf("idempotency key already used by episode %q", other)}
		}
	}
	h := episodeHead{Status: e.Status, IdempotencyKey: e.IdempotencyKey, ReferenceTime: e.ReferenceTime, NextAttemptAt: e.NextAttemptAt}
	return t.putRecord(op, t.bucket(bEpisode), kEpisode, e.ID, episodeIndexOf, episodeIndex(t.scope, e.ID, &h),
		func(seq uint64) ([]byte, error) {
			v, err := encodeEpisode(seq, &e)
			if err != nil {
				return nil, invalid(op, "metadata: %v", err)
			}
			return v, nil
		})
}

func (t *tx) DeleteEpisode(id string) error {
	return t.deleteRecord("bolt.DeleteEpisode", "episode", bEpisode, kEpisode, id, episodeIndexOf)
}

// ---- tombstones ----
