package entity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"unicode/utf8"
)

// surrogateEscape finds the bodies that may hold a lone surrogate: most
// never escape one, and are not read twice.
var surrogateEscape = regexp.MustCompile(`\\u[dD][89a-fA-F]`)

// pairedSurrogate is an escaped surrogate pair, the one right use of a
// surrogate escape.
var pairedSurrogate = regexp.MustCompile(`\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}`)

// validJSONString reports whether raw, a JSON string token as written,
// decodes to exactly its text: valid UTF-8, and no surrogate escaped
// alone.
func validJSONString(raw []byte) bool {
	if !utf8.Valid(raw) {
		return false
	}
	if !surrogateEscape.Match(raw) {
		return true
	}
	// An escaped backslash before a "u" is text, not an escape.
	raw = bytes.ReplaceAll(raw, []byte(`\\`), nil)
	return !surrogateEscape.Match(pairedSurrogate.ReplaceAll(raw, nil))
}

// InvalidJSONText returns the JSON path ("facts[2].value", "" for the body
// itself) of the first string of body — a key or a value — holding bytes
// that are not UTF-8; ok is false when there is none (or the body is not
// JSON, which its decoder then reports). Go's decoder would read such a
// string with U+FFFD in its place: REST and MCP refuse it by this path
// instead of storing text changed without a word.
func InvalidJSONText(body []byte) (path string, ok bool) {
	if utf8.Valid(body) && !surrogateEscape.Match(body) {
		return "", false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	// Each open container: its path, whether it is an object, the index
	// of the next element, and for an object whether a key comes next
	// and the last key read.
	type level struct {
		path   string
		object bool
		index  int
		key    bool
		name   string
	}
	var stack []level
	here := func() string { // the path of the value being read
		if len(stack) == 0 {
			return ""
		}
		l := stack[len(stack)-1]
		if l.object {
			if l.path == "" {
				return l.name
			}
			return l.path + "." + l.name
		}
		return fmt.Sprintf("%s[%d]", l.path, l.index)
	}
	done := func() { // a value of the top container was read
		if len(stack) == 0 {
			return
		}
		if l := &stack[len(stack)-1]; l.object {
			l.key = true
		} else {
			l.index++
		}
	}
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		raw := body[start:dec.InputOffset()]
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				stack = append(stack, level{path: here(), object: t == '{', key: true})
			default:
				stack = stack[:len(stack)-1]
				done()
			}
		case string:
			if l := len(stack); l > 0 && stack[l-1].object && stack[l-1].key {
				stack[l-1].key, stack[l-1].name = false, t
				if !validJSONString(raw) {
					return here(), true
				}
				continue
			}
			if !validJSONString(raw) {
				return here(), true
			}
			done()
		default:
			done()
		}
	}
}
