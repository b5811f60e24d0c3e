package bolt

const metaMarker = 'm'

func (t *tx) Meta(key string) (string, bool, error) {
	const op = "bolt.Meta"
	if err := t.check(op); err != nil {
		return "", false, err
	}
	v := t.get(bMeta, t.key(key))
	if len(v) == 0 {
		return "", false, nil
	}
	return string(v[1:]), true, nil
}

func (t *tx) PutMeta(key, value string) error {
	const op = "bolt.PutMeta"
	if err := t.check(op); err != nil {
		return err
	}
	if err := checkPart(op, "key", key, true); err != nil {
		return err
	}
	// A marker byte keeps an empty value distinguishable from no value.
	v := append(make([]byte, 0, 1+len(value)), metaMarker)
	return t.wrap(op, t.bucket(bMeta).Put(t.key(key), append(v, value...)))
}
