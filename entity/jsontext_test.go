package entity_test

import (
	"testing"

	"github.com/graphmem/graphmem/entity"
)

// TestInvalidJSONText: the path of the first string that is not UTF-8 text,
// keys and values alike; escaped surrogate pairs and escaped backslashes
// are text.
func TestInvalidJSONText(t *testing.T) {
	for _, tc := range []struct {
		body string
		path string
		bad  bool
	}{
		{"{\"a\":\"ok\",\"b\":[\"x\",\"y\xff\"]}", "b[1]", true},
		{"{\"facts\":[{\"s\":\"a\"},{\"s\":\"b\",\"attributes\":{\"k\":{\"n\":1,\"m\":\"\xc3\"}}}]}", "facts[1].attributes.k.m", true},
		{"{\"a\":{\"b\xff\":1}}", "a.b\ufffd", true},
		{"\"\xff\"", "", true},
		{"{\"a\":[[1,\"\xff\"]]}", "a[0][1]", true},
		{`{"a":"\ud800"}`, "a", true},
		{`{"a":"x\\\ud800"}`, "a", true},
		{`{"a":"\ud83d\ude00 \u00e9"}`, "", false},
		{`{"a":"\\ud800"}`, "", false},
		{`{"a":"é ☃","b":[true,null,2.5]}`, "", false},
		{`{"a":`, "", false},
	} {
		path, bad := entity.InvalidJSONText([]byte(tc.body))
		if bad != tc.bad || path != tc.path {
			t.Errorf("%q: %q %v, want %q %v", tc.body, path, bad, tc.path, tc.bad)
		}
	}
}
