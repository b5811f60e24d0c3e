// Part 2: the facts of the frontier's entities that are valid at $asOf and
// recallable at $now (not retracted, forgotten, expired by TTL or archived,
// as entity.Fact.Recallable), at most $fanout per entity.
CALL {
  WITH frontier
  UNWIND frontier AS e
  CALL {
    WITH e
    MATCH (e)-[:SUBJECT_OF|OBJECT]-(f:Fact)
    WHERE (f.valid_from IS NULL OR f.valid_from <= $asOf)
      AND (f.valid_to IS NULL OR f.valid_to > $asOf)
      AND (f.expired_at IS NULL OR f.expired_at > $now)
      AND f.forgotten_at IS NULL
      AND (f.expires_at IS NULL OR f.expires_at > $now)
      AND f.archived_at IS NULL
    RETURN DISTINCT f
    ORDER BY f.id
    LIMIT $fanout
  }
  RETURN collect(DISTINCT f) AS reached
}
WITH seen, reached, hop + 1 AS hop,
     found + [f IN reached WHERE NOT f IN [x IN found | x.fact] | {fact: f, hop: hop + 1}] AS found
