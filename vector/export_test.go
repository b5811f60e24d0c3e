package vector

import "github.com/graphmem/graphmem/entity"

// StoredVector returns the quantised vector of a record as the file
// holds it, nil if the index has none.
func (x *Index) StoredVector(scope entity.Scope, typ, id string) []byte {
	x.mu.RLock()
	defer x.mu.RUnlock()
	g := x.graphs[gkey{scope, typ}]
	if g == nil {
		return nil
	}
	n, ok := g.byKey[id]
	if !ok {
		return nil
	}
	b := make([]byte, len(g.nodes[n].vec))
	for i, v := range g.nodes[n].vec {
		b[i] = byte(v)
	}
	return b
}
