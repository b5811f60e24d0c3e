package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
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
	// Status is the success status (200 when 0) and Response a value of the
	// answer's type (nil for none) with media type ResponseType
	// (application/json when empty).
	Status       int
	Response     any
	ResponseType string
	// Errors lists the error statuses the route may answer, each in the one
	// error shape.
	Errors []int
}

// Param is a query parameter.
type Param struct {
	Name        string
	Type        string // string, integer, boolean or date-time
	Description string
	Required    bool
	Enum        []string
}

// Document adds endpoints to the OpenAPI document served at /openapi.json.
func (s *Server) Document(eps ...Endpoint) {
	s.docs = append(s.docs, eps...)
}

// Endpoints returns every documented endpoint.
func (s *Server) Endpoints() []Endpoint { return append([]Endpoint(nil), s.docs...) }

// Common error statuses of authenticated routes.
var authErrors = []int{http.StatusUnauthorized, http.StatusForbidden}

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
			"title":       "graphmem",
			"version":     "1",
			"description": "Temporal knowledge-graph memory for LLM agents. Times are RFC 3339; errors always use the Error shape.",
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
		schema := map[string]any{"type": q.Type}
		switch q.Type {
		case "date-time":
			schema = map[string]any{"type": "string", "format": "date-time"}
		case "integer":
			if q.Name == "limit" {
				schema = map[string]any{"type": "integer", "minimum": 1, "maximum": 1000}
			}
		}
		if len(q.Enum) > 0 {
			schema["enum"] = q.Enum
			if q.Type == "integer" {
				ns := make([]int, len(q.Enum))
				for i, v := range q.Enum {
					ns[i], _ = strconv.Atoi(v)
				}
				schema["enum"] = ns
			}
		}
		params = append(params, map[string]any{"name": q.Name, "in": "query", "required": q.Required, "description": q.Description, "schema": schema})
	}
	errs := ep.Errors
	if ep.Public {
		op["security"] = []any{}
	} else {
		params = append(params, map[string]any{"name": ScopeHeader, "in": "header", "required": false,
			"description": "One of the scopes the API key may use (default: its first).", "schema": map[string]any{"type": "string"}})
		errs = append(append([]int{}, errs...), authErrors...)
	}
	if params != nil {
		op["parameters"] = params
	}
	if ep.Body != nil {
		mt := ep.BodyType
		if mt == "" {
			mt = "application/json"
		}
		op["requestBody"] = map[string]any{"required": true, "content": map[string]any{mt: map[string]any{"schema": sc.of(reflect.TypeOf(ep.Body))}}}
	}
	status := ep.Status
	if status == 0 {
		status = http.StatusOK
	}
	responses := map[string]any{}
	ok := map[string]any{"description": http.StatusText(status)}
	if ep.Response != nil {
		mt := ep.ResponseType
		if mt == "" {
			mt = "application/json"
		}
		ok["content"] = map[string]any{mt: map[string]any{"schema": sc.of(reflect.TypeOf(ep.Response))}}
	}
	responses[strconv.Itoa(status)] = ok
	errs = append(errs, http.StatusInternalServerError)
	for _, e := range errs {
		responses[strconv.Itoa(e)] = map[string]any{
			"description": http.StatusText(e),
			"content":     map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}},
		}
	}
	op["responses"] = responses
	return op
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
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
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

// ref defines a struct type once and refers to it.
func (sc *schemas) ref(t reflect.Type) map[string]any {
	name, ok := sc.names[t]
	if !ok {
		name = t.Name()
		if name == "ErrorBody" && t == reflect.TypeOf(ErrorBody{}) {
			name = "Error"
		}
		if name == "" {
			name = "Anonymous"
		}
		// Unexported request types read as their exported selves.
		name = strings.ToUpper(name[:1]) + name[1:]
		if _, taken := sc.defs[name]; taken {
			name = path.Base(t.PkgPath()) + "." + name
		}
		sc.names[t] = name
		sc.defs[name] = map[string]any{} // placeholder: recursion-safe
		sc.defs[name] = sc.object(t)
	}
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

// object describes a struct: properties from json tags; required fields,
// enumerations, lengths and formats from validate tags. Request types (those
// with validate tags) reject unknown properties, as the decoder does.
func (sc *schemas) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	request := false
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := sc.of(f.Type)
		if d := f.Tag.Get("doc"); d != "" {
			p["description"] = d
		}
		v, hasV := f.Tag.Lookup("validate")
		request = request || hasV
		for _, rule := range strings.Split(v, ",") {
			key, arg, _ := strings.Cut(rule, "=")
			switch key {
			case "required":
				required = append(required, name)
			case "oneof":
				p["enum"] = strings.Fields(arg)
			case "rfc3339":
				p["format"] = "date-time"
			case "max", "lte", "min", "gte":
				n, _ := strconv.ParseFloat(arg, 64)
				setBound(p, f.Type, key, n)
			}
		}
		if !hasV && !strings.Contains(opts, "omitempty") {
			// Responses always carry fields without omitempty.
			required = append(required, name)
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
	return o
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
