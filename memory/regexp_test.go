package memory_test

import (
	"encoding/json"
	"regexp"
)

var (
	regexpScope = regexp.MustCompile(`"scope":"[^"]*"`)
	regexpSeq   = regexp.MustCompile(`,?"seq":\d+`)
)

func jsonString(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
