package ui_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/ui"
)

func get(t *testing.T, path string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	ui.Handler().ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	return w
}

func TestHandler_Pages(t *testing.T) {
	for _, p := range []string{"/ui/", "/ui/ask", "/ui/forget", "/ui/episodes", "/ui/entity/production%20database", "/ui/entity/a%2Fb"} {
		w := get(t, p)
		if w.Code != 200 || !strings.Contains(w.Body.String(), `<main id="main"`) {
			t.Errorf("%s: %d", p, w.Code)
		}
		if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("%s: Content-Security-Policy %q", p, csp)
		}
	}
	for _, p := range []string{"/ui/entity/", "/ui/nope", "/ui/assets/nope.js", "/ui/assets/", "/other"} {
		if w := get(t, p); w.Code != 404 {
			t.Errorf("%s: %d, want 404", p, w.Code)
		}
	}
	if w := get(t, "/ui"); w.Code != http.StatusMovedPermanently || w.Header().Get("Location") != "/ui/" {
		t.Errorf("/ui: %d %q", w.Code, w.Header().Get("Location"))
	}
}

// Every script and style the page loads is embedded, with its type.
func TestHandler_Assets(t *testing.T) {
	page := get(t, "/ui/").Body.String()
	want := map[string]string{"/ui/assets/app.js": "text/javascript", "/ui/assets/app.css": "text/css",
		"/ui/assets/core.js": "text/javascript", "/ui/assets/entity.js": "text/javascript", "/ui/assets/pages.js": "text/javascript"}
	for p, ct := range want {
		if strings.HasSuffix(p, "app.js") || strings.HasSuffix(p, "app.css") {
			if !strings.Contains(page, p) {
				t.Errorf("the page does not load %s", p)
			}
		}
		w := get(t, p)
		if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), ct) || w.Body.Len() == 0 {
			t.Errorf("%s: %d %q", p, w.Code, w.Header().Get("Content-Type"))
		}
	}
}
