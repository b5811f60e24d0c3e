// What the store holds of the facts $ids that a write transaction is
// about to put and has not read: for each one stored, its properties (what
// the rewrite changes is worked out from them, and where its links point);
// for each one deleted, its Deleted marker. Ids of neither kind are new
// facts. Two unique seeks per id. (The transaction holds its scope's lock,
// so nothing changes between this read and its writes.)
CYPHER replan=skip
UNWIND $ids AS id
OPTIONAL MATCH (f:Fact {scope: $scope, id: id})
OPTIONAL MATCH (d:Deleted {kind: 'fact', scope: $scope, id: id})
WITH id, f, d
WHERE f IS NOT NULL OR d IS NOT NULL
RETURN id, properties(f) AS props, d IS NOT NULL AS deleted
