package api

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
)

// Endpoint describes one route for the OpenAPI document. Request and
// response schemas are derived from Go values: their json tags name the
// properties and their validate tags give required fields, enumerations and
// length limits, so the document follows the types the handlers use.
type Endpoint struct {
	Method  string // GET, POST, DELETE…
	Path    string // in gin syntax: /v1/facts/:id
	Summary string
	Tag     string
	// Public routes need no API key.
	Public bool
	Query  []Param
	// Body is a value of the request type, nil for none; BodyType is its
	// media type (application/json when empty).
	Body     any
	BodyType string
	// Example is an example request body.
	Example any
	// Status is the success status (200 when 0) and Response a value of the
	// answer's type (nil for none) with media type ResponseType
	// (application/json when empty). Also lists other success statuses
	// answered with the same type.
	Status       int
	Also         []int
	Response     any
	ResponseType string
	// Errors lists the error statuses the route may answer besides those
	// every route of its kind may (see operation), each in the one error
	// shape.
	Errors []int
	// Links name operations a client can call next with a value of the
	// success response.
	Links []Link
}

// Link is an OpenAPI link: the success response of an operation supplies
// parameter Param of operation To ("GET /v1/facts/:id") with the value at
// From, a runtime expression ("$response.body#/results/0/fact_id").
type Link struct {
	Name, To, Param, From string
}

// Param is a query parameter. The handler checks the request with the
// same Param values the document shows (parseQuery).
type Param struct {
	Name        string
	Type        string // string (default), integer, boolean or date-time
	Description string
	Required    bool
	Enum        []string
	// Min and Max bound an integer; Max bounds a string's length
	// (maxParamLen when 0).
	Min, Max int
	// NotBlank refuses a string of only white space; Word one without a
	// letter or digit (a name with no lookup key).
	NotBlank, Word bool
	// Pattern, when set, must match a string; PatternMessage says what it
	// means.
	Pattern        *regexp.Regexp
	PatternMessage string
}

// Patterns the document gives for the notblank and word validate tags and
// NotBlank parameters. They are written for the regular expressions of
// JSON Schema tools (ECMA 262 and Python): "\S" there counts a few ASCII
// control characters as space that Go does not, hence the added range.
const (
	notBlankPattern = `[\S\x1c-\x1f]`
	wordPattern     = `[^\W_]`
)

// Document adds endpoints to the OpenAPI document served at /openapi.json.
func (s *Server) Document(eps ...Endpoint) {
	s.docs = append(s.docs, eps...)
}

// Endpoints returns every documented endpoint.
func (s *Server) Endpoints() []Endpoint { return append([]Endpoint(nil), s.docs...) }

// Error statuses every authenticated route may answer: a bad query
// parameter or scope header, no or a wrong key (and, repeated, too many
// such attempts), a scope the key may not use.
var authErrors = []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests}

// Error statuses of routes with a request body: malformed or invalid, not
// sent in time, too large, of another media type.
var bodyErrors = []int{http.StatusBadRequest, http.StatusRequestTimeout, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType}

// OpenAPI returns the OpenAPI 3.1 document of every documented endpoint.
func (s *Server) OpenAPI() map[string]any {
	sc := &schemas{defs: map[string]any{}, names: map[reflect.Type]string{}}
	paths := map[string]map[string]any{}
	for _, ep := range s.docs {
		p := openAPIPath(ep.Path)
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		paths[p][strings.ToLower(ep.Method)] = sc.operation(ep)
	}
	sc.ref(reflect.TypeOf(ErrorBody{}))
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "graphmem",
			"version": "1",
			"description": "Temporal knowledge-graph memory for LLM agents. Times are RFC 3339 or plain dates (2024-03-01, midnight UTC) in the years 1000 to 9999; errors always use the Error shape. " +
				"A request body must be sent as the media type the operation names (415 otherwise); a browser's request from a page of another origin is refused (403) unless that origin is allowed.",
		},
		"paths": paths,
		"components": map[string]any{
			"schemas": sc.defs,
			"securitySchemes": map[string]any{
				"bearer": map[string]any{"type": "http", "scheme": "bearer", "description": "An API key; it names the scopes the caller may use."},
			},
		},
		"security": []any{map[string]any{"bearer": []string{}}},
	}
}

// openAPIPath turns /v1/facts/:id into /v1/facts/{id}.
func openAPIPath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
			parts[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}

func (sc *schemas) operation(ep Endpoint) map[string]any {
	op := map[string]any{
		"summary":     ep.Summary,
		"operationId": operationID(ep),
	}
	if ep.Tag != "" {
		op["tags"] = []string{ep.Tag}
	}
	var params []any
	for _, s := range strings.Split(ep.Path, "/") {
		if strings.HasPrefix(s, ":") {
			params = append(params, map[string]any{"name": s[1:], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
		}
	}
	for _, q := range ep.Query {
		p := map[string]any{"name": q.Name, "in": "query", "required": q.Required, "schema": q.schema()}
		if q.Description != "" {
			p["description"] = q.Description
		}
		params = append(params, p)
	}
	errs := append([]int{}, ep.Errors...)
	if ep.Public {
		op["security"] = []any{}
	} else {
		params = append(params, map[string]any{"name": ScopeHeader, "in": "header", "required": false,
			"description": "One of the scopes the API key may use (empty or absent: its first).",
			"schema":      map[string]any{"type": "string", "pattern": "^$|" + entity.ScopePattern}})
		errs = append(errs, authErrors...)
	}
	if ep.Body != nil {
		errs = append(errs, bodyErrors...)
	}
	if params != nil {
		op["parameters"] = params
	}
	if ep.Body != nil {
		mt := ep.BodyType
		if mt == "" {
			mt = "application/json"
		}
		media := map[string]any{"schema": sc.of(reflect.TypeOf(ep.Body))}
		if ep.Example != nil {
			media["example"] = ep.Example
		}
		op["requestBody"] = map[string]any{"required": true, "content": map[string]any{mt: media}}
	}
	status := ep.Status
	if status == 0 {
		status = http.StatusOK
	}
	responses := map[string]any{}
	for _, st := range append([]int{status}, ep.Also...) {
		ok := map[string]any{"description": http.StatusText(st)}
		if ep.Response != nil {
			mt := ep.ResponseType
			if mt == "" {
				mt = "application/json"
			}
			ok["content"] = map[string]any{mt: map[string]any{"schema": sc.response(ep.Response)}}
		}
		if len(ep.Links) > 0 {
			links := map[string]any{}
			for _, l := range ep.Links {
				m, p, _ := strings.Cut(l.To, " ")
				links[l.Name] = map[string]any{"operationId": operationID(Endpoint{Method: m, Path: p}),
					"parameters": map[string]any{l.Param: l.From}}
			}
			ok["links"] = links
		}
		responses[strconv.Itoa(st)] = ok
	}
	errs = append(errs, http.StatusInternalServerError)
	slices.Sort(errs)
	for _, e := range slices.Compact(errs) {
		responses[strconv.Itoa(e)] = map[string]any{
			"description": http.StatusText(e),
			"content":     map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}},
		}
	}
	op["responses"] = responses
	return op
}

// OneOf is a Response that is one of several types (chosen by a query
// parameter, say).
type OneOf []any

func (sc *schemas) response(v any) map[string]any {
	if alts, ok := v.(OneOf); ok {
		var out []any
		for _, a := range alts {
			out = append(out, sc.of(reflect.TypeOf(a)))
		}
		return map[string]any{"oneOf": out}
	}
	return sc.of(reflect.TypeOf(v))
}

// schema describes a query parameter's value.
func (p Param) schema() map[string]any {
	switch p.Type {
	case "integer":
		s := map[string]any{"type": "integer", "minimum": p.Min}
		if p.Max > 0 {
			s["maximum"] = p.Max
		}
		return s
	case "boolean":
		return map[string]any{"type": "boolean"}
	case "date-time":
		return map[string]any{"type": "string", "anyOf": timeFormats()}
	}
	s := map[string]any{"type": "string"}
	if len(p.Enum) > 0 {
		s["enum"] = p.Enum
		return s
	}
	max := p.Max
	if max == 0 {
		max = maxParamLen
	}
	s["maxLength"] = max
	switch {
	case p.Pattern != nil:
		s["pattern"] = p.Pattern.String()
	case p.Word:
		s["pattern"] = wordPattern
	case p.NotBlank:
		s["pattern"] = notBlankPattern
	}
	return s
}

func operationID(ep Endpoint) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(ep.Method))
	for _, s := range strings.FieldsFunc(ep.Path, func(r rune) bool { return r == '/' || r == '.' || r == '_' }) {
		if strings.HasPrefix(s, ":") {
			s = "by_" + s[1:]
		}
		b.WriteString(strings.ToUpper(s[:1]) + s[1:])
	}
	return b.String()
}

// schemas derives JSON Schemas from Go types, one named definition per
// struct type.
type schemas struct {
	defs  map[string]any
	names map[reflect.Type]string
}

var timeType = reflect.TypeOf(time.Time{})

func (sc *schemas) of(t reflect.Type) map[string]any {
	nullable := false
	for t.Kind() == reflect.Pointer {
		t, nullable = t.Elem(), true
	}
	s := sc.plain(t)
	if nullable {
		if ty, ok := s["type"].(string); ok {
			s["type"] = []string{ty, "null"}
		} else {
			s = map[string]any{"oneOf": []any{s, map[string]any{"type": "null"}}}
		}
	}
	return s
}

// timeFormats are the times graphmem reads (entity.ParseTime): an RFC 3339
// time or a plain date, in the years 1000 to 9999 (the pattern; in UTC,
// which a schema cannot say).
func timeFormats() []any {
	return []any{map[string]any{"format": "date-time", "pattern": yearPattern}, map[string]any{"format": "date", "pattern": yearPattern}}
}

// yearPattern is a four-digit year from 1000.
const yearPattern = "^[1-9][0-9]{3}-"

func (sc *schemas) plain(t reflect.Type) map[string]any {
	if t == timeType {
		return map[string]any{"type": "string", "format": "date-time"}
	}
	if t == reflect.TypeOf(json.RawMessage{}) {
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer", "minimum": 0}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": sc.of(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": sc.of(t.Elem())}
	case reflect.Struct:
		return sc.ref(t)
	}
	return map[string]any{}
}

// schemaNames names the types of other packages whose Go name an API type
// already has (the export records hold the stored forms).
var schemaNames = map[reflect.Type]string{
	reflect.TypeOf(ErrorBody{}):      "Error",
	reflect.TypeOf(memory.Record{}):  "ExportRecord",
	reflect.TypeOf(entity.Fact{}):    "StoredFact",
	reflect.TypeOf(entity.Entity{}):  "StoredEntity",
	reflect.TypeOf(entity.Episode{}): "StoredEpisode",

	reflect.TypeOf(entity.Extraction{}):  "StoredExtraction",
	reflect.TypeOf(entity.DroppedFact{}): "StoredDroppedFact",

	reflect.TypeOf(ontology.Description{}):          "Ontology",
	reflect.TypeOf(ontology.TypeDescription{}):      "OntologyEntityType",
	reflect.TypeOf(ontology.PredicateDescription{}): "OntologyPredicate",
}

// exactlyOne names the properties of which a type holds exactly one
// (present and not null).
var exactlyOne = map[reflect.Type][]string{
	reflect.TypeOf(memory.Record{}): {"tombstone", "entity", "episode", "fact"},
}

// storedRules are the rules an import applies to the stored forms
// (memory.checkRecord, entity.Fact.Validate, entity.CheckAttributes and the
// stores' key rules) that JSON Schema can state; they sit on the
// properties of those types, which have no validate tags. The rules it
// cannot state (valid_to not before valid_from, exactly one of object and
// value, sizes in bytes, ids that must name records in the import or the
// scope) are said in the import's summary.
var storedRules = func() map[reflect.Type]map[string]map[string]any {
	nonEmpty := map[string]any{"minLength": 1}
	attrs := map[string]any{
		"maxProperties": entity.MaxAttributes,
		"propertyNames": map[string]any{"minLength": 1, "maxLength": entity.MaxAttributeKeyLen},
	}
	kinds := []string{""}
	for _, k := range entity.SourceKinds {
		kinds = append(kinds, string(k))
	}
	notBlank := map[string]any{"minLength": 1, "pattern": notBlankPattern}
	maxLen := func(n int) map[string]any { return map[string]any{"maxLength": n} }
	with := func(ms ...map[string]any) map[string]any {
		out := map[string]any{}
		for _, m := range ms {
			maps.Copy(out, m)
		}
		return out
	}
	return map[reflect.Type]map[string]map[string]any{
		reflect.TypeOf(entity.Tombstone{}): {"fingerprint": nonEmpty, "reason": maxLen(entity.MaxReasonLen)},
		reflect.TypeOf(entity.Entity{}): {
			"id": nonEmpty, "name": with(notBlank, maxLen(entity.MaxNameLen)), "attributes": attrs,
			"type": maxLen(entity.MaxPredicateLen), "summary": maxLen(entity.MaxTextLen),
			"aliases": {"items": with(map[string]any{"type": "string"}, maxLen(entity.MaxNameLen))},
		},
		reflect.TypeOf(entity.Episode{}): {
			"id": nonEmpty, "content": notBlank, "metadata": attrs,
			"status":          {"enum": []string{entity.EpisodeQueued, entity.EpisodeProcessing, entity.EpisodeDone, entity.EpisodeFailed}},
			"kind":            {"enum": []string{"", entity.KindMessage, entity.KindText, entity.KindJSON}},
			"role":            {"enum": []string{"", entity.RoleUser, entity.RoleAssistant, entity.RoleSystem, entity.RoleTool}},
			"source_kind":     {"enum": kinds},
			"speaker":         maxLen(entity.MaxNameLen),
			"idempotency_key": maxLen(entity.MaxKeyLen),
		},
		reflect.TypeOf(entity.Fact{}): {
			"id": nonEmpty, "subject_id": nonEmpty, "predicate": with(nonEmpty, maxLen(entity.MaxPredicateLen)), "attributes": attrs,
			"subject": maxLen(entity.MaxNameLen), "object": maxLen(entity.MaxNameLen),
			"value": maxLen(entity.MaxValueLen), "text": maxLen(entity.MaxTextLen),
			"confidence":  {"minimum": 0, "maximum": 1},
			"importance":  {"minimum": 0, "maximum": 10},
			"source_kind": {"enum": kinds},
		},
		reflect.TypeOf(entity.Claim{}): {"text": maxLen(entity.MaxTextLen), "attributes": attrs},
	}
}()

// storedRequired are the properties an import record cannot do without;
// the stored forms and the export record refuse unknown properties, as
// the import's decoder does, and read null as absent.
var storedRequired = map[reflect.Type][]string{
	reflect.TypeOf(memory.Record{}):    nil,
	reflect.TypeOf(entity.Tombstone{}): {"fingerprint"},
	reflect.TypeOf(entity.Entity{}):    {"id", "name"},
	reflect.TypeOf(entity.Episode{}):   {"id", "status", "content"},
	reflect.TypeOf(entity.Fact{}):      {"id", "predicate", "subject_id"},
	reflect.TypeOf(entity.Claim{}):     nil,
	reflect.TypeOf(entity.Revision{}):  nil,

	reflect.TypeOf(entity.Extraction{}):  nil,
	reflect.TypeOf(entity.DroppedFact{}): {"reason"},
}

// ref defines a struct type once and refers to it. Two types may not share
// a name: the document would silently describe one of them wrongly.
func (sc *schemas) ref(t reflect.Type) map[string]any {
	name, ok := sc.names[t]
	if !ok {
		name = schemaNames[t]
		if name == "" {
			// Unexported request types read as their exported selves.
			name = strings.ToUpper(t.Name()[:1]) + t.Name()[1:]
		}
		for other, n := range sc.names {
			if n == name {
				panic(fmt.Sprintf("openapi: %v and %v are both named %s (add one to schemaNames)", t, other, name))
			}
		}
		sc.names[t] = name
		sc.defs[name] = map[string]any{} // placeholder: recursion-safe
		sc.defs[name] = sc.object(t)
	}
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

// object describes a struct: properties from json tags. A struct with
// validate tags is a request type: its required fields, enumerations,
// lengths, bounds, formats and patterns come from the tags (rules after
// "dive" describe the items), fields without "required" may be null (the
// JSON decoder reads null as absent), and unknown properties are refused,
// as the decoder does. A response type requires every field without
// omitempty; its enum tags list the values a field takes.
func (sc *schemas) object(t reflect.Type) map[string]any {
	request, jsonNames := fieldNames(t)
	props := map[string]any{}
	g := fieldGroups{nonZero: map[string]map[string]any{}}
	var required []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		name = jsonNames[f.Name]
		var p map[string]any
		var req bool
		if request {
			p, req = sc.requestField(f, name, jsonNames, &g)
		} else {
			p, req = sc.responseField(t, f, name, opts)
		}
		if req {
			required = append(required, name)
		}
		if d := f.Tag.Get("doc"); d != "" {
			p["description"] = d
		}
		props[name] = p
	}
	o := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		sort.Strings(required)
		o["required"] = required
	}
	if request {
		o["additionalProperties"] = false
	}
	if req, ok := storedRequired[t]; ok {
		storedObject(o, props, req)
	}
	g.constrain(o, t)
	return o
}

// fieldNames returns whether t is a request type (a field has a validate
// tag) and the JSON name of each field by its Go name.
func fieldNames(t reflect.Type) (request bool, jsonNames map[string]string) {
	jsonNames = map[string]string{}
	for i := range t.NumField() {
		f := t.Field(i)
		_, hasV := f.Tag.Lookup("validate")
		request = request || hasV
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		jsonNames[f.Name] = name
	}
	return request, jsonNames
}

// responseField describes a field of a response or stored type, of struct
// t, and reports whether it is required (it has no omitempty).
func (sc *schemas) responseField(t reflect.Type, f reflect.StructField, name, opts string) (map[string]any, bool) {
	p := sc.of(f.Type)
	for k, v := range storedRules[t][name] {
		p[k] = v
	}
	if e := f.Tag.Get("enum"); e != "" { // a response field's values
		p["enum"] = strings.Fields(e)
	}
	return p, !strings.Contains(opts, "omitempty")
}

// requestField describes a field of a request type from its validate tag,
// records the field groups its rules name in g, and reports whether it is
// required; a field that is not may be null.
func (sc *schemas) requestField(f reflect.StructField, name string, jsonNames map[string]string, g *fieldGroups) (map[string]any, bool) {
	rules := strings.Split(f.Tag.Get("validate"), ",")
	itemRules := []string(nil)
	if i := slices.Index(rules, "dive"); i >= 0 {
		rules, itemRules = rules[:i], rules[i+1:]
	}
	g.nonZero[name] = nonZeroSchema(f.Type)
	t := f.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	p := sc.plain(t)
	if itemRules != nil && itemRules[0] == "keys" {
		// dive,keys,…,endkeys: rules on a map's keys.
		end := slices.Index(itemRules, "endkeys")
		names := map[string]any{"type": "string"}
		sc.constrain(names, t.Key(), itemRules[1:end])
		p["propertyNames"] = names
		itemRules = itemRules[end+1:]
	}
	if len(itemRules) > 0 {
		sc.constrain(p[map[bool]string{true: "additionalProperties", false: "items"}[t.Kind() == reflect.Map]].(map[string]any), t.Elem(), itemRules)
	}
	required := sc.constrain(p, t, rules)
	if !required {
		p = nullable(p)
	}
	g.add(name, rules, jsonNames)
	return p, required
}

// storedObject makes o, a stored form or export record, refuse unknown
// properties, require only req, and read null as absent everywhere else,
// in lists' items too.
func storedObject(o, props map[string]any, req []string) {
	o["additionalProperties"] = false
	if delete(o, "required"); len(req) > 0 {
		o["required"] = req
	}
	for name, p := range props {
		p := p.(map[string]any)
		if items, ok := p["items"].(map[string]any); ok && !acceptsNull(items) {
			p["items"] = nullable(items)
		}
		if !slices.Contains(req, name) && !acceptsNull(p) {
			props[name] = nullable(p)
		}
	}
}

// fieldGroups are the rules a request type's validate tags set between
// its fields, by JSON name.
type fieldGroups struct {
	nonZero    map[string]map[string]any // what a given (non-zero) value looks like
	exclusive  [][]string                // exactly one of
	anyOf      [][]string                // at least one of
	exclusions [][]string                // not both
}

// add records the groups that the rules of field name set up with the
// fields they name.
func (g *fieldGroups) add(name string, rules []string, jsonNames map[string]string) {
	for _, r := range rules {
		key, arg, _ := strings.Cut(r, "=")
		group := []string{name}
		for _, n := range strings.Fields(arg) {
			group = append(group, jsonNames[n])
		}
		switch key {
		case "required_without":
			if slices.Contains(rules, "excluded_with="+arg) {
				g.exclusive = addGroup(g.exclusive, group)
			} else {
				g.anyOf = addGroup(g.anyOf, group)
			}
		case "required_without_all":
			g.anyOf = addGroup(g.anyOf, group)
		case "excluded_with":
			if !slices.Contains(rules, "required_without="+arg) {
				g.exclusions = addGroup(g.exclusions, group)
			}
		}
	}
}

// given lists one schema per field of group: the field present and given.
func (g *fieldGroups) given(group []string) []any {
	var out []any
	for _, n := range group {
		out = append(out, map[string]any{"required": []string{n}, "properties": map[string]any{n: g.nonZero[n]}})
	}
	return out
}

// constrain adds the groups to o, the schema of struct t: allOf for the
// fields not given together, oneOf for exactly one (or t's exactlyOne
// fields, not null), anyOf for at least one. A type may have one
// required_without group.
func (g *fieldGroups) constrain(o map[string]any, t reflect.Type) {
	var not []any
	for _, group := range g.exclusions {
		both := map[string]any{}
		for _, n := range group {
			both[n] = g.nonZero[n]
		}
		not = append(not, map[string]any{"not": map[string]any{"required": group, "properties": both}})
	}
	if len(not) > 0 {
		o["allOf"] = not
	}
	if one := exactlyOne[t]; one != nil {
		var alts []any
		for _, n := range one {
			alts = append(alts, map[string]any{"required": []string{n}, "properties": map[string]any{n: map[string]any{"not": map[string]any{"type": "null"}}}})
		}
		o["oneOf"] = alts
	}
	switch {
	case len(g.exclusive) == 1 && len(g.anyOf) == 0:
		o["oneOf"] = g.given(g.exclusive[0])
	case len(g.anyOf) == 1 && len(g.exclusive) == 0:
		o["anyOf"] = g.given(g.anyOf[0])
	case len(g.anyOf)+len(g.exclusive) > 0:
		panic(fmt.Sprintf("openapi: %v has more than one required_without group", t))
	}
}

// constrain adds the rules of a validate tag to p, the schema of a value
// of type t, and reports whether the value is required.
func (sc *schemas) constrain(p map[string]any, t reflect.Type, rules []string) (required bool) {
	for _, rule := range rules {
		key, arg, _ := strings.Cut(rule, "=")
		switch key {
		case "required":
			required = true
			if t.Kind() == reflect.String {
				p["minLength"] = 1
			}
		case "oneof":
			p["enum"] = strings.Fields(arg)
		case "time":
			p["anyOf"] = timeFormats()
		case "notblank": // "" is left to required
			p["pattern"] = "^$|" + notBlankPattern
		case "word":
			p["pattern"] = "^$|" + wordPattern
		case "max", "lte", "min", "gte":
			n, _ := strconv.ParseFloat(arg, 64)
			setBound(p, t, key, n)
		}
	}
	return required
}

// nullable lets a schema also take null.
// acceptsNull reports whether s already admits null.
func acceptsNull(s map[string]any) bool {
	ty, _ := s["type"].([]string)
	_, oneOf := s["oneOf"]
	return slices.Contains(ty, "null") || oneOf
}

func nullable(s map[string]any) map[string]any {
	if ty, ok := s["type"].(string); ok {
		s["type"] = []string{ty, "null"}
		if e, ok := s["enum"].([]string); ok {
			s["enum"] = append(slices.Clip(stringsToAny(e)), nil)
		}
		return s
	}
	return map[string]any{"oneOf": []any{s, map[string]any{"type": "null"}}}
}

func stringsToAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// nonZeroSchema is the schema of a value of t that the validator's
// required_without, required_without_all and excluded_with count as
// given: not null for a pointer, else not the zero value.
func nonZeroSchema(t reflect.Type) map[string]any {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Interface:
		return map[string]any{"not": map[string]any{"type": "null"}}
	case reflect.Slice:
		return map[string]any{"type": "array", "minItems": 1}
	case reflect.String:
		return map[string]any{"type": "string", "minLength": 1}
	case reflect.Bool:
		return map[string]any{"const": true}
	}
	return map[string]any{"not": map[string]any{"const": 0}}
}

func addGroup(groups [][]string, g []string) [][]string {
	sorted := slices.Sorted(slices.Values(g))
	for _, h := range groups {
		if slices.Equal(h, sorted) {
			return groups
		}
	}
	return append(groups, sorted)
}

func setBound(p map[string]any, t reflect.Type, key string, n float64) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	upper := key == "max" || key == "lte"
	var name string
	switch t.Kind() {
	case reflect.String:
		name = map[bool]string{true: "maxLength", false: "minLength"}[upper]
	case reflect.Slice, reflect.Array:
		name = map[bool]string{true: "maxItems", false: "minItems"}[upper]
	case reflect.Map:
		name = map[bool]string{true: "maxProperties", false: "minProperties"}[upper]
	default:
		name = map[bool]string{true: "maximum", false: "minimum"}[upper]
	}
	p[name] = n
}

// openAPIJSON caches the rendered document: routes do not change once the
// server serves.
type openAPIJSON struct {
	once sync.Once
	b    []byte
	err  error
}

func (s *Server) serveOpenAPI(cache *openAPIJSON) gin.HandlerFunc {
	return func(c *gin.Context) {
		cache.once.Do(func() { cache.b, cache.err = json.MarshalIndent(s.OpenAPI(), "", "  ") })
		if cache.err != nil {
			Error(c, fmt.Errorf("openapi: %w", cache.err))
			return
		}
		c.Data(http.StatusOK, "application/json", cache.b)
	}
}
