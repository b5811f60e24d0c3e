package memory

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/graphmem/graphmem/entity"
)

// An import is written in several transactions, so that its memory does
// not grow with its size. To keep it all-or-nothing across a crash, a
// checked import is first committed to the journal folder (Service.Journal)
// and only then written; its journal entry goes once the last batch has
// committed. Writes are upserts by id, so an entry the server finds when it
// starts (ResumeImports) is written again from its start, to its end.
//
// An entry is two files named by one id: <id>.scope holds the scope, and
// <id>.jsonl the checked stream. The stream is spooled as <id>.part and
// renamed to <id>.jsonl, after the scope file is synced: the rename is the
// commit point.
const (
	journalPart  = ".part"
	journalData  = ".jsonl"
	journalScope = ".scope"
)

// spoolFile opens the file an import's stream waits in while it is read
// and checked: in the journal when there is one, else a temporary file.
func (s *Service) spoolFile() (*os.File, error) {
	if s.Journal == "" {
		return os.CreateTemp("", "graphmem-import-*.jsonl")
	}
	if err := os.MkdirAll(s.Journal, 0o700); err != nil {
		return nil, err
	}
	return os.OpenFile(filepath.Join(s.Journal, s.NewID()+journalPart), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
}

// commitSpool makes a checked spool an entry of the journal, durably, and
// returns the entry's stream path; without a journal it does nothing.
func (s *Service) commitSpool(spool *os.File, scope entity.Scope) (string, error) {
	name := spool.Name()
	if s.Journal == "" {
		return name, nil
	}
	if err := spool.Sync(); err != nil {
		return "", err
	}
	base := strings.TrimSuffix(name, journalPart)
	if err := writeSynced(base+journalScope, []byte(scope)); err != nil {
		return "", err
	}
	if err := os.Rename(name, base+journalData); err != nil {
		return "", err
	}
	return base + journalData, syncDir(s.Journal)
}

// dropEntry removes an import's spool or journal entry, whatever stage it
// reached, durably when it was in the journal.
func (s *Service) dropEntry(path string) {
	base := strings.TrimSuffix(strings.TrimSuffix(path, journalPart), journalData)
	for _, ext := range []string{journalPart, journalData, journalScope} {
		os.Remove(base + ext)
	}
	if s.Journal != "" {
		syncDir(s.Journal)
	}
}

// ResumeImports finishes every import a crash or a store failure left in
// the journal, one after the other, and drops what a crash left before an
// import was checked. It returns how many it finished; the server runs it
// before it serves.
func (s *Service) ResumeImports(ctx context.Context, log *slog.Logger) (int, error) {
	if s.Journal == "" {
		return 0, nil
	}
	names, err := os.ReadDir(s.Journal)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	} else if err != nil {
		return 0, entity.Wrap(entity.EINTERNAL, "memory.ResumeImports", err)
	}
	done := 0
	for _, d := range names {
		path := filepath.Join(s.Journal, d.Name())
		switch filepath.Ext(path) {
		case journalPart:
			s.dropEntry(path) // never checked: never acknowledged, never begun
		case journalData:
			log.Info("finishing an import a stop had interrupted", "journal", path)
			res, err := s.resume(ctx, path)
			if err != nil {
				return done, err
			}
			log.Info("finished the interrupted import", "facts", res.Facts, "entities", res.Entities,
				"episodes", res.Episodes, "tombstones", res.Tombstones)
			done++
		}
	}
	return done, nil
}

// resume writes one journal entry's stream again into its scope.
func (s *Service) resume(ctx context.Context, path string) (ImportResult, error) {
	scope, err := os.ReadFile(strings.TrimSuffix(path, journalData) + journalScope)
	if err != nil {
		return ImportResult{}, entity.Wrap(entity.EINTERNAL, "memory.ResumeImports", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return ImportResult{}, entity.Wrap(entity.EINTERNAL, "memory.ResumeImports", err)
	}
	res, err := s.writeSpool(ctx, string(scope), f)
	f.Close()
	if err == nil {
		s.dropEntry(path)
	}
	return res, err
}

// writeSynced writes data to a new file at path and syncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir syncs a folder, so that the names created or renamed in it
// survive a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
