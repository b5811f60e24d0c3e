package main

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

func TestWebViewURL(t *testing.T) {
	for addr, want := range map[string]string{
		"0.0.0.0:8080":   "http://127.0.0.1:8080/ui/",
		"[::]:8080":      "http://127.0.0.1:8080/ui/",
		":8080":          "http://127.0.0.1:8080/ui/",
		"127.0.0.1:9000": "http://127.0.0.1:9000/ui/",
		"[::1]:8080":     "http://[::1]:8080/ui/",
	} {
		if got := webViewURL(addr); got != want {
			t.Errorf("webViewURL(%q) = %q, want %q", addr, got, want)
		}
	}
}

// TestCheckOpenAddr: without keys, a wildcard address (a container's) is
// refused with advice naming GRAPHMEM_API_KEYS and the open-mode opt-in,
// which serves it with a warning.
func TestCheckOpenAddr(t *testing.T) {
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	err := checkOpenAddr(Config{Addr: "0.0.0.0:8080"}, logger)
	if err == nil || !strings.Contains(err.Error(), "GRAPHMEM_API_KEYS") || !strings.Contains(err.Error(), "GRAPHMEM_OPEN_MODE=on") {
		t.Errorf("0.0.0.0 without keys: %v", err)
	}
	if err := checkOpenAddr(Config{Addr: "127.0.0.1:8080"}, logger); err != nil || log.Len() != 0 {
		t.Errorf("loopback: %v, log %q", err, log.String())
	}
	if err := checkOpenAddr(Config{Addr: "0.0.0.0:8080", OpenMode: "on"}, logger); err != nil || !strings.Contains(log.String(), "OPEN MODE") {
		t.Errorf("open mode: %v, log %q", err, log.String())
	}
	if err := checkOpenAddr(Config{Addr: "0.0.0.0:8080", OpenMode: "yes"}, logger); err == nil || !strings.Contains(err.Error(), "open_mode") {
		t.Errorf("open_mode yes: %v", err)
	}
}

// TestE2E_FirstScreen: the start-up log names the web view, and "/" leads
// to it.
func TestE2E_FirstScreen(t *testing.T) {
	var log bytes.Buffer
	m := MustRunMain(t, func(m *Main) { m.Logger = slog.New(slog.NewTextHandler(&log, nil)) })
	if want := "web_view=http://" + m.Addr() + "/ui/"; !strings.Contains(log.String(), want) {
		t.Errorf("start-up log lacks %s:\n%s", want, log.String())
	}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, method := range []string{"GET", "HEAD"} {
		req, _ := http.NewRequest(method, "http://"+m.Addr()+"/", nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/ui/" {
			t.Errorf("%s /: %d, Location %q", method, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}
