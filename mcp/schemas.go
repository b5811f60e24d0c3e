package mcp

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphmem/graphmem/entity"
)

// Input schemas are derived from the argument types once, then given the
// enums and bounds a model should see; one value per process, so the SDK's
// schema cache (keyed by schema pointer) resolves each only once even when
// a server is built per HTTP request.
var (
	schemasOnce sync.Once
	schemas     map[string]*jsonschema.Schema
	schemaCache = sdk.NewSchemaCache()
)

func inputSchema(tool string) *jsonschema.Schema {
	schemasOnce.Do(func() {
		sources := make([]any, len(entity.SourceKinds))
		for i, k := range entity.SourceKinds {
			sources[i] = string(k)
		}
		roles := []any{entity.RoleUser, entity.RoleAssistant, entity.RoleSystem, entity.RoleTool}

		remember := derive[RememberArgs]()
		content := prop(remember, "content")
		content.MinLength = ptr(1)
		content.Description += fmt.Sprintf(" (at most %d KiB)", entity.MaxEpisodeBytes>>10)
		prop(remember, "role").Enum = roles
		prop(remember, "source_kind").Enum = sources

		facts := derive[AddFactsArgs]()
		list := prop(facts, "facts")
		list.MinItems, list.MaxItems = ptr(1), ptr(entity.MaxBatch)
		list.Description += fmt.Sprintf(", 1 to %d", entity.MaxBatch)
		item := list.Items
		prop(item, "subject").MinLength = ptr(1)
		prop(item, "predicate").MinLength = ptr(1)
		prop(item, "source_kind").Enum = sources
		prop(item, "cardinality").Enum = []any{"one", "many"}
		prop(item, "confidence").Minimum, prop(item, "confidence").Maximum = fptr(0), fptr(1)
		prop(item, "importance").Minimum, prop(item, "importance").Maximum = fptr(1), fptr(10)

		rec := derive[RecallArgs]()
		prop(rec, "query").MinLength = ptr(1)
		prop(rec, "mode").Enum = []any{"auto", "current", "history"}
		prop(rec, "format").Enum = []any{"text", "markdown", "json"}
		bound(prop(rec, "max_tokens"), entity.MinMaxTokens, entity.MaxMaxTokens, entity.DefaultMaxTokens)

		srch := derive[SearchArgs]()
		prop(srch, "query").MinLength = ptr(1)
		bound(prop(srch, "limit"), 1, entity.MaxSearchLimit, entity.DefaultSearchLimit)
		prop(srch, "types").Items.Enum = []any{"fact", "entity", "episode"}

		tl := derive[TimelineArgs]()
		prop(tl, "entity").MinLength = ptr(1)

		fg := derive[ForgetArgs]()
		prop(fg, "mode").Enum = []any{"forget", "purge"}
		fq := prop(fg, "query")
		fq.Description = strings.Replace(fq.Description, ";", fmt.Sprintf(" (at most %d)", entity.DefaultForgetLimit)+";", 1)

		schemas = map[string]*jsonschema.Schema{
			"remember": remember, "add_facts": facts, "context": rec, "recall": rec, "search": srch, "timeline": tl, "forget": fg,
		}
	})
	return schemas[tool]
}

func derive[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %T: %v", *new(T), err))
	}
	return s
}

// prop returns the schema of a property; a missing one is a programming
// error caught by the tests.
func prop(s *jsonschema.Schema, name string) *jsonschema.Schema {
	p, ok := s.Properties[name]
	if !ok {
		panic("mcp: no property " + name)
	}
	return p
}

// bound gives a number its range and default, in the schema and in the
// description a model reads.
func bound(p *jsonschema.Schema, lo, hi, def int) {
	p.Minimum, p.Maximum, p.Default = fptr(float64(lo)), fptr(float64(hi)), json.RawMessage(strconv.Itoa(def))
	p.Description += fmt.Sprintf(", %d to %d (default %d)", lo, hi, def)
}

func ptr(n int) *int          { return &n }
func fptr(f float64) *float64 { return &f }
