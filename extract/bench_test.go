package extract_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/graphmem/graphmem/extract/extracttest"
)

// BenchmarkExtract measures the pipeline's own cost per episode against a
// fake that answers instantly: prompt building, the SDK round trip over
// loopback, answer parsing and validation. The baseline, measured in the
// same run, is a bare HTTP POST of the same request body to the same fake
// with the same answer decoded into a map: what any client pays for the
// round trip. The difference is what extract adds.
func BenchmarkExtract(b *testing.B) {
	fx := extracttest.LoadFixture(b, "package_manager")
	srv := extracttest.NewServer(b, extracttest.Always(fx.Reply()))
	x, _ := MustNew(b, srv)
	in := input(fx)
	MustExtract(b, x, in) // warm up and capture the request the pipeline sends
	body := srv.Requests()[0].Body

	b.Run("baseline_raw_http", func(b *testing.B) {
		client := &http.Client{}
		url := srv.BaseURL() + "/chat/completions"
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if i%1000 == 0 {
				srv.Reset() // the fake records requests; keep memory flat
			}
			resp, err := client.Post(url, "application/json", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			var v map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
	})
	b.Run("extract", func(b *testing.B) {
		ctx := context.Background()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if i%1000 == 0 {
				srv.Reset()
			}
			out, u, err := x.Extract(ctx, in)
			if err != nil || u.Calls != 1 || len(out.Facts) != 3 {
				b.Fatalf("calls %d facts %d err %v", u.Calls, len(out.Facts), err)
			}
		}
	})
}
