package nsserver

import "strings"

// The Erlang node names of ns_server: every production node is 'ns_1@HOST'
// (ns_server's dist_manager writes it, couchbase-cli and the REST API print
// it as otpNode), and the logs name nodes that way ("Starting failover of
// nodes ['ns_1@10.0.0.1']").

// Host is the host part of a node name (ns_1@10.0.0.1 → 10.0.0.1); a name
// without "@" is returned as it is.
func Host(node string) string {
	if i := strings.LastIndexByte(node, '@'); i >= 0 {
		return node[i+1:]
	}
	return node
}

// NodeName is the node name ns_server gives a data node on host; a host
// that already has a node part is returned as it is.
func NodeName(host string) string {
	if strings.Contains(host, "@") {
		return host
	}
	return "ns_1@" + host
}

// HasNode reports whether a list of node names joined with commas, as the
// parsers write the nodes attribute (AttrNodes), holds node.
func HasNode(list, node string) bool {
	for _, n := range strings.Split(list, ",") {
		if strings.TrimSpace(n) == node {
			return true
		}
	}
	return false
}
