package nsserver

import (
	"bytes"
	"math"
	"strconv"
	"time"

	"forensics"
	"forensics/logtime"
	"forensics/parsers/scan"
)

// Kinds of the certificate messages: the expiry alerts of
// menelaus_web_alerts_srv and the node's certificate files being replaced.
const (
	CertAlert   forensics.Kind = "nsserver.cert_alert"
	CertUpdated forensics.Kind = "nsserver.cert_updated"
)

var (
	certAlertDoc = forensics.KindDoc{Kind: CertAlert, Category: forensics.CategoryOther, Label: "certificate expiry alert",
		Doc: "ns_server's alert that a certificate will expire or has expired (menelaus_web_alerts_srv check(certs) and check(xdcr_certs), " +
			"logged every minute while it holds, from 30 days before the expiry by default): cert is node, client, ca, xdcr_client or xdcr_ca; " +
			"expires is the time the alert gives; days_left is the time from the bundle's collection to it, negative once past",
		Attrs: attrs.Of(AttrAlertHost, AttrCAID, AttrCert, AttrDaysLeft, AttrExpired, AttrExpires, AttrSubject, AttrVia)}
	certUpdatedDoc = forensics.KindDoc{Kind: CertUpdated, Category: forensics.CategoryOther, Label: "certificate files updated",
		Doc:   "the node wrote a new certificate chain and key (ns_ssl_services_setup: node_cert | client_cert cert and pkey files updated): an uploaded or regenerated certificate took effect",
		Attrs: attrs.Of(AttrCert)}
)

// certAlerts are menelaus_web_alerts_srv's errors/1 for certificates, the
// same in 7.1 (neo), 7.6 (trinity) and 8.0 (morpheus):
//
//	node_cert_expires_soon        Server certificate for node ~s (subject: '~s') will expire at ~s.
//	node_cert_expired             Server certificate for node ~s (subject: '~s') has expired.
//	client_cert_expires_soon      Client certificate on node ~s (subject: '~s') will expire at ~s.
//	client_cert_expired           Client certificate on node ~s (subject: '~s') has expired.
//	ca_expires_soon               Trusted CA certificate with ID=~b (subject: '~s') will expire at ~s.
//	ca_expired                    Trusted CA certificate with ID=~b (subject: '~s') has expired.
//	client_xdcr_cert_expires_soon Client XDCR certificate (subject: '~s') will expire at ~s.
//	client_xdcr_cert_expired      Client XDCR certificate (subject: '~s') has expired.
//	xdcr_ca_expires_soon          XDCR CA certificate (subject: '~s') will expire at ~s.
//	xdcr_ca_expired               XDCR CA certificate (subject: '~s') has expired.
//
// The host is misc:extract_node_address(node()), the node that logs it;
// the time is menelaus_web_cert:format_time, UTC to the millisecond
// (2025-11-03T12:00:00.000Z).
var certAlerts = [...]struct {
	prefix string
	cert   string
	named  bool // a node host follows the prefix, then " (subject: '"
	caID   bool // a CA id follows the prefix
}{
	{"Server certificate for node ", "node", true, false},
	{"Client certificate on node ", "client", true, false},
	{"Trusted CA certificate with ID=", "ca", false, true},
	{"Client XDCR certificate (subject: '", "xdcr_client", false, false},
	{"XDCR CA certificate (subject: '", "xdcr_ca", false, false},
}

var (
	subjectOpen = []byte(" (subject: '")
	willExpire  = []byte("') will expire at ")
	hasExpired  = []byte("') has expired.")
)

func certCandidate(msg []byte) bool {
	switch msg[0] {
	case 'S', 'C', 'T', 'X':
		for _, a := range certAlerts {
			if scan.HasPrefix(msg, a.prefix) {
				return true
			}
		}
	case 'n', 'c':
		return scan.HasPrefix(msg, "node_cert cert and pkey files updated") || scan.HasPrefix(msg, "client_cert cert and pkey files updated")
	}
	return false
}

// recognizeCert reads the templates above and reports whether msg was one.
func recognizeCert(msg []byte, ev *forensics.Event, out found) bool {
	if msg[0] == 'n' || msg[0] == 'c' {
		// ns_ssl_services_setup save_certs_phase2 (7.1–8.0):
		// ?log_info("~p cert and pkey files updated", [Type]).
		cert, _, ok := bytes.Cut(msg, []byte("_cert cert and pkey files updated"))
		if !ok {
			return false
		}
		ev.Kind = CertUpdated
		ev.Set(AttrCert, string(cert))
		out(ev, nil)
		return true
	}
	for _, a := range certAlerts {
		r, ok := scan.Cut(msg, a.prefix)
		if !ok {
			continue
		}
		line := firstLineOf(r)
		var host, id []byte
		switch {
		case a.named:
			i := bytes.Index(line, subjectOpen)
			if i <= 0 {
				return false
			}
			host, line = line[:i], line[i+len(subjectOpen):]
		case a.caID:
			var rest []byte
			if id, rest = digits(line); id == nil || !bytes.HasPrefix(rest, subjectOpen) {
				return false
			}
			line = rest[len(subjectOpen):]
		}
		// The subject is the text up to the last "') will expire at " or
		// "') has expired.": a subject may hold quotes and parentheses.
		var subject []byte
		var expires time.Time
		if i := bytes.LastIndex(line, willExpire); i >= 0 {
			at := bytes.TrimSuffix(line[i+len(willExpire):], []byte("."))
			st, n, ok := logtime.ISO(at)
			if !ok || n != len(at) {
				return false
			}
			subject, expires = line[:i], st.Time
		} else if i := bytes.LastIndex(line, hasExpired); i >= 0 && i+len(hasExpired) == len(line) {
			subject = line[:i]
		} else {
			return false
		}
		ev.Kind = CertAlert
		ev.Set(AttrCert, a.cert)
		ev.Set(AttrSubject, string(subject))
		if host != nil {
			ev.Set(AttrAlertHost, string(host))
		}
		if id != nil {
			ev.Set(AttrCAID, string(id))
		}
		if expires.IsZero() {
			ev.Set(AttrExpired, "true")
		} else {
			ev.Set(AttrExpires, expires.UTC().Format(expiresLayout))
			ev.Set(AttrExpired, "false")
		}
		out(ev, nil)
		return true
	}
	return false
}

// expiresLayout writes the expiry as format_time does.
const expiresLayout = "2006-01-02T15:04:05.000Z"

// setDaysLeft sets how many days the certificate of a cert alert had left
// when the bundle was collected, from the expiry the alert gives. A
// collection time of zero (unknown) sets nothing.
func setDaysLeft(ev *forensics.Event, collected time.Time) {
	if collected.IsZero() || ev.Kind != CertAlert {
		return
	}
	exp, err := time.Parse(expiresLayout, ev.Attr(AttrExpires))
	if err != nil {
		return
	}
	// Down to a tenth of a day, so that a certificate past its expiry by
	// minutes reads as expired (-0.1), not as -0.0.
	days := math.Floor(exp.Sub(collected).Hours()/24*10) / 10
	ev.Set(AttrDaysLeft, strconv.FormatFloat(days, 'f', 1, 64))
}
