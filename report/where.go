package report

import (
	"os"
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

// InputRoot is the folder paths are shown relative to: the folder given,
// when one folder is the input, else the folder that holds every input.
// It is "" when there is none (inputs on different file systems' roots).
func InputRoot(inputs []string) string {
	if len(inputs) == 0 {
		return ""
	}
	var dirs []string
	for _, in := range inputs {
		abs, err := filepath.Abs(in)
		if err != nil {
			return ""
		}
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() && len(inputs) == 1 {
			return abs
		}
		dirs = append(dirs, filepath.Dir(abs))
	}
	root := dirs[0]
	for _, d := range dirs[1:] {
		for root != d && !strings.HasPrefix(d, root+string(filepath.Separator)) {
			parent := filepath.Dir(root)
			if parent == root {
				return ""
			}
			root = parent
		}
	}
	if root == filepath.Dir(root) {
		return "" // the file system's root: relative paths would say nothing less
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
