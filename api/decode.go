package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/go-playground/validator/v10"

	"github.com/graphmem/graphmem/entity"
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
	must(v.RegisterValidation("rfc3339", func(fl validator.FieldLevel) bool {
		_, err := parseTime(fl.Field().String())
		return err == nil
	}))
	return v
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// parseTime parses an RFC 3339 time, with or without fractional seconds.
func parseTime(s string) (time.Time, error) {
	return time.Parse(time.RFC3339Nano, s)
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
	case "rfc3339":
		return "must be an RFC 3339 time, e.g. 2024-03-01T09:00:00Z"
	}
	return fmt.Sprintf("failed the %s check", ve.Tag())
}

// DecodeJSON reads the request body — a JSON object of at most the server's
// MaxBodyBytes — into dst, rejecting unknown fields and trailing data, then
// checks dst's validate tags. Errors are EINVALID naming the field, or
// ETOOLARGE.
func (s *Server) DecodeJSON(c *gin.Context, dst any) error {
	dec, err := s.jsonBody(c)
	if err != nil {
		return err
	}
	if err := decodeOne(dec, dst); err != nil {
		return decodeError(err, "", s.opts.MaxBodyBytes)
	}
	fe := entity.FieldErrors{}
	if err := validate.Struct(dst); err != nil {
		shapeErrors(err, "", fe)
	}
	return fe.Err()
}

// jsonBody checks the content type and returns a decoder over the limited
// body. Requiring a JSON content type (or none) keeps browsers' simple
// cross-site form posts away from a development-mode server.
func (s *Server) jsonBody(c *gin.Context) (*json.Decoder, error) {
	if ct := c.GetHeader("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return nil, invalid("Content-Type", "must be application/json")
		}
	}
	dec := json.NewDecoder(http.MaxBytesReader(c.Writer, c.Request.Body, s.opts.MaxBodyBytes))
	dec.DisallowUnknownFields()
	return dec, nil
}

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

// decodeError turns a JSON decoding error into an application error; field
// paths are prefixed with prefix ("facts[3].").
func decodeError(err error, prefix string, limit int64) error {
	var (
		mbe *http.MaxBytesError
		se  *json.SyntaxError
		ute *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &mbe):
		return &entity.Error{Code: entity.ETOOLARGE, Message: fmt.Sprintf("request body exceeds %d bytes", limit)}
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

// query reads URL query parameters, rejecting unknown and repeated ones,
// and collects every problem as a field error.
type query struct {
	vals map[string][]string
	fe   entity.FieldErrors
}

// maxParamLen bounds any query parameter.
const maxParamLen = 1024

func newQuery(c *gin.Context, allowed ...string) *query {
	q := &query{vals: c.Request.URL.Query(), fe: entity.FieldErrors{}}
	for k, v := range q.vals {
		switch {
		case !contains(allowed, k):
			q.fe.Add(k, "unknown query parameter")
		case len(v) > 1:
			q.fe.Add(k, "given more than once")
		}
	}
	return q
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// str returns a parameter of at most max characters, "" when absent.
func (q *query) str(name string, max int) string {
	v := q.get(name)
	switch {
	case !utf8.ValidString(v):
		q.fe.Add(name, "must be valid UTF-8")
		return ""
	case utf8.RuneCountInString(v) > max:
		q.fe.Add(name, fmt.Sprintf("at most %d characters", max))
		return ""
	}
	return v
}

func (q *query) get(name string) string {
	if v := q.vals[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// time returns an RFC 3339 parameter, zero when absent.
func (q *query) time(name string) time.Time {
	v := q.get(name)
	if v == "" {
		return time.Time{}
	}
	t, err := parseTime(v)
	if err != nil {
		q.fe.Add(name, "must be an RFC 3339 time, e.g. 2024-03-01T09:00:00Z")
	}
	return t.UTC()
}

func (q *query) bool(name string) bool {
	v := q.get(name)
	if v == "" {
		return false
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		q.fe.Add(name, "must be true or false")
	}
	return b
}

// limit returns the page size, 0 (the service default) when absent.
func (q *query) limit() int {
	const name, lo, hi = "limit", 1, 1000
	v := q.get(name)
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		q.fe.Add(name, fmt.Sprintf("must be an integer between %d and %d", lo, hi))
		return 0
	}
	return n
}

// enum returns a parameter that must be one of vals ("" when absent).
func (q *query) enum(name string, vals ...string) string {
	v := q.get(name)
	if v != "" && !contains(vals, v) {
		q.fe.Add(name, "must be one of "+strings.Join(vals, ", "))
		return ""
	}
	return v
}

func (q *query) err() error { return q.fe.Err() }
