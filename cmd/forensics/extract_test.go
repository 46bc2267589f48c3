package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"forensics"
	"forensics/expect"
	"forensics/report"
)

// For every bundled incident, the extract of each of its findings is
// smaller than the evidence it came from and reproduces the finding on its
// own: extract itself checks that, and forensics test runs the extract as a
// case. The evidence lines keep their text, in files of the same names.
func TestExtractEveryIncident(t *testing.T) {
	dirs, err := expect.Find("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	extracted, redactChecked := 0, 0
	for _, dir := range dirs {
		if strings.Contains(dir, "hostile") {
			continue
		}
		abs, inputs := caseInputs(t, dir)
		db := filepath.Join(t.TempDir(), "t.db")
		var paths []string
		for _, in := range inputs {
			paths = append(paths, filepath.Join(abs, in))
		}
		var rep report.Report
		if err := json.Unmarshal(analyzeFormat(t, db, "json", paths), &rep); err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Findings {
			name, _ := filepath.Rel("../../testdata", dir)
			t.Run(name+"/"+f.ID, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "extract")
				var stdout, stderr bytes.Buffer
				if code := run([]string{"extract", "--db", db, f.ID, "--out", out}, &stdout, &stderr); code != exitOK {
					t.Fatalf("extract: exit %d\n%s%s", code, stdout.String(), stderr.String())
				}
				if !strings.Contains(stdout.String(), "reproduces "+f.ID) {
					t.Errorf("extract did not say it reproduces the finding:\n%s", stdout.String())
				}
				// Each file: "path  N lines of M". A file kept whole (a
				// document: topology JSON, a trace, a saved page) must be the
				// source as it was; the others must be smaller, and hold the
				// evidence lines.
				files := regexp.MustCompile(`(?m)^  (\S+)  (\d+) lines? of (\d+)$`).FindAllStringSubmatch(stdout.String(), -1)
				if len(files) == 0 {
					t.Fatalf("extract listed no files:\n%s", stdout.String())
				}
				whole := map[string]bool{}
				smaller := false
				for _, m := range files {
					if m[2] == m[3] {
						whole[filepath.Base(m[1])] = true
					} else {
						smaller = true
					}
				}
				for _, e := range f.Evidence {
					base := filepath.Base(strings.ReplaceAll(e.Path, "!", "/"))
					if whole[base] {
						if !strings.Contains(e.Path, "!") && !extractEquals(t, out, base, e.Path) {
							t.Errorf("%s was copied whole, but differs from its source", base)
						}
						continue
					}
					text := e.Text
					if i := strings.IndexByte(text, '\n'); i >= 0 {
						text = text[:i]
					}
					if !extractHas(t, out, base, text) {
						t.Errorf("evidence line %s:%d is not in a file of the same name in the extract", e.Path, e.Line)
					}
				}
				if !smaller && len(whole) < len(files) {
					t.Errorf("the extract is not smaller than its sources:\n%s", stdout.String())
				}
				stdout.Reset()
				if code := run([]string{"test", out}, &stdout, &stderr); code != exitOK {
					t.Errorf("forensics test on the extract: exit %d\n%s", code, stdout.String())
				}

				// --redact: the same finding, and none of the names the
				// evidence carries left in any file or path.
				red := filepath.Join(t.TempDir(), "redacted")
				stdout.Reset()
				if code := run([]string{"extract", "--redact", "--db", db, f.ID, "--out", red}, &stdout, &stderr); code != exitOK {
					t.Fatalf("extract --redact: exit %d\n%s%s", code, stdout.String(), stderr.String())
				}
				// Every value of the original evidence that a redacted extract
				// must not carry (secretValues), and that the plain extract
				// holds, is gone from the redacted one, in contents and names.
				plain := extractText(t, out)
				checked := 0
				for v, what := range secretValues(t, abs, paths, rep, f) {
					if !hasToken(plain, v) {
						continue
					}
					checked++
					if hasToken(extractText(t, red), v) {
						t.Errorf("%s %q is still in the extract after --redact", what, v)
					}
				}
				if checked > 0 {
					redactChecked++
				}
				stdout.Reset()
				if code := run([]string{"test", red}, &stdout, &stderr); code != exitOK {
					t.Errorf("forensics test on the redacted extract: exit %d\n%s", code, stdout.String())
				}
				extracted++
			})
		}
	}
	if extracted < 5 || redactChecked < 5 {
		t.Errorf("only %d findings extracted from the bundled incidents, %d with names to redact", extracted, redactChecked)
	}
}

// extractEquals reports whether the file named base under dir is the file
// at src, byte for byte.
func extractEquals(t *testing.T, dir, base, src string) bool {
	want, err := os.ReadFile(src)
	if err != nil {
		return false
	}
	same := false
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(p) == base {
			got, _ := os.ReadFile(p)
			same = same || bytes.Equal(bytes.TrimRight(got, "\n"), bytes.TrimRight(want, "\n"))
		}
		return nil
	})
	return same
}

// extractHas reports whether a file named base under dir holds text.
func extractHas(t *testing.T, dir, base, text string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(p) != base {
			return nil
		}
		data, _ := os.ReadFile(p)
		if bytes.Contains(data, []byte(text)) {
			found = true
		}
		return nil
	})
	return found
}

// extractText is an extract's file names and contents, as one text.
func extractText(t *testing.T, dir string) string {
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b.WriteString(rel + "\n")
		if !d.IsDir() {
			data, _ := os.ReadFile(p)
			b.Write(data)
			b.WriteString("\n")
		}
		return nil
	})
	return b.String()
}

// hasToken reports whether v stands in s as a token: not inside a longer
// word or number.
func hasToken(s, v string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], v)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(v)
		if (j == 0 || !tokenChar(s[j-1])) && (end == len(s) || !tokenChar(s[end])) {
			return true
		}
		i = j + 1
	}
}

func tokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// The values of original evidence that identify a customer's systems and
// people, found in the evidence itself by their forms (secretValues).
var (
	ipv4InText  = regexp.MustCompile(`(?:\d{1,3}\.){3}\d{1,3}`)
	ipv6InText  = regexp.MustCompile(`(?i)(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}`)
	uuidInText  = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	hex32InText = regexp.MustCompile(`(?i)\b[0-9a-f]{32}\b`)
	macInText   = regexp.MustCompile(`(?i)\b(?:[0-9a-f]{2}:){5}[0-9a-f]{2}\b`)
	namedInText = map[string]*regexp.Regexp{
		"host":     regexp.MustCompile(`(?i)running on machine:\s*([A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])|"hostname":\s*"([^"\s]+)"|ns_1@([A-Za-z0-9][A-Za-z0-9.-]*)|--server[= ]([A-Za-z0-9][A-Za-z0-9.-]*[A-Za-z0-9]):\d+`),
		"cell":     regexp.MustCompile(`"cell":\s*"([^"\s]+)"|\b([a-z][a-z0-9_]*)-\d{10}\b|"([A-Za-z0-9_]+)":\s*\{\s*"partitions"`),
		"user":     regexp.MustCompile(`\buser=([A-Za-z_][A-Za-z0-9_.$-]*)`),
		"password": regexp.MustCompile(`(?i)\b(?:password|passwd|pwd|secret|token)["']?\s*[=:]\s*["']?([^\s"',;&]{3,})`),
	}
	glogFileName = regexp.MustCompile(`\b(?:vtctld|vttablet|vtorc|vtgate)\.([A-Za-z0-9][A-Za-z0-9.-]*?)\.([A-Za-z_][A-Za-z0-9_-]*)\.log\.(?:INFO|WARNING|ERROR|FATAL)`)
	crdbFileName = regexp.MustCompile(`cockroach(?:-[a-z]+)*\.([A-Za-z0-9][A-Za-z0-9.-]*?)\.([A-Za-z_][A-Za-z0-9_-]*)\.\d{4}-\d{2}-\d{2}T\d{2}_\d{2}_\d{2}Z\.\d+\.log`)
)

// secretValues reads the original evidence of a case (its files and the
// members of its zips, names and contents) for the values a redacted
// extract must not carry, with what each is: IPv4 and IPv6 addresses,
// UUIDs (clusters, events, transactions, GTID servers), 32-digit hex ids
// (buckets), MAC addresses, host and pod names, cells, users and
// passwords; and, from the analysis, the buckets, keyspaces and tables of
// its events and the finding's names.
func secretValues(t *testing.T, root string, inputs []string, rep report.Report, f forensics.Finding) map[string]string {
	out := map[string]string{}
	scan := func(text string) {
		for _, ip := range ipv4InText.FindAllStringIndex(text, -1) {
			a, b := ip[0], ip[1]
			if (a > 0 && (text[a-1] == '.' || tokenChar(text[a-1]))) || (b < len(text) && (tokenChar(text[b]) || text[b] == '.' && b+1 < len(text) && tokenChar(text[b+1]))) {
				continue // a version or an OID
			}
			out[text[a:b]] = "IPv4 address"
		}
		for _, l := range ipv6InText.FindAllStringIndex(text, -1) {
			cand := text[l[0]:l[1]]
			if ip := net.ParseIP(cand); ip != nil && ip.To4() == nil && strings.Count(cand, ":") >= 2 && cand != "::" && cand != "::1" {
				out[cand] = "IPv6 address"
			}
		}
		for _, v := range uuidInText.FindAllString(text, -1) {
			out[v] = "UUID"
		}
		for _, v := range hex32InText.FindAllString(text, -1) {
			out[v] = "hex id"
		}
		for _, v := range macInText.FindAllString(text, -1) {
			out[v] = "MAC address"
		}
		for what, re := range namedInText {
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				for _, g := range m[1:] {
					if g != "" && ipv4InText.FindString(g) != g {
						out[g] = what
					}
				}
			}
		}
		for _, m := range append(crdbFileName.FindAllStringSubmatch(text, -1), glogFileName.FindAllStringSubmatch(text, -1)...) {
			out[m[1]] = "host"
			if m[2] != "cockroach" && m[2] != "vitess" { // the products' own names, and their images' users
				out[m[2]] = "user"
			}
		}
	}
	for _, in := range inputs {
		filepath.WalkDir(in, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			scan(rel)
			data, _ := os.ReadFile(p)
			if strings.HasSuffix(p, ".zip") {
				if zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data))); err == nil {
					for _, m := range zr.File {
						scan(m.Name)
						if rc, err := m.Open(); err == nil {
							b, _ := io.ReadAll(io.LimitReader(rc, 64<<20))
							rc.Close()
							scan(string(b))
						}
					}
				}
				return nil
			}
			scan(string(data))
			return nil
		})
	}
	for _, s := range rep.Sources {
		if i := strings.IndexByte(s.Node, '@'); i >= 0 {
			out[s.Node[i+1:]] = "host"
		}
	}
	sub := f.Subject
	for _, n := range []string{sub.Bucket, sub.Keyspace, sub.Workflow} {
		out[n] = "name"
	}
	for _, n := range sub.Tables {
		out[n] = "table"
	}
	delete(out, "")
	return out
}
