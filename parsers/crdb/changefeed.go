package crdb

import (
	"bytes"

	"forensics"
	"forensics/parsers/scan"
)

// A changefeed job's coordinator retries its flow on every error that is
// not terminal, and logs each retry; when it gives up it logs why. From
// pkg/ccl/changefeedccl/changefeed_stmt.go (changefeedResumer's
// resumeWithRetries), in each release's wording:
//
//	CHANGEFEED job %d encountered retryable error: %v                                     v20.x (Infof), v21.x–v22.1 (Warningf)
//	WARNING: CHANGEFEED job %d encountered retryable error: %v                            v22.2–v23.1
//	Changefeed job %d encountered transient error: %v (attempt %d)                        later releases up to v25.3 (DEV channel)
//	Changefeed job %d encountered transient error: %v (attempt %d) (approx backoff: %s)   v25.4 (CHANGEFEED channel, cockroach-changefeed.log)
//	CHANGEFEED job %d returning with error: %+v                                           up to v23.1: an error that is not retryable
//	CHANGEFEED job %d saw the same non-terminal error %d times in %s: %+v                 v22.2–v23.1: the same error too often
//	CHANGEFEED %d shutting down (cause: %v)                                               later releases: a terminal error
//
// The retryable error wraps the sink's own (changefeedbase/errors.go:
// "retryable changefeed error: …"), e.g. Kafka's "kafka server: Message was
// too large, server rejected it to avoid allocation error." (cockroachdb/
// cockroach#80199) or "kafka server: Tried to send a message to a replica
// that is not the leader for some partition." (#69677). The releases are
// those of the versions of the file read and may be off by one; the
// matching does not depend on them.
const (
	KindChangefeedRetry  forensics.Kind = "changefeed.retry"
	KindChangefeedFailed forensics.Kind = "changefeed.failed"
)

var changefeedDocs = []forensics.KindDoc{
	{Kind: KindChangefeedRetry, Category: forensics.CategoryError, Label: "changefeed retry", Component: "changefeed",
		Doc:   "a changefeed job's flow failed with an error that is retried (… encountered retryable error / transient error: …); job, error, attempt, backoff",
		Attrs: attrs.Of(AttrAttempt, AttrBackoff, AttrError, AttrJob)},
	{Kind: KindChangefeedFailed, Category: forensics.CategoryError, Label: "changefeed failed", Component: "changefeed",
		Doc:   "a changefeed job stopped on an error it does not retry (returning with error, shutting down (cause: …), the same non-terminal error N times); job, error",
		Attrs: attrs.Of(AttrError, AttrJob)},
}

const (
	preCFRetryOld     = "CHANGEFEED job "
	preCFRetryWarning = "WARNING: CHANGEFEED job "
	preCFTransient    = "Changefeed job "
	preCFShutdown     = "CHANGEFEED "
	midCFRetryable    = " encountered retryable error: "
	midCFTransient    = " encountered transient error: "
	midCFReturning    = " returning with error: "
	midCFSameError    = " saw the same non-terminal error "
	midCFShutdown     = " shutting down (cause: "
	midCFAttempt      = " (attempt "
	midCFBackoff      = " (approx backoff: "
)

// readChangefeed reads the messages above.
func readChangefeed(ev *forensics.Event, msg []byte, tg healthTags) bool {
	rest := msg
	for _, p := range []string{preCFRetryWarning, preCFRetryOld, preCFTransient, preCFShutdown} {
		if r, ok := bytes.CutPrefix(msg, []byte(p)); ok {
			rest = r
			break
		}
	}
	d := digits(rest)
	if d == 0 || len(rest) == len(msg) {
		return false
	}
	ev.Set(AttrJob, string(rest[:d]))
	rest = rest[d:]
	switch {
	case scan.HasPrefix(rest, midCFRetryable):
		ev.Kind = KindChangefeedRetry
		ev.Set(AttrError, string(rest[len(midCFRetryable):]))
	case scan.HasPrefix(rest, midCFTransient):
		ev.Kind = KindChangefeedRetry
		transient(ev, rest[len(midCFTransient):])
	case scan.HasPrefix(rest, midCFReturning):
		ev.Kind = KindChangefeedFailed
		ev.Set(AttrError, string(rest[len(midCFReturning):]))
	case scan.HasPrefix(rest, midCFSameError):
		// "%d times in %s: %+v"
		ev.Kind = KindChangefeedFailed
		if _, e, ok := bytes.Cut(rest, []byte(": ")); ok {
			ev.Set(AttrError, string(e))
		}
	case scan.HasPrefix(rest, midCFShutdown):
		ev.Kind = KindChangefeedFailed
		ev.Set(AttrError, string(bytes.TrimSuffix(rest[len(midCFShutdown):], []byte(")"))))
	default:
		return false
	}
	return true
}

// transient reads "%v (attempt %d)[ (approx backoff: %s)]": the error may
// hold parentheses, so the attempt is the last one.
func transient(ev *forensics.Event, b []byte) {
	i := bytes.LastIndex(b, []byte(midCFAttempt))
	if i < 0 {
		ev.Set(AttrError, string(b))
		return
	}
	ev.Set(AttrError, string(b[:i]))
	rest := b[i+len(midCFAttempt):]
	if d := digits(rest); d > 0 {
		ev.Set(AttrAttempt, string(rest[:d]))
	}
	if j := bytes.Index(rest, []byte(midCFBackoff)); j >= 0 {
		ev.Set(AttrBackoff, string(bytes.TrimSuffix(rest[j+len(midCFBackoff):], []byte(")"))))
	}
}
