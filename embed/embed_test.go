package embed_test

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/embed"
	"github.com/graphmem/graphmem/embed/embedtest"
	"github.com/graphmem/graphmem/entity"
)

var ctx = context.Background()

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestClient_RealModel(t *testing.T) {
	c := embedtest.Client(t)
	passages := []string{
		"Hiro Sato reports to Mia Chen",
		"identity-worker memory limit 512Mi",
		"cart-api deployed in eu-west-1",
		"张伟 的上级是 李娜",
	}
	ps, err := c.Embed(ctx, embed.Passage, passages)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != len(passages) {
		t.Fatalf("got %d vectors for %d texts", len(ps), len(passages))
	}
	for i, v := range ps {
		if len(v) != 384 {
			t.Fatalf("vector %d has %d dimensions, want 384 (multilingual-e5-small)", i, len(v))
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if math.Abs(n-1) > 1e-3 {
			t.Fatalf("vector %d has squared norm %f, want 1", i, n)
		}
	}
	// Questions that share no word with their answer find it.
	for q, want := range map[string]int{
		"who is Hiro's boss":                   0,
		"how much RAM can identity-worker use": 1,
		"in which region is cart-api hosted":   2,
		"张伟的经理是谁":                              3,
	} {
		qs, err := c.Embed(ctx, embed.Query, []string{q})
		if err != nil {
			t.Fatal(err)
		}
		best := -1
		for i, p := range ps {
			if best < 0 || dot(qs[0], p) > dot(qs[0], ps[best]) {
				best = i
			}
		}
		if best != want {
			t.Errorf("%q: nearest passage %q, want %q", q, passages[best], passages[want])
		}
	}
}

func TestClient_Batches(t *testing.T) {
	c := embedtest.Client(t)
	cfg := embedtest.Config(c.BaseURL())
	cfg.Batch = 3
	small, err := embed.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"a", "b", "c", "d", "e", "f", "g"}
	got, err := small.Embed(ctx, embed.Passage, texts)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := c.Embed(ctx, embed.Passage, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		if d := dot(got[i], whole[i]); d < 0.999 {
			t.Errorf("text %d: batched vector differs (cosine %f)", i, d)
		}
	}
}

func TestNew_Invalid(t *testing.T) {
	_, err := embed.New(embed.Config{Model: "m"})
	if entity.ErrorCode(err) != entity.EINVALID || !strings.Contains(err.Error(), "embed_base_url") {
		t.Fatalf("no base URL: %v", err)
	}
	_, err = embed.New(embed.Config{BaseURL: "http://127.0.0.1:1/v1"})
	if entity.ErrorCode(err) != entity.EINVALID || !strings.Contains(err.Error(), "embed_model") {
		t.Fatalf("no model: %v", err)
	}
}

// The endpoint's failures keep their kind: a refused request is the
// caller's, an unavailable server is retried, a short answer is a bug.
func TestClient_Failures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   entity.Code
	}{
		{"refused", 400, `{"error":{"message":"model not found"}}`, entity.EINVALID},
		{"overloaded", 503, `busy`, entity.EUNAVAILABLE},
		{"short answer", 200, `{"data":[]}`, entity.EINTERNAL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			c, err := embed.New(embed.Config{BaseURL: srv.URL + "/v1", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Embed(ctx, embed.Query, []string{"x"})
			if entity.ErrorCode(err) != tc.want {
				t.Fatalf("got %v (%s), want %s", err, entity.ErrorCode(err), tc.want)
			}
		})
	}
	c, _ := embed.New(embed.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	if _, err := c.Embed(ctx, embed.Query, []string{"x"}); entity.ErrorCode(err) != entity.EUNAVAILABLE {
		t.Fatalf("unreachable: %v", err)
	}
}
