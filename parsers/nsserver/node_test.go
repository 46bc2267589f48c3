package nsserver

import "testing"

func TestNodeNames(t *testing.T) {
	for node, host := range map[string]string{"ns_1@10.0.0.1": "10.0.0.1", "ns_1@cb-01.example.net": "cb-01.example.net", "n_0@127.0.0.1": "127.0.0.1", "10.0.0.2": "10.0.0.2", "": ""} {
		if got := Host(node); got != host {
			t.Errorf("Host(%q) = %q, want %q", node, got, host)
		}
	}
	for host, node := range map[string]string{"10.0.0.1": "ns_1@10.0.0.1", "ns_1@a": "ns_1@a", "fd00::1": "ns_1@fd00::1"} {
		if got := NodeName(host); got != node {
			t.Errorf("NodeName(%q) = %q, want %q", host, got, node)
		}
	}
	list := "ns_1@10.0.0.1,ns_1@10.0.0.12, ns_1@10.0.0.2"
	for node, want := range map[string]bool{"ns_1@10.0.0.1": true, "ns_1@10.0.0.2": true, "ns_1@10.0.0.12": true, "ns_1@10.0.0": false, "10.0.0.1": false} {
		if got := HasNode(list, node); got != want {
			t.Errorf("HasNode(%q, %q) = %v", list, node, got)
		}
	}
}
