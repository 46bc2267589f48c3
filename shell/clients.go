package shell

import "strings"

// A fix command runs as printed once its placeholders are filled: each
// client gets the flags it cannot run without, and what the evidence cannot
// tell (a password, where the cluster's servers are) is an UPPERCASE
// placeholder that every output lists under the fix with what to put there.

// Placeholder is a word of a fix command that a person replaces before
// running it.
type Placeholder struct {
	Name  string // as the command shows it: UPPERCASE
	Means string // what to put there
	// Example is a value of the right shape, which the tests put in its
	// place before they run a command.
	Example string
}

// Placeholders are the placeholders fix commands use, in the order fixes
// list them.
var Placeholders = []Placeholder{
	{"VTCTLD_HOST", "the host (name or address) of a vtctld; 15999 is its default gRPC port", "vtctld.example.net"},
	{"VTORC_HOST", "the host (name or address) of a VTOrc instance; 15000 is the HTTP port of the Vitess operator's and the examples' VTOrc (its --port)", "vtorc.example.net"},
	{"TABLET_ALIAS", "the tablet's alias, as cell-uid (vtctldclient GetTablets lists them)", "zone1-0000000101"},
	{"CRDB_HOST", "the host (name or address) of any node of the CockroachDB cluster; 26257 is its default SQL and RPC port", "roach-1.example.net"},
	{"CERTS_DIR", "the folder of the client certificates of the CockroachDB cluster (for an insecure cluster, --insecure in place of --certs-dir=CERTS_DIR)", "certs"},
	{"PASSWORD", "the password of the Couchbase user the command names (Administrator, or a user with the same role)", "secret"},
	{"SECONDS", "the new auto-failover timeout, in seconds", "120"},
	{"QUOTA_MB", "the new memory quota, in MiB", "4096"},
}

// PlaceholdersIn returns the placeholders a command holds, in the order of
// Placeholders.
func PlaceholdersIn(command string) []Placeholder {
	var out []Placeholder
	for _, p := range Placeholders {
		if hasWord(command, p.Name) {
			out = append(out, p)
		}
	}
	return out
}

// hasWord reports whether name is in s with no letter, digit or underscore
// on either side ("-p PASSWORD", "Administrator:PASSWORD", "VTCTLD_HOST:15999").
func hasWord(s, name string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !wordByte(s[start-1])) && (end == len(s) || !wordByte(s[end])) {
			return true
		}
		i = start + 1
	}
}

func wordByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// Vtctldclient is a vtctldclient command line. vtctldclient refuses every
// command without --server ("please specify --server
// <vtctld_host:vtctld_port>", vitessio/vitess
// go/cmd/vtctldclient/command/root.go, errNoServer).
func Vtctldclient(args ...string) string {
	return Command(append([]string{"vtctldclient", "--server", "VTCTLD_HOST:15999"}, args...)...)
}

// cockroachFlags are what a cockroach client command needs to reach a
// secure cluster from a support engineer's machine: a node (the default is
// localhost) and the client certificates (pkg/cli/cliflags: --host,
// --certs-dir, or --insecure).
var cockroachFlags = []string{"--host=CRDB_HOST:26257", "--certs-dir=CERTS_DIR"}

// CockroachSQL runs one SQL statement through the cockroach SQL shell.
func CockroachSQL(statement string) string {
	words := append([]string{"cockroach", "sql"}, cockroachFlags...)
	return Command(append(words, "-e", statement)...)
}

// Cockroach is a cockroach client command line (cockroach node status 3),
// with the flags it connects by after its own arguments.
func Cockroach(args ...string) string {
	words := append([]string{"cockroach"}, args...)
	return Command(append(words, cockroachFlags...)...)
}
