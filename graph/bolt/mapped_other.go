//go:build !linux

package bolt

import "go.etcd.io/bbolt"

// dropMapped does nothing where madvise is not at hand.
func dropMapped(*bbolt.DB, *bbolt.Tx) {}
