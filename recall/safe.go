package recall

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/graphmem/graphmem/entity"
)

// flatten makes stored text safe to put on one line of a block: control
// characters, line and paragraph separators become spaces and runs of
// white space one space, so a stored value can never start a line of its
// own (and pass for a fact the model should trust); invisible characters
// are removed (invisible), so none can hide or reorder what a line shows.
func flatten(s string) string {
	s = strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
}

// invisible reports whether r shows nothing, or a blank that is not white
// space: every Default_Ignorable_Code_Point (format characters — zero-width
// spaces and joiners, bidi embeddings, overrides and isolates, the
// byte-order mark, tags —, variation selectors, the combining grapheme
// joiner U+034F, the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0) and
// the blank Braille pattern U+2800, a letter-like blank that no font
// draws.
func invisible(r rune) bool {
	if r < 0xAD {
		return false // ASCII and Latin-1 up to the soft hyphen: the common case
	}
	return unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point) || r == 0x2800
}

// Size limits of what a context carries besides its text.
const (
	attrRunes    = 200 // an attribute value in a line or in facts[]
	detailRunes  = 300 // the other attributes of a fact line, together
	summaryRunes = 400 // an entity summary in entities[]

	// ItemsPerToken bounds the structured part of a context answer: the
	// facts, entities and episodes together take at most ItemsPerToken ×
	// max_tokens estimated tokens as JSON, so the whole answer is at most
	// (1 + ItemsPerToken) × max_tokens plus a constant.
	ItemsPerToken = 5
	// itemOverhead is what the HTTP and MCP forms of an item add to its
	// JSON here (nulls, status, scope), in estimated tokens.
	itemOverhead = 40
)

// attrText is an attribute value as one flat, clipped line.
func attrText(v any) string {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			parts = append(parts, attrText(e))
		}
		s = strings.Join(parts, ", ")
	case nil:
		return ""
	default:
		b, err := json.Marshal(x)
		if err != nil {
			s = fmt.Sprint(x)
		} else {
			s = string(b)
		}
	}
	return clip(flatten(s), attrRunes)
}

// details lists a fact's attributes other than the reason, "key: value"
// separated by "; ", flat and clipped.
func details(attrs map[string]any) string {
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		if k != "reason" && k != "merged_into" {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if v := attrText(attrs[k]); v != "" {
			parts = append(parts, clip(flatten(k), 40)+": "+v)
		}
	}
	return clip(strings.Join(parts, "; "), detailRunes)
}

// clipAttrs returns attrs with every value clipped to attrRunes: strings
// stay strings, anything longer in JSON becomes its clipped text.
func clipAttrs(attrs map[string]any) map[string]any {
	if len(attrs) == 0 {
		return attrs
	}
	out := make(map[string]any, len(attrs))
	for k, v := range attrs {
		k = clip(k, 40)
		switch x := v.(type) {
		case string:
			out[k] = clip(x, attrRunes)
		case bool, float64, int, int64, nil:
			out[k] = x
		default:
			if b, err := json.Marshal(x); err == nil && len(b) <= attrRunes {
				out[k] = x
			} else {
				out[k] = attrText(x)
			}
		}
	}
	return out
}

// boundedFact, boundedEpisode and boundedEntity return the forms of a
// fact, an episode and an entity that a context or search answer carries:
// attributes, summaries and contents clipped, claims and revisions left
// out.
func boundedFact(f entity.Fact) entity.Fact {
	f.Attributes = clipAttrs(f.Attributes)
	f.Claims, f.Revisions = nil, nil
	return f
}

func boundedEpisode(ep entity.Episode, quote string) entity.Episode {
	ep.Content = quote
	ep.Metadata = clipAttrs(ep.Metadata)
	ep.Error = clip(ep.Error, attrRunes)
	ep.FactIDs = nil
	return ep
}

func boundedEntity(en entity.Entity) entity.Entity {
	en.Summary = clip(en.Summary, summaryRunes)
	en.Attributes = clipAttrs(en.Attributes)
	if len(en.Aliases) > 10 {
		en.Aliases = en.Aliases[:10]
	}
	return en
}

// jsonTokens is the estimated size of v as JSON.
func jsonTokens(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return EstimateTokens(string(b)) + itemOverhead
}

// itemTokens is the estimated size of a block's structured items.
func (bl *block) itemTokens() int {
	n := 0
	for _, f := range bl.facts {
		n += jsonTokens(f)
	}
	for _, e := range bl.episodes {
		n += jsonTokens(e)
	}
	if bl.entity != nil {
		n += jsonTokens(bl.entity)
	}
	return n
}
