package eval

import (
	"os"
	"path/filepath"

	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/bolt"
	"github.com/graphmem/graphmem/search"
)

// workspace is a store and its index: an embedded store in the index's
// folder, or a store of the caller's (Neo4j), which close leaves open.
type workspace struct {
	store graph.Store
	own   bool // the store is the embedded one, closed by close
	index *search.Index
	dir   string
	tmp   string // removed by close when the folder was made here
}

// openWorkspace opens an index in dir, or in a new temporary folder named
// after prefix when dir is empty, and an embedded store there unless store
// is set.
func openWorkspace(dir, prefix string, store graph.Store) (*workspace, error) {
	w := &workspace{store: store}
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", prefix); err != nil {
			return nil, err
		}
		w.tmp = dir
	}
	w.dir = dir
	var err error
	if w.store == nil {
		if w.store, err = bolt.Open(filepath.Join(dir, "graph.db")); err != nil {
			w.close()
			return nil, err
		}
		w.own = true
	}
	if w.index, err = search.Open(filepath.Join(dir, "index")); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

func (w *workspace) close() {
	if w.index != nil {
		w.index.Close()
	}
	if w.own {
		w.store.Close()
	}
	if w.tmp != "" {
		os.RemoveAll(w.tmp)
	}
}
