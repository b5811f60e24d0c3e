package memory_test

import "regexp"

var (
	regexpScope = regexp.MustCompile(`"scope":"[^"]*"`)
	regexpSeq   = regexp.MustCompile(`,?"seq":\d+`)
)
