package entity

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Tombstone remembers that a fact was forgotten, so extraction, import and
// agents' inferences cannot silently bring it back. It keeps a fingerprint,
// never the content.
type Tombstone struct {
	Scope       Scope     `json:"scope"`
	Fingerprint string    `json:"fingerprint"`
	At          time.Time `json:"at"`
	Reason      string    `json:"reason,omitempty"`
	FactIDs     []string  `json:"fact_ids,omitempty"`
}

// Fingerprint identifies the statement subject —predicate→ object (or value)
// within a scope, insensitive to case, spacing, punctuation and Unicode form.
func Fingerprint(scope Scope, subject, predicate, object string) string {
	h := sha256.New()
	for _, part := range []string{scope, Normalize(subject), predicate, Normalize(object)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
