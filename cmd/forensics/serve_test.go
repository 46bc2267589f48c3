package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forensics/serve"
	"forensics/store/backends"
)

// The explorer only reads, and says so; with a token, nothing answers
// without it; every answer carries the strict policy; a bad request is a
// 400 that says why, not a failure of the server.
func TestServeGuards(t *testing.T) {
	db := filepath.Join(t.TempDir(), "seed.db")
	runOK(t, "analyze", "-q", "--db", db, "../../testdata/couchbase/seed")
	r, err := backends.OpenReader(db)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	open := httptest.NewServer(serve.New(r, serveOptions(time.Minute)))
	defer open.Close()
	opts := serveOptions(time.Minute)
	opts.Token = "0123456789abcdef"
	locked := httptest.NewServer(serve.New(r, opts))
	defer locked.Close()

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
