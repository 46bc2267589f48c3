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

// redact returns the DSN with its password masked, and the password.
func redact(dsn string) (name, secret string) {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" && strings.Contains(dsn, "://") {
		if p, ok := u.User.Password(); ok {
			secret = p
			u.User = url.UserPassword(u.User.Username(), masked)
		}
		q := u.Query()
		if p := q.Get("password"); p != "" {
			secret = p
			q.Set("password", masked)
			u.RawQuery = q.Encode()
		}
		return u.String(), secret
	}
	if m := keywordPassword.FindStringSubmatch(dsn); m != nil {
		secret = strings.Trim(m[1], "'")
		return keywordPassword.ReplaceAllString(dsn, "password="+masked), secret
	}
	return dsn, ""
}

// maskError hides the password wherever an error's text repeats it (a
// driver may quote the DSN it could not parse or connect with).
func maskError(err error, secret string) error {
	if err == nil || secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}
	return &maskedError{err: err, secret: secret}
}

type maskedError struct {
	err    error
	secret string
}

func (e *maskedError) Error() string { return strings.ReplaceAll(e.err.Error(), e.secret, masked) }

// Unwrap lets errors.Is and errors.As see the driver's error; its text is
// still the driver's, so callers print e, not what they unwrap.
func (e *maskedError) Unwrap() error { return e.err }

var errNoRows = pgx.ErrNoRows
