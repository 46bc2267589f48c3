package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forensics/serve"
	"forensics/store/backends"
	"forensics/store/postgres/pgtest"
)

// The explorer only reads, and says so; with a token, nothing answers
// without it; every answer carries the strict policy; a bad request is a
// 400 that says why, not a failure of the server.
func TestServeGuards(t *testing.T) {
	db := filepath.Join(t.TempDir(), "seed.db")
	runOK(t, "analyze", "-q", "--db", db, "../../testdata/couchbase/seed")
	open := explorer(t, db, serveOptions(time.Minute))
	opts := serveOptions(time.Minute)
	opts.Token = "0123456789abcdef"
	locked := explorer(t, db, opts)

	do := func(method, url string, header http.Header) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, url, nil)
		for k, v := range header {
			req.Header[k] = v
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		if res, _ := do(m, open.URL+"/api/lines", nil); res.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d, want 405", m, res.StatusCode)
		}
	}
	res, body := do("GET", open.URL+"/", nil)
	csp := res.Header.Get("Content-Security-Policy")
	if res.StatusCode != 200 || !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Errorf("the page: %d, CSP %q", res.StatusCode, csp)
	}
	if strings.Contains(body, "<script>") || strings.Contains(body, "style=") || strings.Contains(body, "http://") || strings.Contains(body, "https://") {
		t.Errorf("the page has inline script or style, or names another origin")
	}
	if res, _ := do("HEAD", open.URL+"/app.js", nil); res.StatusCode != 200 {
		t.Errorf("HEAD app.js: %d", res.StatusCode)
	}
	req, _ := http.NewRequest("GET", open.URL+"/api/incidents", nil)
	req.Host = "evil.example:80"
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("another host name (DNS rebinding): %v %v, want 403", res.StatusCode, err)
	}

	if res, _ := do("GET", locked.URL+"/api/incidents", nil); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", res.StatusCode)
	}
	if res, _ := do("GET", locked.URL+"/?token=wrong", nil); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d, want 401", res.StatusCode)
	}
	res, _ = do("GET", locked.URL+"/?token="+opts.Token, nil)
	var cookie string
	for _, c := range res.Cookies() {
		if c.HttpOnly && c.SameSite == http.SameSiteStrictMode {
			cookie = c.Name + "=" + c.Value
		}
	}
	if res.StatusCode != 200 || cookie == "" {
		t.Fatalf("the token's link: %d, cookie %q", res.StatusCode, cookie)
	}
	if res, _ := do("GET", locked.URL+"/api/incidents", http.Header{"Cookie": {cookie}}); res.StatusCode != 200 {
		t.Errorf("the token's cookie: %d", res.StatusCode)
	}
	if res, _ := do("GET", locked.URL+"/api/incidents", http.Header{"Authorization": {"Bearer " + opts.Token}}); res.StatusCode != 200 {
		t.Errorf("the token as a bearer: %d", res.StatusCode)
	}

	for _, q := range []string{"lines?mode=regexp&q=(", "lines?after=!!", "lines?before=!!", "lines?limit=100000", "lines?since=yesterday",
		"finding?id=../../etc", "lines?incident=nope", "context?path=x", "histogram?bars=0", "lines?after=e1.x&kind=memcached.start"} {
		res, body := do("GET", open.URL+"/api/"+q, nil)
		var e struct{ Error string }
		json.Unmarshal([]byte(body), &e)
		if res.StatusCode/100 != 4 || e.Error == "" {
			t.Errorf("%s: %d %s, want a 4xx that says why", q, res.StatusCode, body)
		}
	}
}

// Paging both ways gives the same lines: forward pages end to end are the
// whole view, a page back from any line is the lines just before it, and
// from= goes on after a line as after= does; a kind's listing pages the same
// way and holds only that kind; a query past its time is a 504.
func TestServePaging(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testServePaging(t, filepath.Join(t.TempDir(), "seed.db")) })
	t.Run("postgresql", func(t *testing.T) { testServePaging(t, pgtest.Database(t)) })
}

func testServePaging(t *testing.T, db string) {
	runOK(t, "analyze", "-q", "--db", db, "../../testdata/couchbase/seed")
	srv := explorer(t, db, serveOptions(time.Minute))
	type line struct {
		Path  string
		Line  int64
		Pos   string
		Kinds []string
	}
	type page struct {
		Lines []line
		Next  string
		More  bool
	}
	get := func(q string) page {
		t.Helper()
		res, err := http.Get(srv.URL + "/api/lines?" + q)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var p page
		if err := json.NewDecoder(res.Body).Decode(&p); err != nil || res.StatusCode != 200 {
			t.Fatalf("%s: %d %v", q, res.StatusCode, err)
		}
		return p
	}
	for _, view := range []string{"", "&kind=memcached.stream_rollback&kind=indexer.restart_ts", "&q=rollback&mode=fold", "&node=ns_1@172.23.100.16"} {
		var all []line
		for next, first := "", true; first || next != ""; first = false {
			q := "limit=37" + view
			if next != "" {
				q += "&after=" + next
			}
			p := get(q)
			all = append(all, p.Lines...)
			next = p.Next
		}
		if len(all) < 40 {
			t.Fatalf("view %q: %d lines, too few to page", view, len(all))
		}
		seen := map[string]bool{}
		for _, l := range all {
			key := fmt.Sprintf("%s:%d", l.Path, l.Line)
			if seen[key] && !strings.Contains(view, "kind=") {
				t.Errorf("view %q: %s twice", view, key)
			}
			seen[key] = true
			if strings.Contains(view, "kind=") && (len(l.Kinds) != 1 || !strings.Contains(view, l.Kinds[0])) {
				t.Errorf("view %q: a line of kinds %v", view, l.Kinds)
			}
		}
		for _, i := range []int{1, 20, len(all) / 2, len(all) - 1} {
			back := get("limit=15" + view + "&before=" + all[i].Pos)
			want := all[max(0, i-15):i]
			if len(back.Lines) != len(want) {
				t.Errorf("view %q: %d lines back from line %d, want %d", view, len(back.Lines), i, len(want))
				continue
			}
			for j := range want {
				if back.Lines[j].Pos != want[j].Pos {
					t.Errorf("view %q: back from %d, line %d is %s:%d, want %s:%d", view, i, j, back.Lines[j].Path, back.Lines[j].Line, want[j].Path, want[j].Line)
					break
				}
			}
			if back.More != (i > 15) {
				t.Errorf("view %q: back from %d says more=%v", view, i, back.More)
			}
			fwd := get("limit=5" + view + "&from=" + all[i].Pos)
			for j, l := range fwd.Lines {
				if i+1+j >= len(all) || l.Pos != all[i+1+j].Pos {
					t.Errorf("view %q: from line %d, line %d is %s:%d", view, i, j, l.Path, l.Line)
					break
				}
			}
		}
	}
	slow := explorer(t, db, serveOptions(time.Nanosecond))
	res, err := http.Get(slow.URL + "/api/summary")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusGatewayTimeout {
		t.Errorf("a query past its time: %d, want 504", res.StatusCode)
	}
}

// explorer serves the timeline at dsn until the test ends.
func explorer(t *testing.T, dsn string, opts serve.Options) *httptest.Server {
	t.Helper()
	r, err := backends.OpenReader(dsn)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(serve.New(r, opts))
	t.Cleanup(func() { srv.Close(); r.Close() })
	return srv
}

// A finding's swimlane in the explorer names files as the reports do:
// relative to the folder that holds the inputs (seed/cbcollect_info_…/…),
// not as the timeline stored them (../../testdata/couchbase/seed/…).
func TestServeSwimlanePaths(t *testing.T) {
	db := filepath.Join(t.TempDir(), "seed.db")
	runOK(t, "analyze", "-q", "--db", db, "../../testdata/couchbase/seed")
	srv := explorer(t, db, serveOptions(time.Minute))
	get := func(q string, v any) {
		t.Helper()
		res, err := http.Get(srv.URL + "/api/" + q)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if err := json.NewDecoder(res.Body).Decode(v); err != nil || res.StatusCode != 200 {
			t.Fatalf("%s: %d %v", q, res.StatusCode, err)
		}
	}
	var list []struct{ ID string }
	get("findings", &list)
	if len(list) == 0 {
		t.Fatal("no findings in the seed")
	}
	var f struct {
		Swimlane struct{ Sources []string }
	}
	get("finding?id="+list[0].ID, &f)
	if len(f.Swimlane.Sources) == 0 {
		t.Fatal("a swimlane without sources")
	}
	for _, p := range f.Swimlane.Sources {
		if !strings.HasPrefix(p, "seed/cbcollect_info_ns_1@") {
			t.Errorf("swimlane source %q, want it relative to the inputs' folder (seed/cbcollect_info_…)", p)
		}
	}
	// The page names files from the same folder (its summary's root).
	var sum struct{ Root string }
	get("summary", &sum)
	if sum.Root != "../../testdata/couchbase" {
		t.Errorf("the page's root %q, want the folder that holds seed/, as given", sum.Root)
	}
}
