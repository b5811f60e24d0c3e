package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/graphmem/graphmem/api"
	"github.com/graphmem/graphmem/embed/embedtest"
	"github.com/graphmem/graphmem/extract/extracttest"
)

// The web view, checked in a real headless Chromium: what a person sees
// on each page of a seeded scope, in development mode and with API keys.
// Screenshots go to $GRAPHMEM_ARTIFACTS/ui (a temporary folder when unset).

const uiScope = "acme:ops"

func TestWebUI_DevelopmentMode(t *testing.T) {
	chrome := mustChromium(t)
	m := MustRunMain(t, nil)
	seedUI(t, newClient(t, m).as("", uiScope))
	b := newBrowser(t, chrome, "http://"+m.Addr())

	// No sign-in; the scope picker offers the store's scopes.
	b.open("/ui/")
	b.waitText("#who", "development mode")
	b.run(chromedp.SetValue(chromedp.CSS("#scope"), uiScope), chromedp.Evaluate[chromedp.Void](`document.querySelector('#scope').dispatchEvent(new Event('change'))`))
	b.checkScenario("dev")
}

func TestWebUI_WithKeys(t *testing.T) {
	chrome := mustChromium(t)
	const key = "ui-test-key-0123456789abcdef0123"
	fake := extracttest.NewServer(t, modelFor(t))
	m := MustRunMain(t, func(m *Main) {
		withModel(fake)(m)
		m.Config.APIKeys = key + "=" + uiScope + ",other:scope"
	})
	c := newClient(t, m)
	seedUI(t, c.as(key, uiScope))
	b := newBrowser(t, chrome, "http://"+m.Addr())

	// Without a key the page is refused: a sign-in form and no data.
	b.open("/ui/entity/production%20database")
	b.waitText("main", "This server needs an API key")
	b.absent("#timeline")
	if r := c.do("GET", "/v1/entities/x/timeline", nil); r.status != 401 {
		t.Fatalf("timeline without a key: %d", r.status)
	}
	b.shot("keys-signin")

	// A wrong key is refused in words; the right one signs in.
	b.run(chromedp.SendKeys(chromedp.CSS("#key"), "not-the-key\r"))
	b.waitText("#signin-problem", "That key was refused")
	b.waitText("#signin-problem", "API key")
	b.eval(`document.querySelector('#key').value = ''`)
	b.run(chromedp.SendKeys(chromedp.CSS("#key"), key+"\r"))
	b.waitText("#values", "3307")
	// The key never leaves the tab's sessionStorage.
	if stored, local := b.eval(`sessionStorage.getItem('graphmem.key')`), b.eval(`String(localStorage.length)`); stored != key || local != "0" {
		t.Fatalf("key in sessionStorage %q, localStorage items %s", stored, local)
	}
	// The picker offers the key's two scopes.
	b.waitText("#scope", "other:scope")
	var s api.Session
	c.as(key, "").do("GET", "/v1/session", nil).ok(t, 200, &s)
	if s.Scope != uiScope || !slices.Equal(s.Scopes, []string{uiScope, "other:scope"}) || s.DevelopmentMode {
		t.Errorf("session %+v", s)
	}
	b.checkScenario("keys")
	// An episode whose every proposed fact is made up: the page says why
	// it has no facts.
	junk := postEpisode(c.as(key, uiScope), "From March 1 our prod-db listens on port 3307 instead of 3306, because the old port clashed with the monitoring agent.", "2024-03-01T09:00:00Z")
	waitEpisode(c.as(key, uiScope), junk.EpisodeID)
	b.open("/ui/episodes")
	b.waitText("table.episodes", "2 facts proposed, none kept; dropped: 2 not grounded in the episode")
	b.clickText("table.episodes summary", "2 dropped")
	b.waitText("table.episodes", `the subject "100s" is not named in the episode`)
	b.shot("keys-episodes-dropped")

	// Signing out forgets the key: the pages are refused again.
	b.run(chromedp.Click(chromedp.CSS("#who button")))
	b.waitText("main", "Sign in")
	b.open("/ui/ask?q=port")
	b.waitText("main", "This server needs an API key")
	b.absent("#context-block")
}

// TestWebUI_NameAndVectorNotes: the ask and search pages say which name
// of a question names several entities, and, with the test embedding
// model, that an answer went without the vector list, as the API returns
// them (a wait of 1ns: no question's embedding arrives in time).
func TestWebUI_NameAndVectorNotes(t *testing.T) {
	chrome := mustChromium(t)
	vectors := os.Getenv(embedtest.EnvURL) != ""
	m := MustRunMain(t, func(m *Main) {
		if vectors {
			withEmbeddings(t, nil)(m)
			m.Config.EmbedWait = "1ns"
		}
	})
	c := newClient(t, m).as("", uiScope)
	c.postFacts(
		map[string]any{"subject": "Bob Lindqvist", "subject_type": "person", "subject_aliases": []string{"Bob"}, "predicate": "lives_in",
			"object": "Malmö", "object_type": "place", "valid_from": "2024-01-01T00:00:00Z", "source_kind": "user_explicit"},
		map[string]any{"subject": "Bob Stone", "subject_type": "person", "subject_aliases": []string{"Bob"}, "predicate": "lives_in",
			"object": "Oslo", "object_type": "place", "valid_from": "2024-01-01T00:00:00Z", "source_kind": "user_explicit"},
	)
	b := newBrowser(t, chrome, "http://"+m.Addr())
	b.open("/ui/")
	b.run(chromedp.SetValue(chromedp.CSS("#scope"), uiScope), chromedp.Evaluate[chromedp.Void](`document.querySelector('#scope').dispatchEvent(new Event('change'))`))
	b.open("/ui/ask?q=" + url.QueryEscape("Where does Bob live?"))
	b.waitText("#ambiguous", "Bob names several entities: Bob Lindqvist, Bob Stone — the answer weighs each")
	b.waitText("#context-block", "Oslo")
	if vectors {
		b.waitText("#vector-note", "Ranked without meaning search: vectors skipped (timeout: the question's embedding did not arrive in time).")
		b.waitText("#block-meta", "vectors skipped")
	} else {
		b.waitText("#block-meta", "vectors off")
		b.absent("#vector-note")
	}
	b.shot("notes-ask")
	b.open("/ui/?q=" + url.QueryEscape("where does bob live"))
	b.waitText("#results", "bob names several entities: Bob Lindqvist, Bob Stone")
	if vectors {
		b.waitText("#results", "vectors skipped (timeout")
	}
	b.absent("#unresolved")
	b.shot("notes-search")
}

// seedUI writes the scenario: a port change with a reason and a source
// episode, a team whose lead changes, a decision that is reversed, and a
// fact that the test forgets through the page.
func seedUI(t *testing.T, c client) {
	t.Helper()
	var ep api.EpisodeAccepted
	// Waited for, so its extraction (a model in TestWebUI_WithKeys) ends
	// before the facts below: the home page lists the reversal as the
	// latest change, not the episode finishing after it.
	c.do("POST", "/v1/episodes?wait=true", map[string]any{
		"content":        "Dana: we moved the production database to port 3307 because 5432 clashed with the analytics replica.",
		"speaker":        "Dana",
		"reference_time": "2024-02-15T08:00:00Z",
		"source_kind":    "user_explicit",
	}).ok(t, 200, &ep)
	c.postFacts(
		map[string]any{"subject": "production database", "subject_type": "service", "predicate": "port", "value": "5432",
			"valid_from": "2023-03-01T10:00:00Z", "source_kind": "user_explicit", "text": "The production database listens on port 5432"},
		map[string]any{"subject": "production database", "subject_type": "service", "predicate": "port", "value": "3307",
			"valid_from": "2024-02-15T08:00:00Z", "source_kind": "user_explicit", "episode_id": ep.EpisodeID, "confidence": 0.95,
			"text": "The production database moved to port 3307", "attributes": map[string]any{"reason": "5432 clashed with the analytics replica"}},
		map[string]any{"subject": "production database", "predicate": "owned_by", "object": "platform team", "object_type": "team",
			"valid_from": "2022-01-01T00:00:00Z", "source_kind": "user_explicit", "cardinality": "one"},
		map[string]any{"subject": "platform team", "subject_type": "team", "predicate": "team_lead", "object": "Bob Ruiz", "object_type": "person",
			"valid_from": "2022-01-01T00:00:00Z", "source_kind": "user_explicit", "cardinality": "one"},
		map[string]any{"subject": "platform team", "subject_type": "team", "predicate": "team_lead", "object": "Carol Diaz", "object_type": "person",
			"valid_from": "2024-05-01T00:00:00Z", "source_kind": "user_explicit", "cardinality": "one"},
		map[string]any{"subject": "platform team", "predicate": "decided", "value": "move every service to Kubernetes",
			"valid_from": "2023-01-10T00:00:00Z", "source_kind": "user_explicit", "attributes": map[string]any{"reason": "one platform for every service"}},
		map[string]any{"subject": "production database", "predicate": "root_password_hint", "value": "the name of the first office cat",
			"valid_from": "2024-01-01T00:00:00Z", "source_kind": "user_implicit"},
	)
	// The decision is reversed: it ends, and the opposite one starts.
	c.postFacts(
		map[string]any{"subject": "platform team", "predicate": "decided", "value": "move every service to Kubernetes",
			"valid_to": "2023-09-01T00:00:00Z", "source_kind": "user_explicit"},
		map[string]any{"subject": "platform team", "predicate": "decided", "value": "keep services on virtual machines",
			"valid_from": "2023-09-01T00:00:00Z", "source_kind": "user_explicit",
			"attributes": map[string]any{"reason": "Kubernetes upgrades cost more time than they saved"}},
	)
}

// checkScenario checks what a person sees of the seeded scope on every
// page, signed in (or in development mode) and in scope uiScope.
func (b *browser) checkScenario(name string) {
	t := b.t
	b.open("/ui/entity/production%20database")
	b.waitText("h1", "production database")
	// The port's timeline: 5432 then 3307, with dates, source and reason.
	b.waitText("#values", "3307")
	b.notText("#values", "5432")
	b.waitText("#timeline", "5432 from 2023-03-01 10:00 to 2024-02-15 08:00 superseded")
	b.waitText("#timeline", "3307 from 2024-02-15 08:00, still true current")
	b.waitText("#timeline", "user_explicit · confidence 0.95 · reason: 5432 clashed with the analytics replica")
	if n := b.count("#timeline svg .bar"); n != 4 {
		t.Errorf("%d timeline bars, want 4 (two ports, the owner, the hint)", n)
	}
	// The graph: the team at depth 1, its leads at depth 2, the old lead's
	// edge dashed.
	b.waitText("#graph", "production database —owned_by→ platform team current")
	b.waitText("#graph", "platform team —led_by→ Carol Diaz current")
	b.waitText("#graph", "platform team —led_by→ Bob Ruiz superseded")
	if n := b.count("#graph svg .edge.ended"); n < 2 {
		t.Errorf("%d dashed edges, want the old port and the old lead", n)
	}
	// A fact's source: the quote of the episode it came from.
	b.clickText("#timeline .fact-row button", "3307")
	b.waitText("#fact-detail", "clashed with the analytics replica.")
	b.waitText("#fact-detail", "Dana, 2024-02-15 08:00")
	b.notText("main", "null")
	b.notText("main", "undefined")
	b.shot(name + "-entity-laptop")

	// As of a date before the move: the old port and the old lead.
	b.run(chromedp.SetValue(chromedp.CSS("#as-of"), "2023-06-01"), chromedp.Click(chromedp.CSS(`.asof button[type=submit]`)))
	b.waitText("#values-h", "as of 2023-06-01")
	b.waitText("#values", "5432")
	b.notText("#values", "3307")
	b.waitText("#graph", "platform team —led_by→ Bob Ruiz current")
	b.notText("#graph", "Carol Diaz")
	if u := b.location(); !strings.Contains(u, "as_of=2023-06-01") {
		t.Errorf("as_of is not in the URL: %s", u)
	}
	// The timeline's statuses are those of 2023-06-01 too, as the graph's
	// and the values': 5432 was current then, 3307 not yet begun; what
	// each is now stays beside it.
	b.waitText("#timeline", "5432 from 2023-03-01 10:00 to 2024-02-15 08:00 current")
	rows := b.eval(`[...document.querySelectorAll('#timeline .fact-row')].map((li) => [li.querySelector('button').innerText, li.querySelector('.status').innerText, li.querySelector('.now')?.innerText.trim() || ''].join('|')).join('\n')`)
	for _, want := range []string{"5432|current|· now superseded", "3307|future|· now current", "platform team|current|"} {
		if !slices.Contains(strings.Split(rows, "\n"), want) {
			t.Errorf("the as-of timeline has no row %q:\n%s", want, rows)
		}
	}
	if bad := b.eval(`[...document.querySelectorAll('#timeline .fact-row')].filter((li) => li.querySelector('.badge.at') && li.querySelector('.status').textContent !== 'current').map((li) => li.innerText).join(' | ')`); bad != "" {
		t.Errorf("values true then but not current then in the timeline: %s", bad)
	}
	b.clickText("#timeline .fact-row button", "5432")
	b.waitText("#fact-detail", "current then (now superseded)")
	b.shot(name + "-entity-as-of")

	// Click (here: the keyboard) to move to a neighbour, keeping as_of.
	b.run(chromedp.Focus(chromedp.CSS(`#graph svg .node.entity.d1`)), chromedp.KeyEvent("\r"))
	b.waitText("h1", "platform team")
	b.waitText("#values", "move every service to Kubernetes")
	b.open("/ui/entity/platform%20team")
	b.waitText("#timeline", "move every service to Kubernetes from 2023-01-10 to 2023-09-01 ended")
	b.waitText("#timeline", "keep services on virtual machines from 2023-09-01, still true current")
	b.waitText("#timeline", "reason: Kubernetes upgrades cost more time than they saved")
	b.waitText("#timeline", "Bob Ruiz from 2022-01-01 to 2024-05-01 superseded")
	// A bad as_of is an error, not a date the browser guessed from it
	// ("garbage 1" parses as 2001-01-01).
	b.open("/ui/entity/platform%20team?as_of=garbage%201")
	b.waitText(".error", "as_of “garbage 1” is not a date")
	b.notText("#values-h", "2001")
	b.open("/ui/entity/no%20such%20thing")
	b.waitText("h1", "No entity named")

	// The home page: counts and the latest changes, the reversal first.
	b.open("/ui/")
	b.waitText("#counts", "8 facts · 4 entities · 1 episode")
	b.waitText("#overview .changes li", "keep services on virtual machines")
	b.shot(name + "-home")

	// Search: the entity, and facts about it.
	b.open("/ui/?q=" + url.QueryEscape("production database port"))
	b.waitText("#results", "Entities")
	b.waitText("#results", "production database port 3307")

	// The ask page: the block an agent gets, with its facts.
	b.open("/ui/ask?q=" + url.QueryEscape("which port does the production database use?"))
	b.waitText("#context-block", "3307")
	b.waitText("main", "Ranking signals")
	// At 1280 pixels the ranking table fits its column: no sideways scroll,
	// every hit's signals in view.
	if w := b.eval(`(() => { const d = document.querySelector('table.signals').parentElement; return d.scrollWidth + ' ' + d.clientWidth + ' ' + document.documentElement.scrollWidth; })()`); !fits(w, 1280) {
		t.Errorf("the ranking table scrolls sideways at 1280 pixels (table box scroll/client width, page width): %s", w)
	}
	b.waitText("table.signals td.sigs", "bm25")
	b.shot(name + "-ask")
	// A name memory knows nothing about is said so, with the close names.
	b.open("/ui/ask?q=" + url.QueryEscape("what port does the staging database use?"))
	b.waitText("#unresolved", "Memory holds nothing about staging database — did you mean production database?")
	b.waitText("#context-block", `memory holds nothing about "staging database"; did you mean "production database"`)
	// An API error is shown in words, with the field.
	b.open("/ui/ask?q=port&max_tokens=10")
	b.waitText(".error", "max_tokens")

	// Forget an entity: the dry run lists its facts; nothing goes yet.
	b.open("/ui/forget")
	b.run(chromedp.SetValue(chromedp.CSS("#forget-by"), "entity"), chromedp.SendKeys(chromedp.CSS("#forget-what"), "Bob Ruiz\r"))
	b.waitText("#preview", "platform team led_by Bob Ruiz · from 2022-01-01 to 2024-05-01")
	b.waitText("#preview-counts", "1 fact, 0 episodes, 1 entity")

	// Forget: a dry run lists the fact by name and date, then it goes.
	b.open("/ui/forget")
	b.run(chromedp.SendKeys(chromedp.CSS("#forget-what"), "root password hint"),
		chromedp.SendKeys(chromedp.CSS("#forget-reason"), "a secret"),
		chromedp.Click(chromedp.CSS(`form.card button[type=submit]`)))
	b.waitText("#preview", "production database root_password_hint the name of the first office cat · from 2024-01-01")
	b.waitText("#preview-counts", "1 fact, 0 episodes, 0 entities")
	b.shot(name + "-forget-preview")
	b.run(chromedp.Click(chromedp.CSS("#do-forget")))
	b.waitText("#preview", "Forgot 1 fact,")
	b.waitText("#audit", "a secret")
	b.open("/ui/entity/production%20database")
	b.waitText("#values", "3307")
	b.notText("main", "office cat")

	// The episodes page: the queue with the facts each episode produced.
	b.open("/ui/episodes")
	b.waitText("table.episodes", "clashed with the analytics replica")
	b.clickText("table.episodes button", "1 fact")
	b.waitText("table.episodes", "production database port 3307")
	if name == "dev" {
		b.waitText("table.episodes", "not extracted: no extraction model is configured")
	}
	b.shot(name + "-episodes")

	// A phone's width: one column, nothing wider than the screen but the
	// scrollable timeline.
	b.run(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	b.open("/ui/entity/production%20database")
	b.waitText("#graph", "owned_by")
	if w := b.eval(`String(document.documentElement.scrollWidth)`); w != "390" {
		t.Errorf("the entity page is %s pixels wide on a phone 390 pixels wide", w)
	}
	b.shot(name + "-entity-phone")
	b.run(chromedp.EmulateViewport(1280, 1000))
}

// fits reports whether "scrollWidth clientWidth pageWidth" says a box
// shows all its content and the page is no wider than width.
func fits(widths string, width int) bool {
	var scroll, client, page int
	if _, err := fmt.Sscan(widths, &scroll, &client, &page); err != nil {
		return false
	}
	return scroll <= client && page <= width
}

// mustChromium finds Debian's chromium; without it the browser tests are
// skipped, except in CI, where .ci/run installs it.
func mustChromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("the browser tests are long: they run without -short")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed (.ci/run installs it)")
	}
	t.Skip("chromium is not installed: the browser tests need it (apt-get install chromium)")
	return ""
}

type browser struct {
	t    *testing.T
	base string
	ctx  context.Context
	mu   sync.Mutex
	errs []string
}

// newBrowser starts a headless Chromium with a fresh profile and nothing
// that reaches the network on its own.
func newBrowser(t *testing.T, chrome, base string) *browser {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	b := &browser{t: t, base: base, ctx: ctx}
	if err := chromedp.Do(ctx); err != nil {
		cancelC()
		cancelA()
		t.Fatalf("starting chromium: %v", err)
	}
	// Every uncaught exception of the page fails the test.
	err := chromedp.Listen(ctx, func(ev any) {
		if ev, ok := ev.(*runtime.EventExceptionThrown); ok {
			b.mu.Lock()
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			b.errs = append(b.errs, fmt.Sprintf("%s (%s:%d)", msg, d.URL, d.LineNumber))
			b.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancelC()
		cancelA()
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, e := range b.errs {
			t.Errorf("uncaught exception in the page: %s", e)
		}
	})
	return b
}

func (b *browser) run(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.shot("failed")
		b.t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression whose value is a string.
func (b *browser) eval(expr string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		b.t.Fatalf("browser: %s: %v", expr, err)
	}
	return v
}

func (b *browser) open(path string) {
	b.t.Helper()
	b.run(chromedp.Navigate(b.base + path))
}

// text is the rendered text of the first element matching sel, with runs
// of white space as one space ("" if there is none).
func (b *browser) text(sel string) string {
	b.t.Helper()
	return b.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e ? e.innerText.replace(/\s+/g, ' ') : ''; })()`, sel))
}

// waitText waits until the element sel shows want.
func (b *browser) waitText(sel, want string) {
	b.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := b.text(sel)
		if strings.Contains(got, want) {
			return
		}
		if time.Now().After(deadline) {
			b.shot("failed")
			b.t.Fatalf("%s does not show %q; it shows:\n%s", sel, want, got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// notText checks that sel, once drawn, does not show unwanted.
func (b *browser) notText(sel, unwanted string) {
	b.t.Helper()
	if got := b.text(sel); strings.Contains(got, unwanted) {
		b.t.Errorf("%s shows %q:\n%s", sel, unwanted, got)
	}
}

func (b *browser) absent(sel string) {
	b.t.Helper()
	if n := b.count(sel); n != 0 {
		b.t.Errorf("%s is on the page (%d)", sel, n)
	}
}

func (b *browser) count(sel string) int {
	b.t.Helper()
	n, _ := strconv.Atoi(b.eval(fmt.Sprintf(`String(document.querySelectorAll(%q).length)`, sel)))
	return n
}

// clickText clicks the first element matching sel whose text is text.
func (b *browser) clickText(sel, text string) {
	b.t.Helper()
	if got := b.eval(fmt.Sprintf(`(() => { const e = [...document.querySelectorAll(%q)].find((e) => e.innerText.trim() === %q); if (e) e.click(); return String(!!e); })()`, sel, text)); got != "true" {
		b.shot("failed")
		b.t.Fatalf("no %s shows %q", sel, text)
	}
}

func (b *browser) location() string {
	b.t.Helper()
	return b.eval(`location.href`)
}

// shot saves a screenshot of the whole page as a test artifact.
func (b *browser) shot(name string) {
	b.t.Helper()
	dir := os.Getenv("GRAPHMEM_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "graphmem-artifacts")
	}
	dir = filepath.Join(dir, "ui")
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	path := filepath.Join(dir, strings.ReplaceAll(b.t.Name(), "/", "_")+"-"+name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", path)
}

// TestWebUI_Path: the ask page draws the path a question crosses, each
// entity a link, and says where a broken path broke.
func TestWebUI_Path(t *testing.T) {
	chrome := mustChromium(t)
	m := MustRunMain(t, nil)
	c := newClient(t, m).as("", uiScope)
	c.postFacts(
		map[string]any{"subject": "cart-api", "subject_type": "service", "predicate": "owned_by", "object": "search team", "object_type": "team"},
		map[string]any{"subject": "search team", "subject_type": "team", "predicate": "led_by", "object": "Bob Aziz", "object_type": "person"},
		map[string]any{"subject": "payments-api", "subject_type": "service", "predicate": "owned_by", "object": "billing team", "object_type": "team"},
	)
	b := newBrowser(t, chrome, "http://"+m.Addr())
	b.open("/ui/")
	b.run(chromedp.SetValue(chromedp.CSS("#scope"), uiScope), chromedp.Evaluate[chromedp.Void](`document.querySelector('#scope').dispatchEvent(new Event('change'))`))
	b.open("/ui/ask?q=" + url.QueryEscape("who leads the team that owns cart-api?"))
	b.waitText("#paths", "cart-api —owned_by→ current search team —led_by→ current Bob Aziz")
	b.waitText("#context-block", `[path] "cart-api" owned_by "search team" → "search team" led_by "Bob Aziz"`)
	b.shot("ask-path")
	b.open("/ui/ask?q=" + url.QueryEscape("who leads the team that owns payments-api?"))
	b.waitText("#paths", "memory holds no led_by for billing team")
	b.shot("ask-path-broken")
}
