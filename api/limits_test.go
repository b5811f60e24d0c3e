package api

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/entity"
)

// tagRule is the argument of rule (min, max) in a field's validate tag,
// the field's own rule (before any dive), or -1.
func tagRule(f reflect.StructField, rule string) int {
	for _, r := range strings.Split(f.Tag.Get("validate"), ",") {
		if r == "dive" {
			break
		}
		if arg, ok := strings.CutPrefix(r, rule+"="); ok {
			n, _ := strconv.Atoi(arg)
			return n
		}
	}
	return -1
}

// TestLimits_EveryCopyAgrees: every limit a request may reach is defined
// once, in package entity. What can refer to it does (the service, the
// recall engine, the OpenAPI query parameters, the MCP schemas); this test
// fails when a copy that cannot drifts from it: a validate or doc tag of a
// request type, the Python and TypeScript clients, the web view.
func TestLimits_EveryCopyAgrees(t *testing.T) {
	type bound struct {
		field string
		rule  string // min, max, or doc: the number after "default" in the doc tag
		want  int
	}
	tags := map[reflect.Type][]bound{
		reflect.TypeOf(factInput{}): {
			{"Subject", "max", entity.MaxNameLen}, {"Object", "max", entity.MaxNameLen}, {"Predicate", "max", entity.MaxPredicateLen},
			{"SubjectType", "max", entity.MaxPredicateLen}, {"ObjectType", "max", entity.MaxPredicateLen},
			{"Value", "max", entity.MaxValueLen}, {"Text", "max", entity.MaxTextLen}, {"Attributes", "max", entity.MaxAttributes},
		},
		reflect.TypeOf(factsRequest{}):    {{"Facts", "max", entity.MaxBatch}},
		reflect.TypeOf(rawFactsRequest{}): {{"Facts", "max", entity.MaxBatch}},
		reflect.TypeOf(episodeRequest{}): {
			{"Speaker", "max", entity.MaxNameLen}, {"IdempotencyKey", "max", entity.MaxKeyLen}, {"Metadata", "max", entity.MaxAttributes},
			{"Content", "doc KiB", entity.MaxEpisodeBytes >> 10},
		},
		reflect.TypeOf(searchRequest{}): {
			{"Query", "max", entity.MaxQueryBytes},
			{"Limit", "min", 1}, {"Limit", "max", entity.MaxSearchLimit}, {"Limit", "doc default", entity.DefaultSearchLimit},
		},
		reflect.TypeOf(contextRequest{}): {
			{"Query", "max", entity.MaxQueryBytes}, {"Focus", "max", entity.MaxFocus},
			{"MaxTokens", "min", entity.MinMaxTokens}, {"MaxTokens", "max", entity.MaxMaxTokens},
			{"MaxTokens", "doc default", entity.DefaultMaxTokens},
		},
		reflect.TypeOf(forgetRequest{}): {
			{"Entity", "max", entity.MaxNameLen}, {"Query", "max", entity.MaxForgetQueryLen}, {"Reason", "max", entity.MaxReasonLen},
			{"FactIDs", "max", entity.MaxBatch}, {"Limit", "max", entity.MaxBatch},
			{"Limit", "doc default", entity.DefaultForgetLimit}, {"Limit", "doc in all", entity.MaxBatch},
		},
	}
	docNumber := map[string]*regexp.Regexp{
		"doc default": regexp.MustCompile(`default (\d+)`),
		"doc KiB":     regexp.MustCompile(`(\d+) KiB`),
		"doc in all":  regexp.MustCompile(`at most (\d+) facts in all`),
	}
	for typ, bounds := range tags {
		for _, b := range bounds {
			f, ok := typ.FieldByName(b.field)
			if !ok {
				t.Errorf("%s has no field %s", typ.Name(), b.field)
				continue
			}
			got := -1
			if re, ok := docNumber[b.rule]; ok {
				if m := re.FindStringSubmatch(f.Tag.Get("doc")); m != nil {
					got, _ = strconv.Atoi(m[1])
				}
			} else {
				got = tagRule(f, b.rule)
			}
			if got != b.want {
				t.Errorf("%s.%s: %s %d, the limit is %d (entity/limits.go)", typ.Name(), b.field, b.rule, got, b.want)
			}
		}
	}
	for _, p := range append(append(factQuery, entityQuery...), timelineQuery...) {
		switch p.Name {
		case "subject", "name":
			if p.Max != entity.MaxNameLen {
				t.Errorf("?%s: max %d", p.Name, p.Max)
			}
		case "predicate":
			if p.Max != entity.MaxPredicateLen {
				t.Errorf("?%s: max %d", p.Name, p.Max)
			}
		}
	}

	// The copies outside Go. Each pattern must match somewhere in its
	// files (a rewording must update the test, not slip past it), and
	// every match must give the limit.
	type copyOf struct {
		files   string // a glob under the repository root
		pattern string // its groups are the numbers, in the order of want
		want    []int
	}
	copies := []copyOf{
		{"ui/assets/pages.js", `name: 'max_tokens', min: (\d+), max: (\d+),.*'(\d+)'`, []int{entity.MinMaxTokens, entity.MaxMaxTokens, entity.DefaultMaxTokens}},
		{"clients/python/src/graphmem/*.py", `page_size <= (\d+)`, []int{entity.MaxPageSize}},
		{"clients/python/src/graphmem/*.py", `page_size must be between 1 and (\d+)`, []int{entity.MaxPageSize}},
		{"clients/python/src/graphmem/*.py", `def search\(\s*self,\s*query: str,\s*limit: int = (\d+)`, []int{entity.DefaultSearchLimit}},
		{"clients/python/src/graphmem/*.py", `selects \(server default (\d+)\)`, []int{entity.DefaultForgetLimit}},
		{"clients/python/src/graphmem/*.py", "changes \\(default\\s+(\\d+)\\)", []int{entity.DefaultRecent}},
	}
	if _, err := os.Stat("../clients/typescript/src"); err == nil {
		copies = append(copies,
			copyOf{"clients/typescript/src/*.ts", `pageSize <= (\d+)`, []int{entity.MaxPageSize}},
			copyOf{"clients/typescript/src/*.ts", `between 1 and (\d+)`, []int{entity.MaxPageSize}},
			copyOf{"clients/typescript/src/*.ts", `per request, 1 to (\d+)`, []int{entity.MaxPageSize}},
			copyOf{"clients/typescript/src/*.ts", "changes \\(default (\\d+)\\)", []int{entity.DefaultRecent}},
		)
	}
	for _, c := range copies {
		files, err := filepath.Glob(filepath.Join("..", c.files))
		if err != nil || len(files) == 0 {
			t.Errorf("%s: no files (%v)", c.files, err)
			continue
		}
		re := regexp.MustCompile(c.pattern)
		found := 0
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range re.FindAllStringSubmatch(string(b), -1) {
				found++
				got := make([]int, len(m)-1)
				for i, s := range m[1:] {
					got[i], _ = strconv.Atoi(s)
				}
				if !slices.Equal(got, c.want) {
					t.Errorf("%s: %q says %v, the limits are %v (entity/limits.go)", filepath.Base(name), m[0], got, c.want)
				}
			}
		}
		if found == 0 {
			t.Errorf("%s: nothing matches %q: update this test where the copy now is", c.files, c.pattern)
		}
	}
}
