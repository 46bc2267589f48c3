// Package names checks names taken from the evidence against the grammar of
// the system they name, before a fix command carries them. Quoting (package
// shell) makes a pasted command run only that command; these checks make
// sure the command is about a real bucket, host, keyspace or table, and not
// about a string a hostile bundle made up to confuse the reader. A rule that
// finds a name invalid leaves the command out and says why.
//
// Each check is at most as permissive as the system it stands for: a name
// the system would refuse is never put into a command.
package names

import (
	"fmt"
	"net"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error says that a name is not valid for its system.
type Error struct {
	What   string // "Couchbase bucket name", "hostname", …
	Name   string
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%q is not a valid %s (%s)", e.Name, e.What, e.Reason)
}

func invalid(what, name, format string, args ...any) error {
	return &Error{What: what, Name: name, Reason: fmt.Sprintf(format, args...)}
}

// maxBucketLen is ?MAX_BUCKET_NAME_LEN in ns_server (include/ns_common.hrl).
const maxBucketLen = 100

// Bucket checks a Couchbase bucket name: ns_server's
// menelaus_web_buckets:validate_bucket_name and ns_bucket:is_valid_bucket_name
// allow A-Z, a-z, 0-9, underscore, period, dash and percent, at most 100
// characters, not starting with a dot.
func Bucket(s string) error {
	const what = "Couchbase bucket name"
	switch {
	case s == "":
		return invalid(what, s, "empty")
	case len(s) > maxBucketLen:
		return invalid(what, s, "longer than %d characters", maxBucketLen)
	case s[0] == '.':
		return invalid(what, s, "starts with a dot")
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return !asciiAlnum(r) && !strings.ContainsRune("_.-%", r) }); i >= 0 {
		return invalid(what, s, "character %q is not allowed: only A-Z, a-z, 0-9, _ . - %%", firstRune(s[i:]))
	}
	return nil
}

// Host checks a host as it appears after the @ of a Couchbase node name or
// in a cluster address: an IPv4 or IPv6 address, or a DNS name (RFC 1123
// labels of letters, digits and hyphens, at most 253 characters).
func Host(s string) error {
	const what = "hostname"
	if s == "" {
		return invalid(what, s, "empty")
	}
	if strings.HasPrefix(s, "[") || strings.HasSuffix(s, "]") {
		// Brackets come in pairs, around an IPv6 address only.
		inner := strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
		if len(inner) != len(s)-2 || !strings.Contains(inner, ":") || net.ParseIP(inner) == nil {
			return invalid(what, s, "brackets hold an IPv6 address, both of them")
		}
		return nil
	}
	if ip := net.ParseIP(s); ip != nil {
		return nil
	}
	if len(s) > 253 {
		return invalid(what, s, "longer than 253 characters")
	}
	for _, label := range strings.Split(strings.TrimSuffix(s, "."), ".") {
		switch {
		case label == "":
			return invalid(what, s, "empty label")
		case len(label) > 63:
			return invalid(what, s, "label longer than 63 characters")
		case label[0] == '-' || label[len(label)-1] == '-':
			return invalid(what, s, "label starts or ends with a hyphen")
		}
		if i := strings.IndexFunc(label, func(r rune) bool { return !asciiAlnum(r) && r != '-' }); i >= 0 {
			return invalid(what, s, "character %q is not allowed in a hostname", firstRune(label[i:]))
		}
	}
	return nil
}

// HostPort joins a host checked by Host and a port, with the brackets an
// IPv6 address needs.
func HostPort(host, port string) string {
	return net.JoinHostPort(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), port)
}

// Keyspace checks a Vitess keyspace name. Vitess refuses names with a
// slash (topo paths, go/vt/topo/keyspace.go ValidateKeyspaceName); the
// names vtctldclient and the operator create are letters, digits,
// underscores and hyphens, which is what this accepts.
func Keyspace(s string) error {
	return word("Vitess keyspace name", s, 64, "_-")
}

// Workflow checks a Vitess workflow name as MoveTables and Reshard take it
// (--workflow): letters, digits, underscores, hyphens and dots.
func Workflow(s string) error {
	return word("Vitess workflow name", s, 64, "_-.")
}

// Shard checks a Vitess shard name: a key range of lowercase hex bounds
// ("-80", "80-c0", "-") or a plain name such as "0" (go/vt/key KeyRange
// parsing; go/vt/topo/shard.go ValidateShardName).
func Shard(s string) error {
	const what = "Vitess shard name"
	if s == "" {
		return invalid(what, s, "empty")
	}
	if lo, hi, ok := strings.Cut(s, "-"); ok {
		for _, b := range []string{lo, hi} {
			if strings.IndexFunc(b, func(r rune) bool { return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') }) >= 0 {
				return invalid(what, s, "key range bounds are lowercase hexadecimal")
			}
		}
		return nil
	}
	return word(what, s, 64, "_")
}

// TabletAlias checks a Vitess tablet alias: a cell name, a hyphen and the
// tablet's numeric uid ("zone1-0000000100"; go/vt/topo/topoproto
// ParseTabletAlias).
func TabletAlias(s string) error {
	const what = "Vitess tablet alias"
	cell, uid, ok := strings.Cut(s, "-")
	for strings.Contains(uid, "-") { // cells may hold hyphens; the uid is what follows the last one
		var more string
		more, uid, _ = strings.Cut(uid, "-")
		cell += "-" + more
	}
	if !ok || uid == "" || strings.Trim(uid, "0123456789") != "" {
		return invalid(what, s, "a cell, a hyphen and a number")
	}
	return word(what, cell, 64, "_-")
}

// Table checks a MySQL table name as Vitess denied-tables lists and routing
// rules carry it unquoted: letters, digits, $ and _, and non-ASCII letters,
// at most 64 characters (MySQL "Schema Object Names").
func Table(s string) error {
	const what = "table name"
	switch {
	case s == "":
		return invalid(what, s, "empty")
	case utf8.RuneCountInString(s) > 64:
		return invalid(what, s, "longer than 64 characters")
	case !utf8.ValidString(s):
		return invalid(what, s, "not valid UTF-8")
	}
	if i := strings.IndexFunc(s, func(r rune) bool {
		return !asciiAlnum(r) && r != '_' && r != '$' && (r < 0x80 || !unicode.IsLetter(r) && !unicode.IsDigit(r))
	}); i >= 0 {
		return invalid(what, s, "character %q is not allowed in an unquoted table name", firstRune(s[i:]))
	}
	return nil
}

// DeniedTable checks an entry of a shard's denied-tables list: a table name,
// or a /regexp/ (go/vt/topo/shard.go; the list is given comma-separated to
// SetShardTabletControl, so an entry cannot hold a comma).
func DeniedTable(s string) error {
	if len(s) >= 2 && s[0] == '/' && s[len(s)-1] == '/' {
		if i := strings.IndexFunc(s, func(r rune) bool { return r == ',' || unicode.IsControl(r) || unicode.IsSpace(r) }); i >= 0 {
			return invalid("denied-tables entry", s, "character %q is not allowed in an entry of a comma-separated list", firstRune(s[i:]))
		}
		return nil
	}
	return Table(s)
}

func word(what, s string, max int, extra string) error {
	switch {
	case s == "":
		return invalid(what, s, "empty")
	case len(s) > max:
		return invalid(what, s, "longer than %d characters", max)
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return !asciiAlnum(r) && !strings.ContainsRune(extra, r) }); i >= 0 {
		return invalid(what, s, "character %q is not allowed", firstRune(s[i:]))
	}
	return nil
}

func asciiAlnum(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// First returns the first error of checks, or nil: rules check every name of
// a command before building it.
func First(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// HostOr returns host when Host accepts it, else the placeholder HOST that
// the reader of a fix command fills in, so that no unchecked text reaches
// a command.
func HostOr(host string) string {
	if Host(host) == nil {
		return host
	}
	return "HOST"
}

// BucketOr returns the bucket when Bucket accepts it, else the placeholder
// BUCKET.
func BucketOr(bucket string) string {
	if Bucket(bucket) == nil {
		return bucket
	}
	return "BUCKET"
}

// Each checks every name of a list with check and returns the first error.
func Each(check func(string) error, list []string) error {
	for _, n := range list {
		if err := check(n); err != nil {
			return err
		}
	}
	return nil
}
