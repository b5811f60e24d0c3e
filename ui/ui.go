package ui

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed assets
var assets embed.FS

// Prefix is where the web view is served.
const Prefix = "/ui/"

// pages are the shareable URLs of the web view (under Prefix); each one is
// answered with the same page, whose script draws the view the URL names.
var pages = []string{"", "ask", "forget", "episodes"}

// Handler serves the web view under Prefix: the page for every URL of
// pages and /ui/entity/{name or id}, and the assets under /ui/assets/.
// Anything else is 404.
func Handler() http.Handler {
	files, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	static := http.StripPrefix(Prefix+"assets/", http.FileServerFS(files))
	index, err := fs.ReadFile(files, "index.html")
	if err != nil {
		panic(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		// Only this server's own scripts and styles, never framed, and no
		// URL (which may name an entity) leaks to other sites.
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		rest, ok := strings.CutPrefix(r.URL.Path, Prefix)
		switch {
		case r.URL.Path == strings.TrimSuffix(Prefix, "/"):
			http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
		case !ok:
			http.NotFound(w, r)
		case strings.HasPrefix(rest, "assets/") && path.Ext(rest) != "" && rest != "assets/index.html":
			h.Set("Cache-Control", "no-cache")
			static.ServeHTTP(w, r)
		case page(rest):
			h.Set("Cache-Control", "no-cache")
			h.Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(index)
		default:
			http.NotFound(w, r)
		}
	})
}

// page reports whether rest (the path after Prefix) is a page of the view.
func page(rest string) bool {
	for _, p := range pages {
		if rest == p {
			return true
		}
	}
	name, ok := strings.CutPrefix(rest, "entity/")
	return ok && name != ""
}
