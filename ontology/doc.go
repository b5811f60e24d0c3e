// Package ontology names the entity types and predicates graphmem knows: each
// predicate's meaning, cardinality ("one" value at a time or "many"),
// synonyms that canonicalise free-form predicates, and default TTL. A
// built-in default is embedded; a YAML file may replace it.
package ontology
