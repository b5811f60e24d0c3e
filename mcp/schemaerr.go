package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphmem/graphmem/entity"
)

// The SDK checks arguments against the input schema before a handler runs
// and reports a mismatch as a tool error in the schema validator's words
// ("validating /properties/facts/items: required: missing properties:
// [\"predicate\"]"). rewriteSchemaErrors restates those in the same form
// as every other argument error — field path, then what is wrong — so a
// model gets one kind of message to act on. A message it cannot parse is
// passed on unchanged; it still names the field.
func rewriteSchemaErrors(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		if method != "tools/call" || err != nil {
			return res, err
		}
		r, ok := res.(*sdk.CallToolResult)
		if !ok || !r.IsError || len(r.Content) != 1 {
			return res, err
		}
		tc, ok := r.Content[0].(*sdk.TextContent)
		if !ok {
			return res, err
		}
		var args json.RawMessage
		if p, ok := req.GetParams().(*sdk.CallToolParamsRaw); ok {
			args = p.Arguments
		}
		if fe := schemaFields(tc.Text, args); fe != nil {
			tc.Text = (tools{}).toolError("", fe.Err()).Error()
		}
		return res, err
	}
}

var (
	pointerRE  = regexp.MustCompile(`validating (/[^:]*): `)
	quotedRE   = regexp.MustCompile(`"([^"]*)"`)
	enumRE     = regexp.MustCompile(`^enum: .* does not equal any of: \[(.*)\]$`)
	boundRE    = regexp.MustCompile(`^(minimum|maximum): .* (?:less|greater) than ([0-9.]+)$`)
	itemsRE    = regexp.MustCompile(`^(minItems|maxItems): array length \d+ is (?:less|greater) than (\d+)$`)
	typeRE     = regexp.MustCompile(`^type: .* has type "([^"]*)", want (?:one of )?"([^"]*)"$`)
	minLenRE   = regexp.MustCompile(`^minLength: `)
	requiredRE = regexp.MustCompile(`^required: missing properties: (\[.*\])$`)
	extraRE    = regexp.MustCompile(`^unexpected additional properties (\[.*\])$`)
)

// schemaFields parses a schema validation message into field errors, or
// returns nil. The validator names a field inside a list only as
// "facts[]"; args, the raw arguments, tell which items are at fault.
func schemaFields(msg string, args json.RawMessage) entity.FieldErrors {
	const prefix = `validating "arguments": `
	if !strings.HasPrefix(msg, prefix) {
		return nil
	}
	path, rest := schemaPointer(strings.TrimPrefix(msg, prefix))
	join := func(name string) string {
		if path == "" {
			return name
		}
		return path + "." + name
	}
	fe := entity.FieldErrors{}
	switch {
	case requiredRE.MatchString(rest):
		for _, q := range quotedRE.FindAllStringSubmatch(requiredRE.FindStringSubmatch(rest)[1], -1) {
			for _, p := range expand(join(q[1]), args, func(v any, ok bool) bool { return !ok }) {
				fe.Add(p, "required")
			}
		}
	case extraRE.MatchString(rest):
		for _, q := range quotedRE.FindAllStringSubmatch(extraRE.FindStringSubmatch(rest)[1], -1) {
			fe.Add(join(q[1]), unknownArgument(q[1]))
		}
	case enumRE.MatchString(rest):
		vals := strings.Fields(enumRE.FindStringSubmatch(rest)[1])
		bad := func(v any, ok bool) bool { s, isStr := v.(string); return ok && (!isStr || !slices.Contains(vals, s)) }
		for _, p := range expand(orArgs(path), args, bad) {
			fe.Add(p, "must be one of "+strings.Join(vals, ", "))
		}
	case boundRE.MatchString(rest):
		boundFields(fe, boundRE.FindStringSubmatch(rest), path, args)
	case itemsRE.MatchString(rest):
		m := itemsRE.FindStringSubmatch(rest)
		word := "at least"
		if m[1] == "maxItems" {
			word = "at most"
		}
		fe.Add(orArgs(path), "must have "+word+" "+m[2]+" item(s)")
	case typeRE.MatchString(rest):
		m := typeRE.FindStringSubmatch(rest)
		want := strings.TrimPrefix(strings.ReplaceAll(m[2], "null, ", ""), "null,")
		fe.Add(orArgs(path), "must be "+article(want)+", not "+article(m[1]))
	case minLenRE.MatchString(rest):
		fe.Add(orArgs(path), "must not be empty")
	default:
		return nil
	}
	return fe
}

// schemaPointer splits a validation message (after "validating
// "arguments": ") into the field path of its innermost pointer, "" for the
// root, and the message that follows it.
func schemaPointer(rest string) (path, msg string) {
	if ms := pointerRE.FindAllStringSubmatchIndex(rest, -1); len(ms) > 0 {
		last := ms[len(ms)-1]
		return fieldPath(rest[last[2]:last[3]]), rest[last[1]:]
	}
	return "", strings.TrimPrefix(rest, "validating root: ")
}

// unknownArgument is the problem of an unknown argument: for scope, why
// a tool call cannot set it.
func unknownArgument(name string) string {
	if name == "scope" {
		return "unknown argument: the scope is set by graphmem's configuration, never by a tool call"
	}
	return "unknown argument"
}

// boundFields adds to fe a problem for each value at path, in args, out
// of the bound of m, a boundRE match (kind, bound).
func boundFields(fe entity.FieldErrors, m []string, path string, args json.RawMessage) {
	word := "at least"
	if m[1] == "maximum" {
		word = "at most"
	}
	bound, _ := strconv.ParseFloat(m[2], 64)
	bad := func(v any, ok bool) bool {
		n, isNum := v.(float64)
		return ok && isNum && (m[1] == "minimum" && n < bound || m[1] == "maximum" && n > bound)
	}
	for _, p := range expand(orArgs(path), args, bad) {
		fe.Add(p, "must be "+word+" "+trimNumber(m[2]))
	}
}

// expand replaces each "[]" of path with the indices of the items of args
// whose value at the rest of the path is at fault (ok: the value is
// present). Without usable arguments, or when no item is found at fault,
// path is returned as it is.
func expand(path string, args json.RawMessage, fault func(v any, ok bool) bool) []string {
	if !strings.Contains(path, "[]") || len(args) == 0 {
		return []string{path}
	}
	var root any
	if json.Unmarshal(args, &root) != nil {
		return []string{path}
	}
	var out []string
	var walk func(v any, rest, prefix string)
	walk = func(v any, rest, prefix string) {
		if rest == "" {
			return
		}
		name, tail, _ := strings.Cut(rest, ".")
		list := strings.HasSuffix(name, "[]")
		name = strings.TrimSuffix(name, "[]")
		m, _ := v.(map[string]any)
		child, ok := m[name]
		here := prefix + name
		if !list {
			if tail == "" {
				if fault(child, ok) {
					out = append(out, here)
				}
				return
			}
			walk(child, tail, here+".")
			return
		}
		items, _ := child.([]any)
		for i, it := range items {
			p := fmt.Sprintf("%s[%d]", here, i)
			if tail == "" {
				if fault(it, true) {
					out = append(out, p)
				}
				continue
			}
			walk(it, tail, p+".")
		}
	}
	walk(root, path, "")
	if len(out) == 0 {
		return []string{path}
	}
	return out
}

// fieldPath turns a schema pointer (/properties/facts/items/properties/x)
// into an argument path (facts[].x).
func fieldPath(ptr string) string {
	var b strings.Builder
	parts := strings.Split(strings.Trim(ptr, "/"), "/")
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "properties":
			if i+1 < len(parts) {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(parts[i+1])
				i++
			}
		case "items":
			b.WriteString("[]")
		}
	}
	return b.String()
}

func orArgs(path string) string {
	if path == "" {
		return "arguments"
	}
	return path
}

func trimNumber(s string) string {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s
}

func article(typ string) string {
	switch typ {
	case "array", "object", "integer":
		return "an " + typ
	case "":
		return "a value"
	}
	return "a " + typ
}
