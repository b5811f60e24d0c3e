package search

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"os"
	"strconv"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// syncPage is how many changes one Sync batch applies.
const syncPage = 1000

// Sync applies the store's changes after the last sequence the index
// applied and returns how many it applied. The documents and the new
// sequence go into one Bleve batch, so a crash leaves the index at a
// consistent earlier sequence and the next Sync catches up. Records that
// were deleted, or are gone by the time Sync reads them, leave the index.
func (x *Index) Sync(ctx context.Context, store graph.Store) (int, error) {
	x.syncMu.Lock()
	defer x.syncMu.Unlock()
	x.syncing.Store(true)
	defer x.syncing.Store(false)
	x.pending.Store(false)
	n := 0
	for {
		if err := ctxErr(ctx, "search.Sync"); err != nil {
			return n, err
		}
		changes, err := store.Changes(ctx, x.Seq(), syncPage)
		if err != nil {
			return n, err
		}
		if len(changes) == 0 {
			return n, nil
		}
		if err := x.apply(ctx, store, changes); err != nil {
			return n, err
		}
		n += len(changes)
		if len(changes) < syncPage {
			return n, nil
		}
	}
}

// apply indexes one page of changes in one batch with its last sequence.
func (x *Index) apply(ctx context.Context, store graph.Store, changes []graph.Change) error {
	// Raised before the documents are visible, so a query never trusts a
	// flag set later than it thinks (see Query and flagEnded).
	now := time.Now()
	if n := now.UnixNano(); n > x.flagged.Load() {
		x.flagged.Store(n)
	}
	b := x.bi.NewBatch()
	byScope := map[entity.Scope][]graph.Change{}
	var scopes []entity.Scope
	for _, c := range changes {
		if _, ok := byScope[c.Scope]; !ok {
			scopes = append(scopes, c.Scope)
		}
		byScope[c.Scope] = append(byScope[c.Scope], c)
	}
	for _, scope := range scopes {
		err := store.View(ctx, scope, func(tx graph.Tx) error {
			return x.indexChanges(b, tx, byScope[scope], now)
		})
		if err != nil {
			return err
		}
	}
	last := changes[len(changes)-1].Seq
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], last)
	b.SetInternal(seqKey, v[:])
	if err := x.bi.Batch(b); err != nil {
		return entity.Wrap(entity.EINTERNAL, "search.Sync", err)
	}
	x.seqMu.Lock()
	x.seq = last
	x.seqMu.Unlock()
	return nil
}

type batch interface {
	Index(id string, data any) error
	Delete(id string)
}

// indexChanges puts the documents of changes of one scope into b: the
// records are read in one batch per kind (one round trip each on Neo4j),
// and a record deleted, forgotten or gone by now leaves the index.
func (x *Index) indexChanges(b batch, tx graph.Tx, changes []graph.Change, now time.Time) error {
	var factIDs, entityIDs, episodeIDs []string
	for _, c := range changes {
		if c.Deleted {
			continue
		}
		switch c.Kind {
		case graph.KindFact:
			factIDs = append(factIDs, c.ID)
		case graph.KindEntity:
			entityIDs = append(entityIDs, c.ID)
		case graph.KindEpisode:
			episodeIDs = append(episodeIDs, c.ID)
		}
	}
	facts, err := graph.FactsByID(tx, factIDs)
	if err != nil {
		return err
	}
	entities, err := graph.EntitiesByID(tx, entityIDs)
	if err != nil {
		return err
	}
	episodes, err := graph.EpisodesByID(tx, episodeIDs)
	if err != nil {
		return err
	}
	for _, c := range changes {
		var typ string
		var doc map[string]any // nil: out of the index
		switch c.Kind {
		case graph.KindFact:
			typ = TypeFact
			// Forgotten facts leave every recall path, history included.
			if f, ok := facts[c.ID]; ok && !c.Deleted && f.ForgottenAt == nil {
				doc = factDoc(&f, now)
			}
		case graph.KindEntity:
			typ = TypeEntity
			if e, ok := entities[c.ID]; ok && !c.Deleted && e.ForgottenAt == nil {
				doc = entityDoc(&e)
			}
		case graph.KindEpisode:
			typ = TypeEpisode
			// A forgotten episode's text would tell a forgotten fact again.
			if e, ok := episodes[c.ID]; ok && !c.Deleted && e.ForgottenAt == nil {
				doc = episodeDoc(&e)
			}
		default:
			continue // tombstones are not searchable
		}
		id := docID(typ, c.Scope, c.ID)
		if doc == nil {
			b.Delete(id)
			continue
		}
		h, err := digest(doc)
		if err != nil {
			return entity.Wrap(entity.EINTERNAL, "search.Sync", err)
		}
		if x.storedDigest(id) == h {
			continue // only what the index does not hold changed
		}
		doc[fHash] = h
		if err := b.Index(id, doc); err != nil {
			return err
		}
	}
	return nil
}

// digest is a short hash of a document's JSON (map keys sorted).
func digest(doc map[string]any) (string, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	h := fnv.New64a()
	h.Write(b)
	return strconv.FormatUint(h.Sum64(), 36), nil
}

// storedDigest returns the digest stored with document id, "" if none.
func (x *Index) storedDigest(id string) string {
	d, err := x.bi.Document(id)
	if err != nil || d == nil {
		return ""
	}
	var h string
	d.VisitFields(func(f index.Field) {
		if f.Name() == fHash {
			h = string(f.Value())
		}
	})
	return h
}

// Notify wakes Follow to sync now; it never blocks. Hook it to the memory
// service's Changed callback for read-your-writes within milliseconds.
func (x *Index) Notify() {
	x.pending.Store(true)
	select {
	case x.notify <- struct{}{}:
	default:
	}
}

// CatchUp syncs when a local write was notified and not applied yet, or
// a sync that may be applying it is running, so a search right after a
// write finds it (read your writes); otherwise it costs nothing. Writes of
// other processes are Follow's.
func (x *Index) CatchUp(ctx context.Context, store graph.Store) error {
	if !x.pending.Load() && !x.syncing.Load() {
		return nil
	}
	_, err := x.Sync(ctx, store)
	return err
}

// Follow keeps the index in sync with store until ctx ends: it syncs at
// once, then whenever Notify is called and at least every interval (which
// also picks up writes of other processes, e.g. other replicas sharing a
// Neo4j store). Errors are passed to onErr (when set) and retried at the
// next tick.
func (x *Index) Follow(ctx context.Context, store graph.Store, interval time.Duration, onErr func(error)) {
	if interval <= 0 {
		interval = time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := x.Sync(ctx, store); err != nil && ctx.Err() == nil && onErr != nil {
			onErr(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-x.notify:
		case <-t.C:
		}
	}
}

// Rebuild makes a fresh index of store in dir, replacing the one there
// only once the new one is complete: it is built in a sibling folder and
// renamed into place, so an interrupted rebuild leaves the old index
// usable. No other process may have dir open.
func Rebuild(ctx context.Context, dir string, store graph.Store) (*Index, error) {
	tmp := dir + ".rebuild"
	if err := os.RemoveAll(tmp); err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, "search.Rebuild", err)
	}
	x, err := Open(tmp)
	if err != nil {
		return nil, err
	}
	_, err = x.Sync(ctx, store)
	if err == nil {
		err = x.Compact(ctx)
	}
	if err != nil {
		x.Close()
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := x.Close(); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, "search.Rebuild", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, entity.Wrap(entity.EINTERNAL, "search.Rebuild", err)
	}
	return Open(dir)
}

// compactPlaceholder is the id of the document Compact writes and deletes.
const compactPlaceholder = "\x00compact"

// Compact merges the index's segments into one, which makes queries
// faster after a bulk load (Rebuild, a long catch-up). It blocks until
// done; searches and syncs may run meanwhile.
func (x *Index) Compact(ctx context.Context) error {
	ai, err := x.bi.Advanced()
	if err != nil {
		return entity.Wrap(entity.EINTERNAL, "search.Compact", err)
	}
	s, ok := ai.(*scorch.Scorch)
	if !ok {
		return nil
	}
	// Deleted documents keep their terms in the segment that held them
	// until a merge rewrites it, and the merger never rewrites a lone
	// segment: a placeholder written now makes sure there are two, so a
	// purge leaves no term behind. It is deleted after the merge (a
	// deleted placeholder holds no term of any record).
	if err := x.bi.Index(compactPlaceholder, map[string]any{fType: "placeholder"}); err != nil {
		return entity.Wrap(entity.EINTERNAL, "search.Compact", err)
	}
	// The merger only rewrites segments already on disk.
	if err := x.persisted(ctx, true); err != nil {
		return err
	}
	if err := s.ForceMerge(ctx, &mergeplan.SingleSegmentMergePlanOptions); err != nil {
		return entity.Wrap(entity.EINTERNAL, "search.Compact", err)
	}
	if err := x.bi.Delete(compactPlaceholder); err != nil {
		return entity.Wrap(entity.EINTERNAL, "search.Compact", err)
	}
	return nil
}

// persisted waits until every batch applied so far is on disk and, with
// files, until no segment is held in memory only (the merger rewrites
// only segments on disk).
func (x *Index) persisted(ctx context.Context, files bool) error {
	ai, err := x.bi.Advanced()
	if err != nil {
		return entity.Wrap(entity.EINTERNAL, "search.persisted", err)
	}
	s, ok := ai.(*scorch.Scorch)
	if !ok {
		return nil
	}
	target, _ := s.StatsMap()["CurRootEpoch"].(uint64)
	for {
		m := s.StatsMap()
		n, _ := m["LastPersistedEpoch"].(uint64)
		mem, _ := m["num_root_memorysegments"].(uint64)
		if n >= target && (!files || mem == 0) {
			return nil
		}
		select {
		case <-ctx.Done():
			return entity.Wrap(entity.EUNAVAILABLE, "search.persisted", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}
