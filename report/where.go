package report

import (
	"path/filepath"
	"strings"

	"forensics"
)

// where names the file an evidence line is in, for a reader who has the
// finding around it: the node whose folder holds the file and the path
// inside that folder ("172.23.100.19 ns_server.indexer.log"), else the
// line's node and the path relative to the inputs' folder; the whole path
// with Verbose.
func (l Layout) where(e forensics.Evidence) string {
	if l.Verbose {
		return Escape(e.Path)
	}
	node, inside := forensics.NodeFolder(e.Path)
	if node == "" {
		node, inside = e.Node, RelativePath(l.Root, e.Path)
	}
	label := ClipName(inside, maxName)
	if node != "" {
		label = ClipName(nodeLabel(node), maxNode) + " " + label
	}
	return label
}

// nodeLabel is a node's name next to a file: Couchbase's "ns_1@", which
// every node of a cluster shares, left out.
func nodeLabel(node string) string { return strings.TrimPrefix(node, "ns_1@") }

// InputRoot is the folder paths are shown relative to: the one that holds
// every input given, so that each keeps its own name (a folder given,
// seed/, is seed/… in the paths). It is "" when that is the file system's
// root, where relative paths would say no less.
func InputRoot(inputs []string) string {
	root := ""
	for i, in := range inputs {
		abs, err := filepath.Abs(in)
		if err != nil {
			return ""
		}
		dir := filepath.Dir(abs)
		if i == 0 {
			root = dir
			continue
		}
		for root != dir && !strings.HasPrefix(dir, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator)) {
			up := filepath.Dir(root)
			if up == root {
				break
			}
			root = up
		}
	}
	if root == filepath.Dir(root) {
		return ""
	}
	return root
}

// RelativePath writes a display path (a file, or an archive's path, "!" and
// a member) relative to root when the file is under it, so that a report
// names the evidence as the bundle does, not as the machine that analysed
// it stored it ("/home/…/cbcollect_info_…/memcached.log").
func RelativePath(root, p string) string {
	if root == "" || p == "" {
		return p
	}
	file, member, archive := strings.Cut(p, "!")
	abs, err := filepath.Abs(file)
	if err != nil {
		return p
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	rel = filepath.ToSlash(rel)
	if archive {
		rel += "!" + member
	}
	return rel
}
