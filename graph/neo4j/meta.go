package neo4j

import "github.com/graphmem/graphmem/cypher"

var (
	stmtMetaGet = cypher.MustRead("meta_get.cypher")
	stmtMetaPut = cypher.MustRead("meta_put.cypher")
)

// Meta reads a scope-level setting.
func (t *tx) Meta(key string) (string, bool, error) {
	recs, err := t.query(stmtMetaGet, map[string]any{"key": key})
	if err != nil || len(recs) == 0 {
		return "", false, err
	}
	return asString(recs[0].Values[0]), true, nil
}

// PutMeta sets a scope-level setting.
func (t *tx) PutMeta(key, value string) error {
	const op = "neo4j.PutMeta"
	if err := t.mustWrite(op); err != nil {
		return err
	}
	if err := checkPart(op, "key", key, true); err != nil {
		return err
	}
	_, err := t.query(stmtMetaPut, map[string]any{"key": key, "value": value})
	return err
}
