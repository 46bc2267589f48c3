package nsserver

import (
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
)

// originCB22 is ns_server.info.log of a 7.6 node collected at 2025-11-03
// 18:30:05 UTC.
var originCB22 = forensics.Origin{
	Path: "cbcollect_info_ns_1@10.40.1.22_20251103-183005/ns_server.info.log",
	Name: "ns_server.info.log",
	Node: "ns_1@10.40.1.22",
}

// The certificate alerts of menelaus_web_alerts_srv and the certificate
// update of ns_ssl_services_setup, as 7.6 and 8.0 write them in
// ns_server.info.log; the alert's time is format_time's (UTC, ms).
func TestCertAlerts(t *testing.T) {
	input := lines(
		"[user:info,2025-11-03T09:12:40.118-05:00,ns_1@10.40.1.22:<0.6120.12>:menelaus_web_alerts_srv:global_alert:228]Server certificate for node 10.40.1.22 (subject: 'CN=cb-22.prod.example.net') will expire at 2025-11-09T12:00:00.000Z.",
		"[user:info,2025-11-03T09:13:40.120-05:00,ns_1@10.40.1.22:<0.6190.12>:menelaus_web_alerts_srv:global_alert:267]Client certificate on node 10.40.1.22 (subject: 'CN=internal,O=Example (Ops) Ltd.') has expired.",
		"[user:info,2025-11-03T09:14:40.121-05:00,ns_1@10.40.1.22:<0.6205.12>:menelaus_web_alerts_srv:global_alert:267]Trusted CA certificate with ID=2 (subject: 'CN=Example Issuing CA 2') will expire at 2025-11-02T00:00:00.000Z.",
		"[user:info,2025-11-03T09:15:40.121-05:00,ns_1@10.40.1.22:<0.6205.12>:menelaus_web_alerts_srv:global_alert:267]Client XDCR certificate (subject: 'CN=xdcr-client') will expire at 2025-12-01T06:30:00.000Z.",
		"[user:info,2025-11-03T09:16:40.121-05:00,ns_1@10.40.1.22:<0.6205.12>:menelaus_web_alerts_srv:global_alert:267]XDCR CA certificate (subject: 'CN=Remote Root') has expired.",
		"[ns_server:info,2025-11-03T10:02:11.511-05:00,ns_1@10.40.1.22:ns_ssl_services_setup<0.415.0>:ns_ssl_services_setup:save_certs_phase2:1050]node_cert cert and pkey files updated",
		"[ns_server:info,2025-11-03T10:02:11.530-05:00,ns_1@10.40.1.22:ns_ssl_services_setup<0.415.0>:ns_ssl_services_setup:save_certs_phase2:1124]client_cert cert and pkey files updated",
		// Not a certificate alert: the wording differs, or the time is cut.
		"[user:info,2025-11-03T10:03:00.000-05:00,ns_1@10.40.1.22:<0.1.0>:menelaus_web_alerts_srv:global_alert:228]Server certificate for node 10.40.1.22 (subject: 'CN=x') will expire at sometime.",
		"[ns_server:info,2025-11-03T10:04:00.000-05:00,ns_1@10.40.1.22:ns_ssl_services_setup<0.415.0>:ns_ssl_services_setup:save_certs_phase2:1050]New node_cert and pkey are written to tmp file",
	)
	res := parsertest.Parse(Format, originCB22, []byte(input))
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	want := []struct {
		kind  forensics.Kind
		attrs map[string]string
	}{
		{CertAlert, map[string]string{"cert": "node", "alert_host": "10.40.1.22", "subject": "CN=cb-22.prod.example.net", "expires": "2025-11-09T12:00:00.000Z", "expired": "false", "days_left": "5.7"}},
		{CertAlert, map[string]string{"cert": "client", "alert_host": "10.40.1.22", "subject": "CN=internal,O=Example (Ops) Ltd.", "expired": "true", "expires": "", "days_left": ""}},
		{CertAlert, map[string]string{"cert": "ca", "ca_id": "2", "subject": "CN=Example Issuing CA 2", "expires": "2025-11-02T00:00:00.000Z", "days_left": "-1.8"}},
		{CertAlert, map[string]string{"cert": "xdcr_client", "subject": "CN=xdcr-client", "days_left": "27.4", "alert_host": ""}},
		{CertAlert, map[string]string{"cert": "xdcr_ca", "subject": "CN=Remote Root", "expired": "true"}},
		{CertUpdated, map[string]string{"cert": "node"}},
		{CertUpdated, map[string]string{"cert": "client"}},
	}
	if len(res.Events) != len(want) {
		t.Fatalf("got %d events, want %d: %v", len(res.Events), len(want), res.Events)
	}
	for i, w := range want {
		e := res.Events[i]
		if e.Kind != w.kind {
			t.Errorf("event %d: kind %s, want %s", i, e.Kind, w.kind)
			continue
		}
		for k, v := range w.attrs {
			if got := e.Attr(forensics.AttrKey(k)); got != v {
				t.Errorf("event %d (%s): %s = %q, want %q", i, e.Kind, k, got, v)
			}
		}
	}
}

// diag.log holds the alerts of every node (ns_log is gossiped), each under
// the node that logged it; the time left is counted from the collection of
// the diag.log read, else from the file's time.
func TestCertAlertsDiag(t *testing.T) {
	input := lines(
		"logs:",
		"-------------------------------",
		"2025-11-03T09:12:40.118-05:00, menelaus_web_alerts_srv:0:info:message(ns_1@10.40.1.23) - Server certificate for node 10.40.1.23 (subject: 'CN=cb-23.prod.example.net') will expire at 2025-11-03T18:00:00.000Z.",
		"-------------------------------",
	)
	diag := forensics.Origin{Path: "cbcollect_info_ns_1@10.40.1.21_20251103-183005/diag.log", Name: "diag.log", Node: "ns_1@10.40.1.21"}
	res := parsertest.Parse(DiagFormat, diag, []byte(input))
	if len(res.Errors) > 0 || len(res.Events) != 1 {
		t.Fatalf("events %v, errors %v", res.Events, res.Errors)
	}
	e := res.Events[0]
	if e.Node != "ns_1@10.40.1.23" || e.Attr(AttrDaysLeft) != "-0.1" || e.Attr(AttrVia) != "diag" {
		t.Errorf("diag: node %s, %v", e.Node, e.Attrs)
	}
	loose := forensics.Origin{Path: "diag.log", Name: "diag.log", ModTime: time.Date(2025, 11, 3, 6, 0, 0, 0, time.UTC)}
	res = parsertest.Parse(DiagFormat, loose, []byte(input))
	if len(res.Events) != 1 || res.Events[0].Attr(AttrDaysLeft) != "0.5" {
		t.Errorf("a diag.log outside its folder: %v", res.Events)
	}
}

// The data service's connections alert and the index RAM alert (7.1–8.0).
func TestConnectionsAndIndexRAMAlerts(t *testing.T) {
	input := lines(
		"[user:info,2025-11-03T09:20:40.118-05:00,ns_1@10.40.1.22:<0.6120.12>:menelaus_web_alerts_srv:global_alert:228]Warning: On node ns_1@10.40.1.22 the number of user connections being used by the Data Service (58712) is above the notice threshold of 90%. The limit is 60000.",
		"[user:info,2025-11-03T09:21:40.118-05:00,ns_1@10.40.1.22:<0.6120.12>:menelaus_web_alerts_srv:global_alert:228]Warning: On node ns_1@10.40.1.22 the number of system connections being used by the Data Service (4611) is above the notice threshold of 90%. The limit is 5000.",
		"[user:info,2025-11-03T09:22:40.118-05:00,ns_1@10.40.1.24:<0.6120.12>:menelaus_web_alerts_srv:global_alert:228]Warning: approaching max index RAM. Indexer RAM on node \"10.40.1.24\" is 93%, which is at or above the threshold of 90%.",
		"[user:info,2025-11-03T09:23:40.118-05:00,ns_1@10.40.1.24:<0.6120.12>:menelaus_web_alerts_srv:global_alert:228]Warning: approaching low index resident percentage. Indexer RAM percentage on node \"10.40.1.24\" is 8%, which is under the threshold of 10%.",
	)
	res := parsertest.Parse(Format, originCB22, []byte(input))
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	if k := res.Kinds(); len(k) != 3 || k[0] != ConnectionsAlert || k[1] != ConnectionsAlert || k[2] != IndexerRAMAlert {
		t.Fatalf("kinds %v", k)
	}
	for i, w := range []map[forensics.AttrKey]string{
		{AttrAlertNode: "ns_1@10.40.1.22", AttrConnType: "user", AttrUsed: "58712", AttrThresholdPct: "90", AttrLimit: "60000"},
		{AttrConnType: "system", AttrUsed: "4611", AttrLimit: "5000"},
		{AttrAlertHost: "10.40.1.24", AttrPercent: "93", AttrThresholdPct: "90"},
	} {
		for k, v := range w {
			if got := res.Events[i].Attr(k); got != v {
				t.Errorf("event %d: %s = %q, want %q", i, k, got, v)
			}
		}
	}
}
