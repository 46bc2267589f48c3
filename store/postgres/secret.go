package postgres

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
)

// A password may be in the DSN (postgres://user:secret@host/db or
// password=secret); it comes out of every name and error forensics prints.

const masked = "xxxxx"

// keywordPassword finds password=… in the keyword=value form of a DSN,
// quoted or not (libpq's conninfo grammar: single quotes, backslash escapes).
var keywordPassword = regexp.MustCompile(`(?i)\bpassword\s*=\s*('(?:[^'\\]|\\.)*'|\S*)`)

// uriUser finds the user information of a URI DSN, up to the last @ before
// the host: a password may hold /, ?, # or @, which a URI parser takes for
// the path, the query or the fragment.
var uriUser = regexp.MustCompile(`(?i)^(postgres(?:ql)?://[^:@/]*):(.*)@`)

// queryPassword finds password=… among a URI's parameters.
var queryPassword = regexp.MustCompile(`(?i)([?&]password=)([^&#]*)`)

// keywordForm recognises libpq's keyword=value form of a DSN ("host=db
// dbname=forensics user=analyst"): it starts with a libpq keyword.
var keywordForm = regexp.MustCompile(`^\s*(host|hostaddr|port|dbname|user|password|passfile|sslmode|sslrootcert|sslcert|sslkey|connect_timeout|application_name|options|service|target_session_attrs)\s*=`)

// IsKeywordDSN reports whether dsn is in libpq's keyword=value form.
func IsKeywordDSN(dsn string) bool { return keywordForm.MatchString(dsn) }

// Password returns the password a DSN holds, or "".
func Password(dsn string) string {
	_, secret := redact(dsn)
	return secret
}

// redact returns the DSN with its password masked, and the password. It
// reads the DSN as text, not as a URI, so that a password a URI parser
// cannot read (one holding #, /, ?, @ or a bad %-escape, or a host with a
// space) is masked too.
func redact(dsn string) (name, secret string) {
	name = dsn
	if m := uriUser.FindStringSubmatchIndex(name); m != nil {
		secret = name[m[4]:m[5]]
		if p, err := url.PathUnescape(secret); err == nil {
			secret = p
		}
		name = name[:m[4]] + masked + name[m[5]:]
	}
	if m := queryPassword.FindStringSubmatchIndex(name); m != nil {
		secret = name[m[4]:m[5]]
		if p, err := url.QueryUnescape(secret); err == nil {
			secret = p
		}
		name = name[:m[4]] + masked + name[m[5]:]
	}
	if m := keywordPassword.FindStringSubmatch(name); m != nil && !strings.Contains(dsn, "://") {
		secret = strings.Trim(m[1], "'")
		name = keywordPassword.ReplaceAllString(name, "password="+masked)
	}
	return name, secret
}

// maskError hides the password wherever an error's text repeats it (a
// driver may quote the DSN it could not parse or connect with).
func maskError(err error, secret string) error {
	if err == nil || secret == "" {
		return err
	}
	for _, form := range secretForms(secret) {
		if strings.Contains(err.Error(), form) {
			return &maskedError{err: err, secret: secret}
		}
	}
	return err
}

// secretForms are the ways a password may be written in a message: as it
// is, %-escaped as in a URI, and the pieces a URI parser may split it into
// at @, /, ?, # or : (the host it then tries to reach is the rest of the
// password); pieces too short to tell anything are left.
func secretForms(secret string) []string {
	forms := []string{secret, url.PathEscape(secret), url.QueryEscape(secret), url.UserPassword("", secret).String()[1:]}
	for _, piece := range strings.FieldsFunc(secret, func(r rune) bool { return strings.ContainsRune("@/?#:% '", r) }) {
		if len(piece) >= 4 {
			forms = append(forms, piece)
		}
	}
	return forms
}

type maskedError struct {
	err    error
	secret string
}

func (e *maskedError) Error() string {
	s := e.err.Error()
	for _, form := range secretForms(e.secret) {
		if form != "" {
			s = strings.ReplaceAll(s, form, masked)
		}
	}
	return s
}

// Unwrap lets errors.Is and errors.As see the driver's error; its text is
// still the driver's, so callers print e, not what they unwrap.
func (e *maskedError) Unwrap() error { return e.err }

var errNoRows = pgx.ErrNoRows
