// Up to $limit episodes of every scope that wait for (more) processing and
// are due at $now, oldest reference time first (an unknown one first of
// all, as the zero time).
MATCH (e:Episode)
WHERE e.status IN ['queued', 'processing']
  AND (e.next_attempt_at IS NULL OR e.next_attempt_at <= $now)
RETURN e.scope AS scope, e.id AS id
ORDER BY e.reference_time IS NOT NULL, e.reference_time, scope, id
LIMIT $limit
