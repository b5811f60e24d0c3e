// For each entity id in $ids, up to $limit facts whose subject or object it
// is, newest (highest id) first, that are valid at $asOf and recallable at
// $now (entity.Fact.ValidAt and Recallable: not retracted, forgotten,
// expired by TTL or archived); a null $asOf or $now skips that filter; with
// $bare, without the claims and revisions (graph.Around.Bare); with $hub > 0,
// only the ids of an entity's facts when it has more than $hub of them
// (graph.Around.Hub: the walk only counts a hub's facts). The
// graph walk's read of one hop (graph.Around), in one round trip. Found
// through the subject and object indexes scanned backwards, so a fact about
// an entity not stored is found too, as on the embedded store.
UNWIND $ids AS id
CALL {
  WITH id
  CALL {
    WITH id
    MATCH (f:Fact)
    WHERE f.scope = $scope AND f.subject_id = id AND f.id > ''
      AND ($asOf IS NULL OR ((f.valid_from IS NULL OR f.valid_from <= $asOf)
                            AND (f.valid_to IS NULL OR f.valid_to > $asOf)))
      AND ($now IS NULL OR ((f.expired_at IS NULL OR f.expired_at > $now)
                            AND f.forgotten_at IS NULL
                            AND (f.expires_at IS NULL OR f.expires_at > $now)
                            AND f.archived_at IS NULL))
    RETURN f ORDER BY f.scope DESC, f.subject_id DESC, f.id DESC LIMIT $limit
    UNION
    WITH id
    MATCH (f:Fact)
    WHERE f.scope = $scope AND f.object_id = id AND f.id > ''
      AND ($asOf IS NULL OR ((f.valid_from IS NULL OR f.valid_from <= $asOf)
                            AND (f.valid_to IS NULL OR f.valid_to > $asOf)))
      AND ($now IS NULL OR ((f.expired_at IS NULL OR f.expired_at > $now)
                            AND f.forgotten_at IS NULL
                            AND (f.expires_at IS NULL OR f.expires_at > $now)
                            AND f.archived_at IS NULL))
    RETURN f ORDER BY f.scope DESC, f.object_id DESC, f.id DESC LIMIT $limit
  }
  RETURN f ORDER BY f.id DESC LIMIT $limit
}
WITH id, collect(f) AS fs
WITH id, fs, $hub > 0 AND size(fs) > $hub AS hub
UNWIND fs AS f
RETURN id, CASE WHEN hub THEN f {.id} WHEN $bare THEN f {.*, claims: null, revisions: null} ELSE f END AS f
