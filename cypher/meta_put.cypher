// Set a scope-level setting. Settings are not records: they take no change
// sequence number.
MERGE (:Scope {name: $scope})
MERGE (m:Meta {scope: $scope, key: $key})
SET m.value = $value
