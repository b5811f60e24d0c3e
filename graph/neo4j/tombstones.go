package neo4j

import (
	"github.com/graphmem/graphmem/cypher"
	"github.com/graphmem/graphmem/entity"
)

var (
	stmtTombstonesGet  = cypher.MustRead("tombstones_get.cypher")
	stmtTombstonesList = cypher.MustRead("tombstones_list.cypher")
	stmtTombstonePut   = cypher.MustRead("tombstone_put.cypher")
)

// Tombstones returns the tombstones among fingerprints.
func (t *tx) Tombstones(fingerprints []string) (map[string]entity.Tombstone, error) {
	out := make(map[string]entity.Tombstone)
	if len(fingerprints) == 0 {
		return out, nil
	}
	recs, err := t.query(stmtTombstonesGet, map[string]any{"fingerprints": fingerprints})
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		ts := decodeTombstone(t.scope, props(r.Values[0]))
		out[ts.Fingerprint] = ts
	}
	return out, nil
}

// ListTombstones lists tombstones by fingerprint.
func (t *tx) ListTombstones(cursor string, limit int) ([]entity.Tombstone, string, error) {
	return page(t, "neo4j.ListTombstones", stmtTombstonesList, map[string]any{}, cursor, limit,
		func(p map[string]any) (entity.Tombstone, error) { return decodeTombstone(t.scope, p), nil },
		func(ts entity.Tombstone) string { return ts.Fingerprint })
}

// PutTombstone creates or replaces a tombstone by fingerprint.
func (t *tx) PutTombstone(ts entity.Tombstone) error {
	const op = "neo4j.PutTombstone"
	if err := t.mustWrite(op); err != nil {
		return err
	}
	if err := checkPart(op, "fingerprint", ts.Fingerprint, true); err != nil {
		return err
	}
	if err := t.checkScope(op, ts.Scope); err != nil {
		return err
	}
	_, err := t.numbered(stmtTombstonePut, 1, map[string]any{"props": tombstoneProps(&ts)})
	return err
}
