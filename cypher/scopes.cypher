// Every scope that still holds a record. Scope nodes are created by the
// first write to a scope and never removed, so each is checked against the
// (scope, …) indexes of every record label.
MATCH (s:Scope)
WHERE EXISTS { MATCH (n:Entity) WHERE n.scope = s.name }
   OR EXISTS { MATCH (n:Fact) WHERE n.scope = s.name }
   OR EXISTS { MATCH (n:Episode) WHERE n.scope = s.name }
   OR EXISTS { MATCH (n:Tombstone) WHERE n.scope = s.name }
   OR EXISTS { MATCH (n:Meta) WHERE n.scope = s.name }
RETURN s.name AS scope
ORDER BY scope
