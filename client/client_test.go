package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/client"
	"github.com/graphmem/graphmem/entity"
)

func TestClient_Do(t *testing.T) {
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/bad" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"code":"invalid_argument","message":"invalid request","fields":{"facts[0].valid_from":"` + entity.TimeMessage + `"}}}`))
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"ok": "yes"})
	}))
	defer srv.Close()
	c := client.New(srv.URL+"/", "k1", "team")
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		var out map[string]string
		status, err := c.Do(ctx, "POST", "/v1/facts", map[string]any{"facts": []any{}}, &out)
		if err != nil || status != 200 || out["ok"] != "yes" {
			t.Fatalf("%d %v %v", status, out, err)
		}
		if got.Header.Get("Authorization") != "Bearer k1" || got.Header.Get(wire.ScopeHeader) != "team" ||
			got.Header.Get("Content-Type") != "application/json" {
			t.Errorf("headers %v", got.Header)
		}
	})
	t.Run("ErrorShape", func(t *testing.T) {
		status, err := c.Do(ctx, "GET", "/v1/bad", nil, nil)
		if status != 400 || entity.ErrorCode(err) != entity.EINVALID {
			t.Fatalf("%d %v", status, err)
		}
		var e *entity.Error
		if !errors.As(err, &e) || e.Fields["facts[0].valid_from"] != entity.TimeMessage {
			t.Errorf("fields lost: %v", err)
		}
		if got.Header.Get("Content-Type") != "" {
			t.Errorf("a request without a body has a Content-Type: %v", got.Header)
		}
	})
	t.Run("Unreachable", func(t *testing.T) {
		dead := httptest.NewServer(http.NotFoundHandler())
		dead.Close()
		_, err := client.New(dead.URL, "", "").Do(ctx, "GET", "/healthz", nil, nil)
		if entity.ErrorCode(err) != entity.EUNAVAILABLE {
			t.Errorf("unreachable server: %v", err)
		}
	})
}
