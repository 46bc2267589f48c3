// Package serve is the explorer, `forensics serve`: a read-only web
// application over a timeline, the page and its script embedded, and the
// JSON endpoints behind it (docs/serve.md). Every listing pages through the
// store's cursors, so the server holds a page at a time, never an incident.
package serve

import (
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"forensics"
	"forensics/report"
	"forensics/store"
)

//go:embed web
var web embed.FS

// Options configure a server.
type Options struct {
	// Token, when set, is required on every request: as ?token= (which
	// the server answers with a cookie, so that the page's own requests
	// carry it), the cookie, or an Authorization: Bearer header.
	Token string
	// Timeout bounds every query; a query also ends when its client goes away.
	Timeout time.Duration
	// Kinds documents the event kinds (category, label) for the page.
	Kinds []forensics.KindDoc
}

// Server answers the explorer's page and its JSON endpoints over one timeline.
type Server struct {
	db   store.Reader
	opts Options
	mux  *http.ServeMux

	mu    sync.Mutex
	cache map[string]*answer // the counts of the views asked lately
}

// answer is a cached answer, or one being computed (done not yet closed).
type answer struct {
	done  chan struct{}
	at    time.Time
	value any
	err   error
}

const (
	cacheSize = 32
	cacheTTL  = time.Minute
)

// cached answers the same request once for everyone who asks it within
// a minute: counts read every event of a view, and a page asks for them as
// it loads, again on Back, and in every tab.
func (s *Server) cached(fn func(ctx context.Context, r *http.Request) (any, error)) func(ctx context.Context, r *http.Request) (any, error) {
	return func(ctx context.Context, r *http.Request) (any, error) {
		q := r.URL.Query()
		q.Del("token")
		return s.once(ctx, r.URL.Path+"?"+q.Encode(), func() (any, error) { return fn(ctx, r) })
	}
}

// once computes the value of key, or waits for the computation under way,
// or gives the one kept; an error is not kept.
func (s *Server) once(ctx context.Context, key string, fn func() (any, error)) (any, error) {
	s.mu.Lock()
	a, ok := s.cache[key]
	if ok && time.Since(a.at) > cacheTTL {
		select {
		case <-a.done:
			delete(s.cache, key)
			ok = false
		default:
		}
	}
	if ok {
		s.mu.Unlock()
		select {
		case <-a.done:
			return a.value, a.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if len(s.cache) >= cacheSize {
		var oldest string
		var at time.Time
		for k, old := range s.cache { // the oldest finished one goes
			select {
			case <-old.done:
				if oldest == "" || old.at.Before(at) {
					oldest, at = k, old.at
				}
			default:
			}
		}
		delete(s.cache, oldest)
	}
	a = &answer{done: make(chan struct{}), at: time.Now()}
	s.cache[key] = a
	s.mu.Unlock()
	a.value, a.err = fn()
	if a.err != nil {
		s.mu.Lock()
		delete(s.cache, key)
		s.mu.Unlock()
	}
	close(a.done)
	return a.value, a.err
}

// New returns the explorer over db, which it only reads.
func New(db store.Reader, opts Options) *Server {
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	s := &Server{db: db, opts: opts, mux: http.NewServeMux(), cache: map[string]*answer{}}
	assets, _ := fs.Sub(web, "web")
	files := http.FileServerFS(assets)
	s.mux.Handle("/", files)
	s.mux.HandleFunc("/swimlane.js", swimlaneScript)
	s.mux.HandleFunc("/swimlane.css", swimlaneStyle)
	s.mux.HandleFunc("/api/incidents", s.api(s.incidents))
	s.mux.HandleFunc("/api/summary", s.api(s.cached(s.summary)))
	s.mux.HandleFunc("/api/histogram", s.api(s.cached(s.histogram)))
	s.mux.HandleFunc("/api/lines", s.api(s.lines))
	s.mux.HandleFunc("/api/context", s.api(s.context))
	s.mux.HandleFunc("/api/findings", s.api(s.findings))
	s.mux.HandleFunc("/api/finding", s.api(s.finding))
	s.mux.HandleFunc("/api/kinds", s.api(s.kinds))
	return s
}

// csp allows the page its own script, style and requests, nothing else:
// no inline script, no other origin, no frames, no forms.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "the explorer only reads: GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	if s.opts.Token != "" && !s.authorized(w, r) {
		http.Error(w, "a token is required: open the address forensics serve printed", http.StatusUnauthorized)
		return
	}
	if s.opts.Token == "" && !loopbackHost(r.Host) {
		// A page of another site that resolves its own name to 127.0.0.1
		// (DNS rebinding) must not read the timeline.
		http.Error(w, "the explorer answers only to its loopback address", http.StatusForbidden)
		return
	}
	s.mux.ServeHTTP(w, r)
}

const tokenCookie = "forensics_token"

func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	same := func(v string) bool { return subtle.ConstantTimeCompare([]byte(v), []byte(s.opts.Token)) == 1 }
	if t := r.URL.Query().Get("token"); t != "" && same(t) {
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: s.opts.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		return true
	}
	if c, err := r.Cookie(tokenCookie); err == nil && same(c.Value) {
		return true
	}
	if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && same(b) {
		return true
	}
	return false
}

func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// swimlaneScript is the HTML report's script, which draws a finding's
// swimlane here as it does in the report (window.forensicsSwimlane).
func swimlaneScript(w http.ResponseWriter, r *http.Request) {
	js, err := report.HTMLAsset("report.js")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Write(js)
}

// swimlaneStyle is the HTML report's style sheet, scoped to the finding's
// swimlane so that the report's page layout leaves the explorer's alone.
func swimlaneStyle(w http.ResponseWriter, r *http.Request) {
	css, err := report.HTMLAsset("report.css")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	fmt.Fprintf(w, "@scope (#fswim) {\n%s\n}\n", strings.ReplaceAll(string(css), ":root", ":scope"))
}

// badRequest is an error in what the client asked for: a 400, said as is.
type badRequest struct{ error }

func bad(format string, args ...any) error { return badRequest{fmt.Errorf(format, args...)} }

// api wraps an endpoint: its query ends when the client goes away or the
// timeout passes, and its answer or error is JSON.
func (s *Server) api(fn func(ctx context.Context, r *http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.opts.Timeout)
		defer cancel()
		v, err := fn(ctx, r)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(true)
		if err != nil {
			code := http.StatusInternalServerError
			var br badRequest
			switch {
			case errors.As(err, &br), errors.Is(err, store.ErrBadMark):
				code = http.StatusBadRequest
			case errors.Is(err, errNotFound):
				code = http.StatusNotFound
			case errors.Is(err, context.DeadlineExceeded):
				code = http.StatusGatewayTimeout
				err = fmt.Errorf("the query took longer than %v: narrow it (a time range, a node, a search)", s.opts.Timeout)
			}
			w.WriteHeader(code)
			enc.Encode(map[string]string{"error": err.Error()})
			return
		}
		enc.Encode(v)
	}
}

var errNotFound = errors.New("not found")
