package rules_test

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"forensics"
	"forensics/ingest"
	"forensics/input"
	"forensics/lines"
	"forensics/parsers"
	"forensics/parsers/crdb"
	"forensics/parsers/nsserver"
	"forensics/parsers/parsertest"
)

// attrSamples are real lines for attributes the bundled files do not
// carry, read by the parser of their format.
var attrSamples = []struct {
	format forensics.Format
	name   string
	line   string
}{
	// An expiration lease, as v24+ prints it (pkg/roachpb/data.go Lease.SafeFormat: "exp=%s").
	{crdb.LogFormat, "cockroach.log", "E180220 09:40:30.817192 5411203 kv/dist_sender.go:1305  [client=127.0.0.1:36012,user=rk_user,n1] application error: [NotLeaseHolderError] r88: replica (n2,s2):2 not lease holder; current lease is repl=(n3,s3):4 seq=6 start=1733140000.123456789,0 exp=1733140006.123456789,0 pro=1733140000.123450000,0 acq=Transfer"},
	// menelaus_web_alerts_srv's CAS drift alert.
	{nsserver.Format, "info.log", "[user:info,2024-03-11T07:30:03.000-07:00,ns_1@10.20.0.11:<0.1.0>:menelaus_web_alerts_srv:global_alert:227]Remote or replica mutation received for bucket \"travel-sample\" on node \"10.20.0.13\" with timestamp more than 5000 milliseconds ahead of local clock. Please ensure that NTP is set up correctly on all nodes across the replication topology and clocks are synchronized."},
	// The event log's auto-failover events (event_log.erl: 14 initiated, 15 completed) with their reason.
	{nsserver.EventLogFormat, "event_log", `{"timestamp":"2025-06-11T10:06:12.441Z","event_id":14,"component":"ns_server","description":"Auto failover initiated","severity":"info","node":"cb1.dc1.example.com","otp_node":"ns_1@cb1.dc1.example.com","uuid":"9b31","extra_attributes":{"operation_id":"5f1e","nodes_info":{"failover_nodes":["ns_1@cb2.dc1.example.com"]},"failover_reason":{"ns_1@cb2.dc1.example.com":"The data service did not respond."}}}`},
	{nsserver.EventLogFormat, "event_log", `{"timestamp":"2025-06-11T10:06:14.441Z","event_id":15,"component":"ns_server","description":"Auto failover completed","severity":"info","node":"cb1.dc1.example.com","otp_node":"ns_1@cb1.dc1.example.com","uuid":"9b32","extra_attributes":{"operation_id":"5f1e","nodes_info":{"failover_nodes":["ns_1@cb2.dc1.example.com"]},"time_taken":2000,"failover_reason":{"ns_1@cb2.dc1.example.com":"The data service did not respond."}}}`},
}

// emitted reads the bundled evidence (testdata and the parsers' own files)
// and the samples with the format each file is detected as, and returns
// the attribute keys seen on each kind.
func emitted(t *testing.T) map[forensics.Kind]map[string]bool {
	t.Helper()
	seen := map[forensics.Kind]map[string]bool{}
	note := func(e *forensics.Event) {
		if seen[e.Kind] == nil {
			seen[e.Kind] = map[string]bool{}
		}
		for _, a := range e.Attrs {
			seen[e.Kind][a.Key] = true
		}
	}
	roots, _ := filepath.Glob("../parsers/*/testdata")
	w := &input.Walker{Problem: func(forensics.Problem) {}, Skip: func(string, string) {}}
	defer w.Close()
	err := w.Walk(context.Background(), append([]string{"../testdata"}, roots...), func(m input.Member) error {
		r, err := m.Open()
		if err != nil {
			return nil // a hostile member; the input tests speak for those
		}
		defer r.Close()
		data, err := io.ReadAll(r)
		if err != nil {
			return nil
		}
		o := m.Origin()
		f, ok := ingest.Detect(parsers.All, o.Name, data[:min(len(data), 16<<10)])
		if !ok {
			return nil
		}
		p := f.New(o)
		lr := lines.NewReader(bytes.NewReader(data))
		for {
			l, err := lr.Next()
			if err != nil {
				break
			}
			p.Line(l.N, l.Text, note)
		}
		p.End(note)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range attrSamples {
		res := parsertest.Parse(s.format, forensics.Origin{Path: s.name, Name: s.name, Node: "n1"}, []byte(s.line+"\n"))
		if len(res.Events) == 0 {
			t.Errorf("sample of %s gives no event: %s", s.format.Name, s.line)
		}
		for i := range res.Events {
			note(&res.Events[i])
		}
	}
	return seen
}

// declaredAttrs returns, for every kind, the attribute keys its doc lists.
func declaredAttrs() map[forensics.Kind][]string {
	out := map[forensics.Kind][]string{}
	for _, k := range parsers.Kinds() {
		for _, a := range k.Attrs {
			out[k.Kind] = append(out[k.Kind], string(a.Key))
		}
	}
	return out
}

// Every attribute a parser sets on a real line is one its kind's doc
// declares: the vocabulary rules read is the parsers' own. (That every
// declared key is written somewhere is parsers/keys_test.go's part.)
func TestParsersSetTheAttributesTheyDeclare(t *testing.T) {
	declared := declaredAttrs()
	for kind, keys := range emitted(t) {
		for key := range keys {
			if !slices.Contains(declared[kind], key) {
				t.Errorf("%s events carry %q, which the kind's doc does not declare", kind, key)
			}
		}
	}
}

var attrConst = regexp.MustCompile(`(?m)^\t(Attr\w+)\s+forensics\.AttrKey\s*=\s*"([^"]+)"`)

// A rule reads attributes only by the constants of the parser packages
// (memcached.AttrRollbackSeqno), never by a key string, and each constant
// is a key the parsers declare: a key a parser drops or renames breaks
// this test, not the rule's findings.
func TestRulesReadDeclaredAttributes(t *testing.T) {
	declared := map[string]bool{}
	for _, keys := range declaredAttrs() {
		for _, k := range keys {
			declared[k] = true
		}
	}
	// The value of each parser package's constants, by "pkg.Name".
	consts := map[string]string{}
	files, _ := filepath.Glob("../parsers/*/attrs.go")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pkg := filepath.Base(filepath.Dir(f))
		for _, m := range attrConst.FindAllStringSubmatch(string(b), -1) {
			consts[pkg+"."+m[1]] = m[2]
		}
	}
	reads := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !slices.Contains([]string{"Attr", "Int", "Uint", "Set"}, sel.Sel.Name) {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "forensics" {
				return true // the type forensics.Attr, not an event's method
			}
			at := fset.Position(call.Pos())
			switch arg := call.Args[0].(type) {
			case *ast.BasicLit:
				if arg.Kind == token.STRING {
					key, _ := strconv.Unquote(arg.Value)
					t.Errorf("%s: reads attribute %q by its string; use the parser package's constant", at, key)
				}
			case *ast.SelectorExpr:
				pkg, ok := arg.X.(*ast.Ident)
				if !ok || !strings.HasPrefix(arg.Sel.Name, "Attr") {
					return true
				}
				key, ok := consts[pkg.Name+"."+arg.Sel.Name]
				switch {
				case !ok:
					t.Errorf("%s: %s.%s is not an attribute constant of a parser package", at, pkg.Name, arg.Sel.Name)
				case !declared[key]:
					t.Errorf("%s: reads %q, which no parser declares for any kind", at, key)
				}
				reads++
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if reads < 100 {
		t.Errorf("found %d attribute reads in the rules; the test is not looking at them", reads)
	}
}
