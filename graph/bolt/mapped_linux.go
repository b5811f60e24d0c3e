package bolt

import (
	"syscall"

	"go.etcd.io/bbolt"
)

// dropMapped tells the kernel the process no longer needs the pages of
// the file it has mapped. bbolt reads the file through a shared read-only
// mapping, and every page a read touches stays counted in the process's
// resident memory: after an import or a scrub, the whole file. The pages
// stay in the page cache, and a later read maps them again from there.
// btx must be open (a read or write transaction), so the mapping is not
// replaced meanwhile.
func dropMapped(db *bbolt.DB, btx *bbolt.Tx) {
	syscall.Syscall(syscall.SYS_MADVISE, db.Info().Data, uintptr(btx.Size()), syscall.MADV_DONTNEED)
}
