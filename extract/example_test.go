package extract_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/extract"
)

// An OpenAI-compatible server (here a stand-in that always gives the same
// answer) turns one message into dated facts with one call.
func ExampleExtractor_Extract() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1741947600,"model":"m",
			"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":
			"{\"entities\":[{\"name\":\"production database\",\"type\":\"service\",\"aliases\":[]}],\"facts\":[{\"subject\":\"production database\",\"predicate\":\"listens_on\",\"object\":null,\"value\":\"3307\",\"text\":\"The production database listens on port 3307.\",\"valid_from\":\"2025-03-14T10:20:00Z\",\"valid_to\":null,\"cardinality\":\"one\",\"source_kind\":\"user_explicit\",\"importance\":8,\"attributes\":{\"reason\":null,\"alternatives\":[]}}]}"}}],
			"usage":{"prompt_tokens":1200,"completion_tokens":95,"total_tokens":1295}}`)
	}))
	defer srv.Close()

	x, err := extract.New(extract.Config{BaseURL: srv.URL + "/v1", Model: "qwen2.5:7b"})
	if err != nil {
		panic(err)
	}
	out, usage, err := x.Extract(context.Background(), extract.Input{
		Episode: entity.Episode{
			Content:       "our production database moved from 5432 to 3307",
			Speaker:       "Sam",
			Role:          entity.RoleUser,
			ReferenceTime: time.Date(2025, 3, 14, 10, 20, 0, 0, time.UTC),
		},
	})
	if err != nil {
		panic(err)
	}
	for _, f := range out.Facts {
		fmt.Println(f.Subject, f.Predicate, f.Value, f.ValidFrom.Format(time.RFC3339), f.SourceKind)
	}
	fmt.Printf("calls=%d prompt_tokens=%d completion_tokens=%d\n", usage.Calls, usage.PromptTokens, usage.CompletionTokens)
	// Output:
	// production database port 3307 2025-03-14T10:20:00Z user_explicit
	// calls=1 prompt_tokens=1200 completion_tokens=95
}
