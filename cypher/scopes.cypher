// Every scope that still holds a record. Scope nodes are created by the
// first write to a scope and never removed, so each is checked against the
// (scope, …) constraint indexes of every record label; the existence check
// on the second property lets the planner seek them.
MATCH (s:Scope)
WHERE EXISTS { MATCH (n:Entity) WHERE n.scope = s.name AND n.id IS NOT NULL }
   OR EXISTS { MATCH (n:Fact) WHERE n.scope = s.name AND n.id IS NOT NULL }
   OR EXISTS { MATCH (n:Episode) WHERE n.scope = s.name AND n.id IS NOT NULL }
   OR EXISTS { MATCH (n:Tombstone) WHERE n.scope = s.name AND n.fingerprint IS NOT NULL }
   OR EXISTS { MATCH (n:Meta) WHERE n.scope = s.name AND n.key IS NOT NULL }
RETURN s.name AS scope
ORDER BY scope
