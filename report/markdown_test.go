package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func TestMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, fixtureReport()); err != nil {
		t.Fatal(err)
	}
	golden(t, "fixture.md", b.Bytes())
}

func TestMarkdownStructure(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, fixtureReport()); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"# forensics: 3 findings\n",
		"By severity: 1 critical, 1 high, 1 low.",
		"| 1 | **critical** | `kv-stream-before-traffic` |",
		"## 1. CRITICAL: ns_1@172.23.100.15 answered",
		"- **Consumers:** `secidx:proj-test3-MAINT_STREAM_TOPIC_0765f2d280c663c382dea1a1b49ab1cd-2556451229124417097/1`",
		// Evidence: source:line and time on one line, the line as logged under it, in a code block.
		"```text\n# 1. 2022-07-22T00:39:12.111000Z  " + indexerLog + ":167  (the indexer lost vb 141's stream when memcached died)\n2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd MAINT_STREAM test3 141 77409272469274 4168\n",
		// Fix commands in a shell block under their fix.
		"   ```sh\n   cbstats 172.23.100.15:11210 -u Administrator -p PASSWORD -b test3 warmup\n   curl -s -u Administrator:PASSWORD http://172.23.100.16:8091/pools/default/buckets/test3 | jq '.nodes[] | {hostname, status}'\n   ```\n",
		"- ns_1@172.23.100.15 reads at least 9ms ahead of ns_1@172.23.100.19",
		"| `" + memcachedLog + "` | ns_1@172.23.100.15 | memcached |  | 283 | 40 |",
		"- Skipped 2 files: not a log format forensics reads",
		"- `collectinfo-2022-07-22T004733-ns_1@172.23.100.17.zip`: archive cut short, members after this point lost: unexpected EOF (content lost)",
		"- `" + crdbLog + ":77`: line looks like crdb-v2 but has no timestamp",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// The evidence blocks come in finding order, and the lines in time order within each.
	if i, j := strings.Index(md, "TK StreamEnd"), strings.Index(md, "exited with status 137. Restarting"); i < 0 || j < 0 || i > j {
		t.Errorf("evidence out of order: StreamEnd at %d, exit at %d", i, j)
	}
}

// Text from logs and rules must not turn into Markdown structure: no raw
// HTML, no links, no emphasis, no code block closed early by a log line.
func TestMarkdownHostileText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, fixtureReport()); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, bad := range []string{"<script>", "<b>", "[link](", "*emphasis*", "\x1b", "\xff", "evil|host"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown carries %q unescaped", bad)
		}
	}
	for _, want := range []string{
		`\<script\>alert(1)\</script\>`,
		`\[link\](javascript:alert(1))`,
		`\*emphasis\*`,
		"MAINT_STREAM_TOPIC stays as it is", // an underscore inside a word is left alone
		`\_underscores\_`,
		"\\# not a heading",
		"evil\\|host",
		`\x1b[31mred\x1b[0m \xff`, // control bytes and invalid UTF-8 shown as escapes
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// The evidence line holds ``` and the command too: their fences must be longer.
	if !strings.Contains(md, "````text\n") || !strings.Contains(md, "   ````sh\n   echo '```' | cat\n   ````\n") {
		t.Errorf("fences do not outlast the backticks inside them:\n%s", md[strings.Index(md, "## 3."):])
	}
	// Every fence that opens is closed, and the log lines stay inside
	// theirs: a fence closes only on a run of backticks as long as it
	// opened with, and nothing else on the line (CommonMark 4.5).
	fenceLine := regexp.MustCompile("^ *(`{3,})([a-z]*)$")
	opened := ""
	for i, line := range strings.Split(md, "\n") {
		m := fenceLine.FindStringSubmatch(line)
		switch {
		case opened == "" && m != nil:
			opened = m[1]
		case opened != "" && m != nil && m[2] == "" && len(m[1]) >= len(opened):
			opened = ""
		case opened == "" && strings.Contains(line, "onerror"):
			t.Errorf("line %d: a log line outside its code block: %q", i+1, line)
		}
	}
	if opened != "" {
		t.Errorf("a %s fence is never closed", opened)
	}
}

// The inputs table names the release each source says wrote it, as the
// terminal table does, escaped like any text from a log.
func TestMarkdownRelease(t *testing.T) {
	r := fixtureReport()
	r.Sources[0].Release = "7.0.2-6703"
	r.Sources[4].Release = "v23.1.14|<b>"
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| Source | Node | Format | Release | Lines | Events | First (UTC) | Last (UTC) |\n|---|---|---|---|---:|---:|---|---|\n",
		"| `" + memcachedLog + "` | ns_1@172.23.100.15 | memcached | 7.0.2-6703 | 283 | 40 |",
		"| `" + crdbLog + "` | n2 | crdb-v2 | v23.1.14\\|\\<b\\> | 512 | 300 |",
		"| `" + nsInfoLog + "` | ns_1@172.23.100.15 | nsserver |  | 136 | 13 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

func TestMarkdownNoFindings(t *testing.T) {
	r := fixtureReport()
	r.Findings = nil
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if !strings.HasPrefix(md, "# forensics: no findings\n\nFrom 6 sources on 3 nodes (n2, ns_1@172.23.100.15, ns_1@172.23.100.19)") {
		t.Errorf("unexpected start:\n%s", md)
	}
	if strings.Contains(md, "| # | Severity") {
		t.Error("a findings table with no findings")
	}
	if !strings.Contains(md, "## Inputs") {
		t.Error("no inputs section")
	}
}

func TestMdCode(t *testing.T) {
	if got := mdCodeCell("a|b"); got != "`a\\|b`" {
		t.Errorf("mdCodeCell(a|b) = %q", got)
	}
	for in, want := range map[string]string{
		"plain":       "`plain`",
		"a`b":         "``a`b``",
		"`edge":       "`` `edge ``",
		"pipe|inside": "`pipe|inside`",
		"":            "",
	} {
		if got := mdCode(in); got != want {
			t.Errorf("mdCode(%q) = %q, want %q", in, got, want)
		}
	}
}
