// A scope-level setting.
MATCH (m:Meta {scope: $scope, key: $key})
RETURN m.value AS value
