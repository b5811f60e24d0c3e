package bolt

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/graphmem/graphmem/entity"
)

func (t *tx) getEntity(op, id string) (entity.Entity, error) {
	v := t.get(bEntity, t.key(id))
	if v == nil {
		return entity.Entity{}, &entity.Error{Code: entity.ENOTFOUND, Op: op, Message: fmt.Sprintf("entity %q not found", id)}
	}
	e, err := decodeEntity(t.scope, id, v)
	return e, t.wrap(op, err)
}

func (t *tx) Entity(id string) (entity.Entity, error) {
	const op = "bolt.Entity"
	if err := t.check(op); err != nil {
		return entity.Entity{}, err
	}
	return t.getEntity(op, id)
}

func (t *tx) EntitiesByKey(keys []string) (map[string][]entity.Entity, error) {
	const op = "bolt.EntitiesByKey"
	if err := t.check(op); err != nil {
		return nil, err
	}
	out := make(map[string][]entity.Entity, len(keys))
	// One cursor and one key buffer serve every name.
	c := t.bucket(bName).Cursor()
	var prefix []byte
	for _, key := range keys {
		if _, done := out[key]; done {
			continue
		}
		norm := entity.Normalize(key)
		if norm == "" {
			continue
		}
		prefix = t.appendPrefix(prefix, truncKey(norm))
		var found []entity.Entity
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			id := string(k[len(prefix):])
			e, err := t.getEntity(op, id)
			if err != nil {
				return nil, indexBroken(op, "ix_name", id, err)
			}
			// A key cut to maxKeyPart may be shared by longer names.
			if len(norm) <= maxKeyPart || hasKey(&e, norm) {
				found = append(found, e)
			}
		}
		if len(found) > 0 {
			out[key] = found
		}
	}
	return out, nil
}

func hasKey(e *entity.Entity, key string) bool {
	for _, k := range e.Keys() {
		if k == key {
			return true
		}
	}
	return false
}

func hasKeyPrefix(e *entity.Entity, prefix string) bool {
	for _, k := range e.Keys() {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

func (t *tx) EntitiesByPrefix(prefix string, limit int) ([]entity.Entity, error) {
	const op = "bolt.EntitiesByPrefix"
	if err := t.check(op); err != nil {
		return nil, err
	}
	p := append(t.key(""), truncKey(prefix)...)
	seen := map[string]bool{}
	var out []entity.Entity
	c := t.bucket(bName).Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		if limit > 0 && len(out) >= limit {
			break
		}
		id := keyID(k)
		if seen[id] {
			continue
		}
		seen[id] = true
		e, err := t.getEntity(op, id)
		if err != nil {
			return nil, indexBroken(op, "ix_name", id, err)
		}
		if len(prefix) <= maxKeyPart || hasKeyPrefix(&e, prefix) {
			out = append(out, e)
		}
	}
	return out, nil
}

func (t *tx) Entities(cursor string, limit int) ([]entity.Entity, string, error) {
	const op = "bolt.Entities"
	if err := t.check(op); err != nil {
		return nil, "", err
	}
	return scan(t, op, bEntity, t.key(""), cursor, limit, func(id string, v []byte) (entity.Entity, bool, error) {
		e, err := decodeEntity(t.scope, id, v)
		return e, true, t.wrap(op, err)
	})
}

func (t *tx) PutEntities(es []entity.Entity) error {
	const op = "bolt.PutEntities"
	if err := t.check(op); err != nil {
		return err
	}
	b := t.bucket(bEntity)
	for i := range es {
		e := es[i]
		if err := checkItemPart(op, "entities", i, "id", e.ID, true); err != nil {
			return err
		}
		if strings.TrimSpace(e.Name) == "" {
			return invalid(op, "entities[%d].name is required", i)
		}
		if err := t.checkScope(op, &e.Scope); err != nil {
			return err
		}
		err := t.putRecord(op, b, kEntity, e.ID, entityIndexOf, entityIndex(t.scope, e.ID, &entityHead{Name: e.Name, Aliases: e.Aliases}),
			func(seq uint64) ([]byte, error) {
				v, err := encodeEntity(seq, &e)
				if err != nil {
					return nil, invalid(op, "entities[%d].attributes: %v", i, err)
				}
				return v, nil
			})
		if err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) DeleteEntity(id string) error {
	return t.deleteRecord("bolt.DeleteEntity", "entity", bEntity, kEntity, id, entityIndexOf)
}

func entityIndexOf(scope, id string, old []byte) ([]ixEntry, error) {
	h, _, err := decodeEntityHead(old)
	return entityIndex(scope, id, &h), err
}
