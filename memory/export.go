package memory

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// Record is one line of an export: exactly one of its fields is set. Facts
// keep both time axes, claims and revisions, so a round trip is lossless.
type Record struct {
	Tombstone *entity.Tombstone `json:"tombstone,omitempty"`
	Entity    *entity.Entity    `json:"entity,omitempty"`
	Episode   *entity.Episode   `json:"episode,omitempty"`
	Fact      *entity.Fact      `json:"fact,omitempty"`
}

const exportPage = 500

// Export writes everything in the scope as JSON Lines: tombstones, then
// entities, episodes and facts. Each kind is read page by page, each page in
// its own read transaction.
func (s *Service) Export(ctx context.Context, scope entity.Scope, w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	page := func(list func(tx graph.Tx, cursor string) ([]Record, string, error)) error {
		cursor := ""
		for {
			var recs []Record
			var next string
			err := s.Store.View(ctx, scope, func(tx graph.Tx) error {
				var err error
				recs, next, err = list(tx, cursor)
				return err
			})
			if err != nil {
				return err
			}
			for i := range recs {
				if err := enc.Encode(&recs[i]); err != nil {
					return err
				}
			}
			if next == "" {
				return nil
			}
			cursor = next
		}
	}
	steps := []func(tx graph.Tx, cursor string) ([]Record, string, error){
		func(tx graph.Tx, c string) ([]Record, string, error) {
			ts, next, err := tx.ListTombstones(c, exportPage)
			out := make([]Record, len(ts))
			for i := range ts {
				out[i].Tombstone = &ts[i]
			}
			return out, next, err
		},
		func(tx graph.Tx, c string) ([]Record, string, error) {
			es, next, err := tx.Entities(c, exportPage)
			out := make([]Record, len(es))
			for i := range es {
				out[i].Entity = &es[i]
			}
			return out, next, err
		},
		func(tx graph.Tx, c string) ([]Record, string, error) {
			es, next, err := tx.Episodes("", c, exportPage)
			out := make([]Record, len(es))
			for i := range es {
				out[i].Episode = &es[i]
			}
			return out, next, err
		},
		func(tx graph.Tx, c string) ([]Record, string, error) {
			fs, next, err := tx.Facts(graph.FactFilter{Cursor: c, Limit: exportPage})
			out := make([]Record, len(fs))
			for i := range fs {
				out[i].Fact = &fs[i]
			}
			return out, next, err
		},
	}
	for _, st := range steps {
		if err := page(st); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ImportResult counts what an import wrote.
type ImportResult struct {
	Tombstones int `json:"tombstones"`
	Entities   int `json:"entities"`
	Episodes   int `json:"episodes"`
	Facts      int `json:"facts"`
	// Blocked counts facts left out because the scope forgot them.
	Blocked int `json:"blocked_by_tombstone"`
}

// Import reads an export into the scope, keeping ids and times. Tombstones
// are honoured: a fact matching one is left out unless it was itself
// forgotten (and stays so) or is an explicit user statement recorded after
// the forget. The whole stream is read and checked before anything is
// written (it is spooled to a temporary file meanwhile), so a malformed
// record — EINVALID naming its line — leaves the scope untouched.
func (s *Service) Import(ctx context.Context, scope entity.Scope, r io.Reader) (ImportResult, error) {
	var res ImportResult
	spool, err := os.CreateTemp("", "graphmem-import-*.jsonl")
	if err != nil {
		return res, entity.Wrap(entity.EINTERNAL, "memory.Import", err)
	}
	defer func() {
		spool.Close()
		os.Remove(spool.Name())
	}()
	w := bufio.NewWriter(spool)
	enc := json.NewEncoder(w)
	if err := readRecords(r, true, func(rec *Record) error { return enc.Encode(rec) }); err != nil {
		return res, err
	}
	if err := w.Flush(); err != nil {
		return res, entity.Wrap(entity.EINTERNAL, "memory.Import", err)
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return res, entity.Wrap(entity.EINTERNAL, "memory.Import", err)
	}
	var batch []Record
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		var got ImportResult
		err := s.update(ctx, scope, func(tx graph.Tx) error {
			got = ImportResult{} // a retried transaction counts once
			return s.importBatch(tx, scope, batch, &got)
		})
		batch = batch[:0]
		if err == nil {
			res.Tombstones += got.Tombstones
			res.Entities += got.Entities
			res.Episodes += got.Episodes
			res.Facts += got.Facts
			res.Blocked += got.Blocked
		}
		return err
	}
	err = readRecords(bufio.NewReader(spool), false, func(rec *Record) error {
		batch = append(batch, *rec)
		if len(batch) == exportPage {
			return flush()
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	return res, flush()
}

// readRecords decodes JSON Lines of Records and calls fn with each; with
// check, a malformed record is EINVALID naming its line ("line[3].fact").
func readRecords(r io.Reader, check bool, fn func(*Record) error) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	for line := 1; ; line++ {
		var rec Record
		err := dec.Decode(&rec)
		if err == io.EOF {
			return nil
		}
		at := fmt.Sprintf("line[%d]", line)
		if err != nil {
			return entity.FieldErrors{at: err.Error()}.Err()
		}
		if check {
			if field, msg := checkRecord(&rec); msg != "" {
				return entity.FieldErrors{at + field: msg}.Err()
			}
		}
		if err := fn(&rec); err != nil {
			return err
		}
	}
}

// checkRecord says what is wrong with a record of an export, if anything:
// the field under its line and the message.
func checkRecord(rec *Record) (string, string) {
	n := 0
	for _, set := range []bool{rec.Tombstone != nil, rec.Entity != nil, rec.Episode != nil, rec.Fact != nil} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		return "", "exactly one of tombstone, entity, episode, fact"
	case rec.Fact != nil:
		if err := rec.Fact.Validate(); err != nil || rec.Fact.ID == "" || rec.Fact.SubjectID == "" {
			return ".fact", "invalid fact"
		}
	case rec.Entity != nil && (rec.Entity.ID == "" || rec.Entity.Name == ""):
		return ".entity", "an entity needs an id and a name"
	case rec.Episode != nil && rec.Episode.ID == "":
		return ".episode", "an episode needs an id"
	case rec.Tombstone != nil && rec.Tombstone.Fingerprint == "":
		return ".tombstone", "a tombstone needs a fingerprint"
	}
	return "", ""
}

func (s *Service) importBatch(tx graph.Tx, scope entity.Scope, batch []Record, res *ImportResult) error {
	var ents []entity.Entity
	var facts []entity.Fact
	fps := map[string]bool{}
	for _, r := range batch {
		if r.Fact != nil {
			r.Fact.Scope = scope
			fps[FactFingerprint(r.Fact)] = true
		}
	}
	tombs, err := tx.Tombstones(mapKeys(fps))
	if err != nil {
		return err
	}
	for _, r := range batch {
		switch {
		case r.Tombstone != nil:
			t := *r.Tombstone
			t.Scope = scope
			if err := tx.PutTombstone(t); err != nil {
				return err
			}
			tombs[t.Fingerprint] = t
			res.Tombstones++
		case r.Entity != nil:
			e := *r.Entity
			e.Scope, e.Seq = scope, 0
			ents = append(ents, e)
		case r.Episode != nil:
			e := *r.Episode
			e.Scope, e.Seq = scope, 0
			// An episode the scope has since forgotten stays forgotten.
			if old, err := tx.Episode(e.ID); err == nil && old.ForgottenAt != nil && e.ForgottenAt == nil {
				e.ForgottenAt = old.ForgottenAt
			} else if err != nil && entity.ErrorCode(err) != entity.ENOTFOUND {
				return err
			}
			if err := tx.PutEpisode(e); err != nil {
				return err
			}
			res.Episodes++
		case r.Fact != nil:
			f := *r.Fact
			f.Scope, f.Seq = scope, 0
			if t, ok := tombs[FactFingerprint(&f)]; ok && f.ForgottenAt == nil &&
				!(f.SourceKind == entity.UserExplicit && f.RecordedAt.After(t.At)) {
				res.Blocked++
				continue
			}
			facts = append(facts, f)
		}
	}
	if err := tx.PutEntities(ents); err != nil {
		return err
	}
	res.Entities += len(ents)
	if err := tx.PutFacts(facts); err != nil {
		return err
	}
	res.Facts += len(facts)
	return nil
}
