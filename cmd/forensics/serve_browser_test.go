package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"forensics/store/postgres/pgtest"
)

// The explorer in a real browser, Debian's chromium driven over the
// DevTools protocol, on the seed incident analysed into SQLite and into
// PostgreSQL: the page loads, a search shows only matching lines, a node's
// filter only that node's lines, a range dragged on the histogram only
// the lines in it, and a finding's evidence link leads to its line. The
// page must log no error (a script blocked by the CSP would), ask no other
// origin, and fit the window at 1400 and 800 px; the screenshots go to
// $FORENSICS_ARTIFACTS (else a temporary folder).
func TestServeInChromium(t *testing.T) {
	if testing.Short() && os.Getenv("FORENSICS_REQUIRE_CHROMIUM") == "" {
		t.Skip("-short: the browser test takes a few seconds")
	}
	bin := chromium(t)
	seed := "../../testdata/couchbase/seed"
	t.Run("sqlite", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "seed.db")
		runOK(t, "analyze", "-q", "--db", db, seed)
		exploreSeed(t, bin, db)
	})
	t.Run("postgresql", func(t *testing.T) {
		dsn := pgtest.Database(t)
		runOK(t, "analyze", "-q", "--store", dsn, seed)
		exploreSeed(t, bin, dsn)
	})
}

func exploreSeed(t *testing.T, bin, dsn string) {
	srv := explorer(t, dsn, serveOptions(time.Minute))

	artifacts := os.Getenv("FORENSICS_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	}
	for _, width := range browserWidths {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			b := newBrowser(t, bin, srv.URL, width)
			b.do(chromedp.Navigate(srv.URL + "/"))
			b.wait(`document.body.dataset.ready === "1"`)
			if n := b.num(`document.querySelectorAll("#rows .row").length`); n == 0 {
				t.Fatal("the timeline shows no line")
			}
			if got := b.str(`document.getElementById("incident").value`); got != "seed" {
				t.Errorf("incident picked %q, want seed", got)
			}
			b.fits()

			// A search: every line shown holds the term, and the URL says so.
			b.do(chromedp.SendKeys(chromedp.CSS("#q"), "rollback\n"))
			b.wait(`location.search.includes("q=rollback") && document.querySelectorAll("#rows .row").length > 0 &&
				[...document.querySelectorAll("#rows .row .x")].every(x => x.textContent.includes("rollback"))`)
			if n := b.num(`document.querySelectorAll("#rows .row mark").length`); n == 0 {
				t.Error("the search's matches are not marked")
			}

			// A node: only its lines, with the search still on.
			node := "ns_1@172.23.100.16"
			b.do(chromedp.Click(chromedp.CSS(`input[data-filter="node"][value="` + node + `"]`)))
			b.wait(`location.search.includes("node=") && document.querySelectorAll("#rows .row").length > 0 &&
				[...document.querySelectorAll("#rows .row")].every(r => r.querySelector(".n").textContent === ` + jsString(node) + ` && r.querySelector(".x").textContent.includes("rollback"))`)

			// The whole incident again, then a range dragged on the histogram.
			b.do(chromedp.Navigate(srv.URL + "/?incident=seed"))
			b.wait(`document.body.dataset.ready === "1"`)
			box := eval[[]float64](b, `(() => { const r = document.querySelector("#hist svg").getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`)
			y := box[1] + box[3]/3
			x0, x1 := box[0]+box[2]*0.55, box[0]+box[2]*0.95
			b.do(chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x0, y, chromedp.ButtonLeft),
				chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, (x0+x1)/2, y, chromedp.ButtonLeft),
				chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x1, y, chromedp.ButtonLeft),
				chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x1, y, chromedp.ButtonLeft))
			b.wait(`(() => { const p = new URLSearchParams(location.search); const a = Date.parse(p.get("since")), z = Date.parse(p.get("until"));
				const rows = [...document.querySelectorAll("#rows .row")];
				return a < z && rows.length > 0 && rows.every(r => { const ms = Number(r.dataset.ns) / 1e6; return ms >= a - 1 && ms < z + 1; }); })()`)

			// A finding's page, and its first evidence link leads to its line.
			b.do(chromedp.Click(chromedp.CSS(`#findings a`)))
			b.wait(`!document.getElementById("finding").hidden && document.querySelectorAll("#fevidence a").length > 0`)
			if title := b.str(`document.getElementById("ftitle").textContent`); title == "" {
				t.Error("the finding's page has no title")
			}
			// The report's swimlane, drawn by the report's own script.
			b.wait(`document.querySelectorAll("#fswim svg.lanes g.lane").length > 0`)
			if n := b.num(`document.querySelectorAll("#fswim svg.lanes [data-evidence]").length`); n == 0 {
				t.Error("the finding's swimlane marks no evidence")
			}
			if n := b.num(`document.querySelectorAll("#ffixes pre button").length`); n == 0 {
				t.Error("the finding's fixes have no copy button")
			}
			b.screenshot(filepath.Join(artifacts, fmt.Sprintf("serve-finding-%d.png", width)))
			target := b.str(`document.querySelector("#fevidence a").dataset.evidence`)
			b.do(chromedp.Click(chromedp.CSS(`#fevidence a`)))
			b.wait(`document.getElementById("finding").hidden && (() => { const r = document.querySelector("#rows .row.hl"); return r && (r.dataset.path + ":" + r.dataset.line) === ` + jsString(target) + `; })()`)
			if !strings.Contains(b.str(`location.search`), "hl=") {
				t.Error("the evidence's line is not in the URL")
			}
			b.fits()
			b.screenshot(filepath.Join(artifacts, fmt.Sprintf("serve-%d.png", width)))
			b.check(srv.URL)
		})
	}
}

func jsString(s string) string { return fmt.Sprintf("%q", s) }

// browser is one chromium tab on the explorer, with what its page logged.
type browser struct {
	t       *testing.T
	ctx     context.Context
	mu      sync.Mutex
	console []string
}

func newBrowser(t *testing.T, bin, origin string, width int) *browser {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("no-first-run", true), chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(width, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelC(); cancelA() })
	b := &browser{t: t, ctx: ctx}
	// The first action starts the browser, for as long as ctx lasts: no timeout on it.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), 900)); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	go func() {
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning || m.Type == chromedp.ConsoleException {
				b.mu.Lock()
				b.console = append(b.console, fmt.Sprintf("%s: %s %s", m.Type, m.Text, m.URL))
				b.mu.Unlock()
			}
		}
	}()
	return b
}

func (b *browser) logged() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.console...)
}

func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("chromium: %v; the page logged %q", err, b.logged())
	}
}

// wait waits until the expression is true in the page.
func (b *browser) wait(expr string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		b.t.Fatalf("waiting for %s: %v (page: %s; logged %q)", expr, err, b.str(`document.getElementById("status").textContent + " | " + location.search`), b.logged())
	}
}

func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("chromium: %s: %v; the page logged %q", expr, err, b.logged())
	}
	return v
}

func (b *browser) num(expr string) float64 { b.t.Helper(); return eval[float64](b, expr) }
func (b *browser) str(expr string) string  { b.t.Helper(); return eval[string](b, expr) }

// fits checks that nothing is wider than the window and that no two
// labels of the histogram overlap or are cut at its edges.
func (b *browser) fits() {
	b.t.Helper()
	if over := b.num(`document.documentElement.scrollWidth - window.innerWidth`); over > 0 {
		b.t.Errorf("the page is %v px wider than the window", over)
	}
	overlaps := b.num(`(() => { const r = [...document.querySelectorAll("#hist text")].map(e => e.getBoundingClientRect()); let n = 0;
		for (let i = 0; i < r.length; i++) for (let j = i + 1; j < r.length; j++) if (r[i].left < r[j].right && r[j].left < r[i].right && r[i].top < r[j].bottom && r[j].top < r[i].bottom) n++;
		return n; })()`)
	if overlaps > 0 {
		b.t.Errorf("%v pairs of the histogram's labels overlap", overlaps)
	}
	cut := b.num(`(() => { const s = document.querySelector("#hist svg").getBoundingClientRect(); return [...document.querySelectorAll("#hist text")].filter(e => { const r = e.getBoundingClientRect(); return r.left < s.left - 0.5 || r.right > s.right + 0.5; }).length; })()`)
	if cut > 0 {
		b.t.Errorf("%v of the histogram's labels are cut at its edges", cut)
	}
}

func (b *browser) screenshot(path string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", path)
}

// check: the page logged no error (a script or a request the CSP
// blocked would) and loaded nothing from another origin.
func (b *browser) check(origin string) {
	b.t.Helper()
	if c := b.logged(); len(c) > 0 {
		b.t.Errorf("the page logged errors (a blocked script, a failed request): %q", c)
	}
	o, _ := url.Parse(origin)
	for _, r := range eval[[]string](b, `performance.getEntriesByType("resource").map(e => e.name)`) {
		u, err := url.Parse(r)
		if err != nil || u.Host != o.Host {
			b.t.Errorf("the page asked another origin: %s", r)
		}
	}
}
