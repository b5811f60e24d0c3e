// Part 3: the next frontier, the entities at the other end of the facts
// just reached that no earlier hop visited.
CALL {
  WITH reached, seen
  UNWIND reached AS f
  MATCH (f)-[:SUBJECT_OF|OBJECT]-(n:Entity)
  WHERE NOT n IN seen
  RETURN collect(DISTINCT n) AS next
}
WITH next AS frontier, seen + next AS seen, found, hop
