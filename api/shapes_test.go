package api_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
)

// shape is a type's JSON shape: the fields by JSON name, with their own
// shapes; named types count as what they are made of.
func shape(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + shape(t.Elem())
	case reflect.Slice:
		return "[]" + shape(t.Elem())
	case reflect.Map:
		return "map[" + shape(t.Key()) + "]" + shape(t.Elem())
	case reflect.Struct:
		if t == reflect.TypeFor[time.Time]() {
			return "time"
		}
		var fs []string
		for f := range t.Fields() {
			tag := f.Tag.Get("json")
			if tag == "-" || !f.IsExported() {
				continue
			}
			fs = append(fs, fmt.Sprintf("%s:%s", tag, shape(f.Type)))
		}
		return "{" + strings.Join(fs, " ") + "}"
	}
	return t.Kind().String()
}

// TestWireShapes: the client's request and answer types (package wire)
// send and read the same JSON as the server's own.
func TestWireShapes(t *testing.T) {
	for _, p := range []struct{ server, wire reflect.Type }{
		{reflect.TypeFor[memory.FactInput](), reflect.TypeFor[wire.FactInput]()},
		{reflect.TypeFor[memory.EpisodeInput](), reflect.TypeFor[wire.EpisodeInput]()},
		{reflect.TypeFor[memory.ForgetResult](), reflect.TypeFor[wire.ForgetResult]()},
		{reflect.TypeFor[memory.AuditRecord](), reflect.TypeFor[wire.AuditRecord]()},
		{reflect.TypeFor[memory.ImportResult](), reflect.TypeFor[wire.ImportResult]()},
		{reflect.TypeFor[graph.Lag](), reflect.TypeFor[wire.Lag]()},
		{reflect.TypeFor[ontology.Description](), reflect.TypeFor[wire.Ontology]()},
	} {
		if s, w := shape(p.server), shape(p.wire); s != w {
			t.Errorf("%v and %v differ:\n%s\n%s", p.server, p.wire, s, w)
		}
	}
}
