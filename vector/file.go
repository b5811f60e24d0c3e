package vector

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"

	"github.com/graphmem/graphmem/entity"
)

// The file: magic, identity, the position reached in each scope's changes,
// then each graph with its live nodes renumbered densely (free slots and
// links to them are not written).
const magic = "graphmem-vectors-2\n"

func save(path, identity string, pos map[entity.Scope]uint64, graphs map[gkey]*hnsw) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return entity.Wrap(entity.EINTERNAL, "vector.Save", err)
	}
	w := &writer{w: bufio.NewWriterSize(f, 1<<20)}
	w.bytes([]byte(magic))
	w.str(identity)
	scopes := make([]entity.Scope, 0, len(pos))
	for s := range pos {
		scopes = append(scopes, s)
	}
	sort.Strings(scopes)
	w.u32(uint32(len(scopes)))
	for _, s := range scopes {
		w.str(string(s))
		w.u64(pos[s])
	}
	keys := make([]gkey, 0, len(graphs))
	for k, g := range graphs {
		if g.len() > 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].scope != keys[j].scope {
			return keys[i].scope < keys[j].scope
		}
		return keys[i].typ < keys[j].typ
	})
	w.u32(uint32(len(keys)))
	for _, k := range keys {
		w.str(string(k.scope))
		w.str(k.typ)
		writeGraph(w, graphs[k])
	}
	err = w.err
	if err == nil {
		err = w.w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return entity.Wrap(entity.EINTERNAL, "vector.Save", err)
	}
	return nil
}

func writeGraph(w *writer, g *hnsw) {
	dense := make(map[int32]uint32, g.len())
	for i, n := range g.nodes {
		if n != nil {
			dense[int32(i)] = uint32(len(dense))
		}
	}
	w.u32(uint32(len(dense)))
	w.u32(dense[g.entry])
	for _, n := range g.nodes {
		if n == nil {
			continue
		}
		w.str(n.key)
		w.u64(n.digest)
		w.u32(math.Float32bits(n.scale))
		w.u32(uint32(len(n.vec)))
		b := make([]byte, len(n.vec))
		for i, v := range n.vec {
			b[i] = byte(v)
		}
		w.bytes(b)
		w.u32(uint32(len(n.links)))
		for _, l := range n.links {
			var live []uint32
			for _, o := range l {
				if d, ok := dense[o]; ok {
					live = append(live, d)
				}
			}
			w.u32(uint32(len(live)))
			for _, d := range live {
				w.u32(d)
			}
		}
	}
}

// load reads the file at path; graphs is nil when there is none or it was
// made by another model or layout (it is then removed).
func load(path, identity string) (map[entity.Scope]uint64, map[gkey]*hnsw, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, entity.Wrap(entity.EINTERNAL, "vector.Open", err)
	}
	defer f.Close()
	r := &reader{r: bufio.NewReaderSize(f, 1<<20)}
	m := r.bytes(len(magic))
	if r.err != nil || string(m) != magic || r.str() != identity || r.err != nil {
		f.Close()
		os.Remove(path)
		return nil, nil, nil
	}
	pos := map[entity.Scope]uint64{}
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		s := entity.Scope(r.str())
		pos[s] = r.u64()
	}
	graphs := map[gkey]*hnsw{}
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		k := gkey{entity.Scope(r.str()), r.str()}
		graphs[k] = readGraph(r)
	}
	if r.err != nil {
		return nil, nil, entity.Wrap(entity.EINTERNAL, "vector.Open", fmt.Errorf("%s: %w", path, r.err))
	}
	return pos, graphs, nil
}

func readGraph(r *reader) *hnsw {
	g := newHNSW()
	n := r.u32()
	entry := r.u32()
	if r.err != nil || n > 1<<28 {
		r.fail()
		return g
	}
	g.nodes = make([]*node, 0, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		nd := &node{key: r.str(), digest: r.u64(), scale: math.Float32frombits(r.u32())}
		dims := r.u32()
		if dims > 1<<16 {
			r.fail()
			break
		}
		b := r.bytes(int(dims))
		nd.vec = make([]int8, len(b))
		for j, v := range b {
			nd.vec[j] = int8(v)
		}
		levels := r.u32()
		if levels > 64 {
			r.fail()
			break
		}
		nd.links = make([][]int32, levels)
		for l := range nd.links {
			c := r.u32()
			if c > 1<<12 {
				r.fail()
				break
			}
			nd.links[l] = make([]int32, c)
			for j := range nd.links[l] {
				nd.links[l][j] = int32(r.u32())
			}
		}
		g.byKey[nd.key] = int32(len(g.nodes))
		g.nodes = append(g.nodes, nd)
	}
	for _, nd := range g.nodes {
		for _, l := range nd.links {
			for _, o := range l {
				if o < 0 || int(o) >= len(g.nodes) {
					r.fail()
					return g
				}
			}
		}
	}
	if n > 0 {
		if int(entry) >= len(g.nodes) {
			r.fail()
			return g
		}
		g.entry, g.top = int32(entry), len(g.nodes[entry].links)-1
	}
	return g
}

type writer struct {
	w   *bufio.Writer
	err error
	buf [8]byte
}

func (w *writer) bytes(b []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(b)
	}
}
func (w *writer) u32(v uint32) { binary.LittleEndian.PutUint32(w.buf[:4], v); w.bytes(w.buf[:4]) }
func (w *writer) u64(v uint64) { binary.LittleEndian.PutUint64(w.buf[:8], v); w.bytes(w.buf[:8]) }
func (w *writer) str(s string) { w.u32(uint32(len(s))); w.bytes([]byte(s)) }

type reader struct {
	r   *bufio.Reader
	err error
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errors.New("corrupt vector file")
	}
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		r.err = err
		return nil
	}
	return b
}

func (r *reader) u32() uint32 {
	if b := r.bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if b := r.bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *reader) str() string {
	n := r.u32()
	if n > 1<<20 {
		r.fail()
		return ""
	}
	return string(r.bytes(int(n)))
}
