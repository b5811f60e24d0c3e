package graph

import (
	"encoding/base64"
	"regexp"
	"strings"

	"github.com/graphmem/graphmem/entity"
)

// CursorPattern is the shape of every page cursor: the canonical unpadded
// base64url encoding of a non-empty key (the last key of the previous
// page). The last character of a short final group has its unused bits
// zero, so a string matches exactly when DecodeCursor accepts it; the
// OpenAPI document publishes the same pattern.
const CursorPattern = `^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{4}|[A-Za-z0-9_-]{2}[AEIMQUYcgkosw048]|[A-Za-z0-9_-][AQgw])$`

var cursorRE = regexp.MustCompile(CursorPattern)

// EncodeCursor returns the cursor of a page that ends at key.
func EncodeCursor(key string) string { return base64.RawURLEncoding.EncodeToString([]byte(key)) }

// DecodeCursor returns the key a cursor starts after; "" for no cursor.
// Any string matching CursorPattern is a position (keys are compared in
// order, so one that names no record still starts a page); anything else
// is EINVALID.
func DecodeCursor(op, c string) (string, error) {
	if c == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(c)
	if err != nil || len(b) == 0 || !cursorRE.MatchString(c) {
		return "", &entity.Error{Code: entity.EINVALID, Op: op, Message: "invalid cursor: pass next_cursor from the previous page"}
	}
	// Keys are text: a position between byte strings that are not UTF-8
	// is as good as the nearest one that is.
	return strings.ToValidUTF8(string(b), "\uFFFD"), nil
}
