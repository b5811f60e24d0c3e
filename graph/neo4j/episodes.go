package neo4j

import (
	"fmt"

	"github.com/graphmem/graphmem/cypher"
	"github.com/graphmem/graphmem/entity"
)

var (
	stmtEpisodeGet       = cypher.MustRead("episode_get.cypher")
	stmtEpisodeByKey     = cypher.MustRead("episode_by_key.cypher")
	stmtEpisodesList     = cypher.MustRead("episodes_list.cypher")
	stmtEpisodesByStatus = cypher.MustRead("episodes_by_status.cypher")
	stmtEpisodePut       = cypher.MustRead("episode_put.cypher")
	stmtEpisodeDelete    = cypher.MustRead("episode_delete.cypher")
	stmtEpisodesDue      = cypher.MustRead("episodes_due.cypher")
)

// Episode returns ENOTFOUND if the scope has no episode id.
func (t *tx) Episode(id string) (entity.Episode, error) {
	return t.oneEpisode("neo4j.Episode", stmtEpisodeGet, map[string]any{"id": id}, id)
}

// EpisodeByKey finds an episode by idempotency key; ENOTFOUND if none.
func (t *tx) EpisodeByKey(key string) (entity.Episode, error) {
	if key == "" {
		return entity.Episode{}, notFound("neo4j.EpisodeByKey", "episode with idempotency key", key)
	}
	return t.oneEpisode("neo4j.EpisodeByKey", stmtEpisodeByKey, map[string]any{"key": key},
		"with idempotency key "+key)
}

func (t *tx) oneEpisode(op, stmt string, params map[string]any, what string) (entity.Episode, error) {
	recs, err := t.query(stmt, params)
	if err != nil {
		return entity.Episode{}, err
	}
	if len(recs) == 0 {
		return entity.Episode{}, notFound(op, "episode", what)
	}
	e, err := t.decodeEpisode(props(recs[0].Values[0]))
	return e, internal(op, err)
}

// Episodes lists episodes by id, all of them or those with one status.
func (t *tx) Episodes(status string, cursor string, limit int) ([]entity.Episode, string, error) {
	stmt, params := stmtEpisodesList, map[string]any{}
	if status != "" {
		stmt, params = stmtEpisodesByStatus, map[string]any{"status": status}
	}
	return page(t, "neo4j.Episodes", stmt, params, cursor, limit,
		t.decodeEpisode, func(e entity.Episode) string { return e.ID })
}

// PutEpisode creates or replaces an episode by id. ECONFLICT if another
// episode of the scope has its idempotency key.
func (t *tx) PutEpisode(e entity.Episode) error {
	const op = "neo4j.PutEpisode"
	if err := t.mustWrite(op); err != nil {
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
	if err := t.checkScope(op, e.Scope); err != nil {
		return err
	}
	p, err := episodeProps(&e)
	if err != nil {
		return invalid(op, "metadata: %v", err)
	}
	recs, err := t.numbered(stmtEpisodePut, 1, map[string]any{"props": p})
	if err != nil {
		return err
	}
	if len(recs) == 1 {
		if other := asString(recs[0].Values[0]); other != "" {
			return &entity.Error{Code: entity.ECONFLICT, Op: op,
				Message: fmt.Sprintf("idempotency key already used by episode %q", other)}
		}
	}
	return nil
}

// DeleteEpisode deletes the episode id; ENOTFOUND if the scope has none.
func (t *tx) DeleteEpisode(id string) error {
	const op = "neo4j.DeleteEpisode"
	if err := t.mustWrite(op); err != nil {
		return err
	}
	recs, err := t.numbered(stmtEpisodeDelete, 1, map[string]any{"id": id})
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return notFound(op, "episode", id)
	}
	return nil
}
