package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/go-playground/validator/v10"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// validate checks the shape of request types from their `validate` tags and
// names fields by their JSON names.
var validate = newValidator()

func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			return ""
		case "":
			return f.Name
		}
		return name
	})
	must(v.RegisterValidation("time", func(fl validator.FieldLevel) bool {
		_, err := entity.ParseTime(fl.Field().String())
		return err == nil
	}))
	// notblank and word leave "" to required and required_without, so an
	// optional field may be empty.
	must(v.RegisterValidation("notblank", func(fl validator.FieldLevel) bool {
		s := fl.Field().String()
		return s == "" || strings.TrimSpace(s) != ""
	}))
	must(v.RegisterValidation("word", func(fl validator.FieldLevel) bool {
		s := fl.Field().String()
		return s == "" || hasWordRune(s)
	}))
	return v
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// jsonNames turns the Go field names of a validate tag parameter
// ("EpisodeID Query") into their JSON names ("episode_id, query").
func jsonNames(goNames string) string {
	var out []string
	for _, n := range strings.Fields(goNames) {
		var b strings.Builder
		prev := rune(0)
		for _, r := range n {
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			prev = r
		}
		out = append(out, b.String())
	}
	return strings.Join(out, ", ")
}

// hasWordRune reports whether s holds a letter or a digit of any script
// (what a name needs to have a lookup key): a word character but "_" in
// the sense of both regular expression engines JSON Schema tools use
// (Python's and Rust's), so the document's wordPattern says the same.
func hasWordRune(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return r != '_' && unicode.In(r, unicode.L, unicode.N, unicode.M, unicode.Pc, unicode.Other_Alphabetic, unicode.Join_Control)
	}) >= 0
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// optTime returns a validated optional time, nil when absent.
func optTime(s *string) *time.Time {
	if s == nil {
		return nil
	}
	t, err := entity.ParseTime(*s)
	if err != nil {
		return nil
	}
	t = t.UTC()
	return &t
}

// shapeErrors turns validator errors into field messages keyed by JSON path
// ("facts[0].predicate"), prefixed with prefix.
func shapeErrors(err error, prefix string, fe entity.FieldErrors) {
	var ves validator.ValidationErrors
	if !errors.As(err, &ves) {
		fe.Add(strings.TrimSuffix(prefix, "."), err.Error())
		return
	}
	for _, ve := range ves {
		// The namespace starts with the Go type name of the root.
		path := ve.Namespace()
		if _, rest, ok := strings.Cut(path, "."); ok {
			path = rest
		}
		fe.Add(prefix+path, shapeMessage(ve))
	}
}

func shapeMessage(ve validator.FieldError) string {
	unit := ""
	switch ve.Kind() {
	case reflect.String:
		unit = " characters"
	case reflect.Slice, reflect.Array:
		unit = " items"
	case reflect.Map:
		unit = " entries"
	}
	switch ve.Tag() {
	case "required":
		return "required"
	case "max", "lte":
		return fmt.Sprintf("at most %s%s", ve.Param(), unit)
	case "min", "gte":
		return fmt.Sprintf("at least %s%s", ve.Param(), unit)
	case "oneof":
		return "must be one of " + strings.Join(strings.Fields(ve.Param()), ", ")
	case "time":
		return entity.TimeMessage
	case "notblank":
		return "must not be blank"
	case "word":
		return "must contain a letter or digit"
	case "required_without", "required_without_all":
		return "required unless one of " + jsonNames(ve.Param()) + " is given"
	case "excluded_with":
		return "give either this or " + jsonNames(ve.Param()) + ", not both"
	}
	return fmt.Sprintf("failed the %s check", ve.Tag())
}

// DecodeJSON reads the request body — a JSON object of at most the server's
// MaxBodyBytes — into dst, rejecting unknown fields and trailing data, then
// checks dst's validate tags. Errors are EINVALID naming the field, or
// ETOOLARGE.
func (s *Server) DecodeJSON(c *gin.Context, dst any) error {
	if err := decodeOne(s.jsonBody(c), dst); err != nil {
		return decodeError(err, "", s.opts.MaxBodyBytes)
	}
	fe := entity.FieldErrors{}
	if err := validate.Struct(dst); err != nil {
		shapeErrors(err, "", fe)
	}
	return fe.Err()
}

// jsonBody returns a decoder over the limited body, refusing unknown
// fields (checkMediaType has checked that the body is said to be JSON).
// The body is read whole first: a string that is not valid UTF-8 would
// be decoded with U+FFFD in place of its bytes and stored changed
// without a word, so the decoder reports it instead (badUTF8Error), by
// the path of the field that holds it; so is an escaped surrogate
// ("\ud800") that is not half of a pair.
func (s *Server) jsonBody(c *gin.Context) *json.Decoder {
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, s.opts.MaxBodyBytes))
	if err == nil {
		if path, ok := entity.InvalidJSONText(body); ok {
			err = &badUTF8Error{path: path}
		}
	}
	var r io.Reader = bytes.NewReader(body)
	var bad *badUTF8Error
	switch {
	case errors.As(err, &bad):
		r = errReader{err}
	case err != nil: // the body over the limit: what came, then why no more
		r = io.MultiReader(r, errReader{err})
	}
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	return dec
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// badUTF8Error is a JSON string of the body, at path, that is not valid
// UTF-8.
type badUTF8Error struct{ path string }

func (e *badUTF8Error) Error() string { return e.path + ": not valid UTF-8" }

// decodeOne decodes exactly one JSON value from dec.
func decodeOne(dec *json.Decoder, dst any) error {
	if err := dec.Decode(dst); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return errTrailing
	}
	return nil
}

var errTrailing = errors.New("unexpected data after the JSON value")

var errBodyTimeout = entity.Errorf(entity.ETIMEOUT, "the request body did not arrive in time")

// decodeError turns a JSON decoding error into an application error; field
// paths are prefixed with prefix ("facts[3].").
func decodeError(err error, prefix string, limit int64) error {
	var (
		mbe *http.MaxBytesError
		se  *json.SyntaxError
		ute *json.UnmarshalTypeError
		bad *badUTF8Error
	)
	switch {
	case errors.As(err, &bad):
		field := prefix + bad.path
		if field == "" {
			return entity.Errorf(entity.EINVALID, "request body: a string is not valid UTF-8")
		}
		return invalid(field, "must be valid UTF-8")
	case errors.As(err, &mbe):
		return &entity.Error{Code: entity.ETOOLARGE, Message: fmt.Sprintf("request body exceeds %d bytes", limit)}
	case errors.Is(err, os.ErrDeadlineExceeded):
		return errBodyTimeout
	case errors.Is(err, io.EOF) && prefix == "":
		return entity.Errorf(entity.EINVALID, "request body is empty")
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return entity.Errorf(entity.EINVALID, "malformed JSON: unexpected end of input")
	case errors.As(err, &se):
		return entity.Errorf(entity.EINVALID, "malformed JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	case errors.Is(err, errTrailing):
		return entity.Errorf(entity.EINVALID, "malformed JSON: %v", err)
	case errors.As(err, &ute):
		field := prefix + ute.Field
		if ute.Field == "" {
			field = strings.TrimSuffix(prefix, ".")
		}
		msg := "must be " + jsonType(ute.Type)
		if field == "" {
			return entity.Errorf(entity.EINVALID, "request body %s", msg)
		}
		return invalid(field, msg)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name, _ = strconv.Unquote(name)
		return invalid(prefix+name, "unknown field")
	}
	return entity.Errorf(entity.EINVALID, "malformed JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
}

// jsonType names the JSON type a Go type decodes from.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer in range"
	case reflect.Float32, reflect.Float64:
		return "a number in range"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a " + t.String()
}

// query holds the URL query parameters of a request, checked against the
// route's Params: the same list the OpenAPI document is built from.
type query struct {
	vals map[string][]string
	fe   entity.FieldErrors
}

// maxParamLen bounds a string parameter that states no Max.
const maxParamLen = 1024

// parseQuery checks the request's query against params: unknown or
// repeated parameters, missing required ones, and each value against its
// type, length, range, enumeration and pattern. Every problem is a field
// error; an error is returned if there was any.
func parseQuery(c *gin.Context, params ...Param) (*query, error) {
	q := &query{vals: c.Request.URL.Query(), fe: entity.FieldErrors{}}
	known := map[string]bool{}
	for _, p := range params {
		known[p.Name] = true
		v, ok := q.vals[p.Name]
		switch {
		case !ok:
			if p.Required {
				q.fe.Add(p.Name, "required")
			}
		case len(v) > 1:
			q.fe.Add(p.Name, "given more than once")
		default:
			if msg := p.check(v[0]); msg != "" {
				q.fe.Add(p.Name, msg)
			}
		}
	}
	for k := range q.vals {
		if !known[k] {
			q.fe.Add(k, "unknown query parameter")
		}
	}
	return q, q.fe.Err()
}

// check returns what is wrong with a parameter's value, or "".
func (p Param) check(v string) string {
	switch p.Type {
	case "integer":
		n, err := strconv.Atoi(v)
		if err != nil || n < p.Min || (p.Max > 0 && n > p.Max) {
			return fmt.Sprintf("must be an integer between %d and %d", p.Min, p.Max)
		}
	case "boolean":
		if v != "true" && v != "false" {
			return "must be true or false"
		}
	case "date-time":
		if _, err := entity.ParseTime(v); err != nil {
			return entity.TimeMessage
		}
	default:
		max := p.Max
		if max == 0 {
			max = maxParamLen
		}
		switch {
		case !utf8.ValidString(v):
			return "must be valid UTF-8"
		case utf8.RuneCountInString(v) > max:
			return fmt.Sprintf("at most %d characters", max)
		case len(p.Enum) > 0 && !slices.Contains(p.Enum, v):
			return "must be one of " + strings.Join(p.Enum, ", ")
		case p.NotBlank && strings.TrimSpace(v) == "":
			return "must not be blank"
		case p.Word && !hasWordRune(v):
			return "must contain a letter or digit"
		case p.Pattern != nil && !p.Pattern.MatchString(v):
			return p.PatternMessage
		}
	}
	return ""
}

// str returns a checked parameter, "" when absent.
func (q *query) str(name string) string {
	if v := q.vals[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// time returns a checked date-time parameter, zero when absent.
func (q *query) time(name string) time.Time {
	t, err := entity.ParseTime(q.str(name))
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

func (q *query) bool(name string) bool { return q.str(name) == "true" }

// int returns a checked integer parameter, 0 when absent.
func (q *query) int(name string) int {
	n, _ := strconv.Atoi(q.str(name))
	return n
}

// Parameters several routes share.
var (
	limitParam  = Param{Name: "limit", Type: "integer", Min: 1, Max: entity.MaxPageSize, Description: fmt.Sprintf("page size (default %d)", entity.DefaultPageSize)}
	cursorParam = Param{Name: "cursor", Description: "next_cursor of the previous page", Max: maxParamLen,
		Pattern: regexp.MustCompile(graph.CursorPattern), PatternMessage: "invalid cursor: pass next_cursor from the previous page"}
)

// Int is an integer in a request body. JSON has only numbers, so 50, 50.0
// and 5e1 are the same integer, and a client's JSON library may write any
// of them; a number with a fraction is refused.
type Int int

// UnmarshalJSON reads any JSON number that is an integer.
func (n *Int) UnmarshalJSON(b []byte) error {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return &json.UnmarshalTypeError{Value: "number " + string(b), Type: reflect.TypeOf(0)}
	}
	*n = Int(f)
	return nil
}

// intOf returns an optional Int as an int, 0 when absent.
func intOf(n *Int) int { return int(deref(n)) }
