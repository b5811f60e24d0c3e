package eval

import (
	"os"
	"path/filepath"

	"github.com/graphmem/graphmem/graph/bolt"
	"github.com/graphmem/graphmem/search"
)

// workspace is an embedded store and its index in one folder.
type workspace struct {
	store *bolt.Store
	index *search.Index
	dir   string
	tmp   string // removed by close when the folder was made here
}

// openWorkspace opens a store and an index in dir, or in a new temporary
// folder named after prefix when dir is empty.
func openWorkspace(dir, prefix string) (*workspace, error) {
	w := &workspace{}
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", prefix); err != nil {
			return nil, err
		}
		w.tmp = dir
	}
	w.dir = dir
	var err error
	if w.store, err = bolt.Open(filepath.Join(dir, "graph.db")); err != nil {
		w.close()
		return nil, err
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
	if w.store != nil {
		w.store.Close()
	}
	if w.tmp != "" {
		os.RemoveAll(w.tmp)
	}
}
