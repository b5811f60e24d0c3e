// Up to $limit episodes of every scope that wait for (more) processing and
// are due at $now, oldest reference time first (an unknown one, stored as
// the zero time, first of all).
//
// Each waiting status is read in (reference_time, scope, id) order from the
// episode_queue index and cut at $limit, so a long backlog costs a page,
// not a sort of the whole queue; episodes backing off are passed over.
CALL {
  MATCH (e:Episode)
  USING INDEX e:Episode(status, reference_time, scope, id)
  WHERE e.status = 'queued' AND e.reference_time IS NOT NULL AND e.scope IS NOT NULL AND e.id IS NOT NULL
  WITH e ORDER BY e.status, e.reference_time, e.scope, e.id
  WHERE e.next_attempt_at IS NULL OR e.next_attempt_at <= $now
  RETURN e LIMIT $limit
  UNION ALL
  MATCH (e:Episode)
  USING INDEX e:Episode(status, reference_time, scope, id)
  WHERE e.status = 'processing' AND e.reference_time IS NOT NULL AND e.scope IS NOT NULL AND e.id IS NOT NULL
  WITH e ORDER BY e.status, e.reference_time, e.scope, e.id
  WHERE e.next_attempt_at IS NULL OR e.next_attempt_at <= $now
  RETURN e LIMIT $limit
}
RETURN e.scope AS scope, e.id AS id
ORDER BY e.reference_time, scope, id
LIMIT $limit
