package client_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/client"
)

// jsonFields are the names a struct's fields take in JSON.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// TestRequests_MatchTheLiveDocument: the client's request types say what
// the server's /openapi.json says a body holds, no more (the server would
// refuse the field) and no less (a caller could not say it). The domain's
// inputs the client sends (wire.FactInput, wire.EpisodeInput) can say
// everything the API takes.
func TestRequests_MatchTheLiveDocument(t *testing.T) {
	resp, err := http.Get(serverURL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	type schema struct {
		Ref        string            `json:"$ref"`
		Properties map[string]schema `json:"properties"`
		Items      *schema           `json:"items"`
	}
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct {
					Schema schema `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	resolve := func(s schema) schema {
		if name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/"); ok {
			return doc.Components.Schemas[name]
		}
		return s
	}
	body := func(path string) schema {
		return resolve(doc.Paths[path]["post"].RequestBody.Content["application/json"].Schema)
	}
	names := func(s schema) []string {
		var out []string
		for k := range s.Properties {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	for path, typ := range map[string]reflect.Type{
		"/v1/search":  reflect.TypeFor[client.SearchRequest](),
		"/v1/context": reflect.TypeFor[client.ContextRequest](),
		"/v1/forget":  reflect.TypeFor[client.ForgetRequest](),
	} {
		if want, got := names(body(path)), jsonFields(typ); !slices.Equal(got, want) {
			t.Errorf("%s: %s has %v, the API takes %v", path, typ.Name(), got, want)
		}
	}
	facts := resolve(*body("/v1/facts").Properties["facts"].Items)
	for path, c := range map[string]struct {
		api schema
		typ reflect.Type
	}{
		"/v1/facts":    {facts, reflect.TypeFor[wire.FactInput]()},
		"/v1/episodes": {body("/v1/episodes"), reflect.TypeFor[wire.EpisodeInput]()},
	} {
		have := jsonFields(c.typ)
		if len(c.api.Properties) == 0 {
			t.Errorf("%s: the document describes no body", path)
		}
		for name := range c.api.Properties {
			if !slices.Contains(have, name) {
				t.Errorf("%s takes %s, which %s cannot say", path, name, c.typ)
			}
		}
	}
}
