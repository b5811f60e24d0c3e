package api

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/entity"
)

// TestValidateTags_MatchDomainLimits: the length limits in the request
// types' validate tags are the domain's, so the API neither refuses what
// the service takes nor lets through what it would refuse.
func TestValidateTags_MatchDomainLimits(t *testing.T) {
	limits := map[reflect.Type]map[string]int{
		reflect.TypeOf(factInput{}): {
			"Subject": entity.MaxNameLen, "Object": entity.MaxNameLen, "Predicate": entity.MaxPredicateLen,
			"SubjectType": entity.MaxPredicateLen, "ObjectType": entity.MaxPredicateLen,
			"Value": entity.MaxValueLen, "Text": entity.MaxTextLen, "Attributes": entity.MaxAttributes,
		},
		reflect.TypeOf(episodeRequest{}): {"Speaker": entity.MaxNameLen, "IdempotencyKey": entity.MaxKeyLen, "Metadata": entity.MaxAttributes},
		reflect.TypeOf(searchRequest{}):  {"Query": entity.MaxTextLen},
		reflect.TypeOf(contextRequest{}): {"Query": entity.MaxTextLen},
		reflect.TypeOf(forgetRequest{}):  {"Entity": entity.MaxNameLen},
	}
	for typ, fields := range limits {
		for name, want := range fields {
			f, ok := typ.FieldByName(name)
			if !ok {
				t.Errorf("%s has no field %s", typ.Name(), name)
				continue
			}
			got := -1
			for _, rule := range strings.Split(f.Tag.Get("validate"), ",") {
				if arg, ok := strings.CutPrefix(rule, "max="); ok {
					got, _ = strconv.Atoi(arg)
					break // the field's own limit comes before any dive
				}
			}
			if got != want {
				t.Errorf("%s.%s: validate max=%d, the domain's limit is %d", typ.Name(), name, got, want)
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
}
