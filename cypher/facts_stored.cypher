// What the store holds of the facts $ids that a write transaction is
// about to put and has not read: for each one stored, its subject and
// object (where its links point); for each one deleted, its Deleted marker.
// Ids of neither kind are new facts. Two unique seeks per id, no property
// beyond the two ids read. (The transaction holds its scope's lock, so
// nothing changes between this read and its writes.)
UNWIND $ids AS id
OPTIONAL MATCH (f:Fact {scope: $scope, id: id})
OPTIONAL MATCH (d:Deleted {kind: 'fact', scope: $scope, id: id})
WITH id, f, d
WHERE f IS NOT NULL OR d IS NOT NULL
RETURN id, f IS NOT NULL AS stored, f.subject_id AS subject, f.object_id AS object, d IS NOT NULL AS deleted
