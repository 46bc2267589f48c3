package indexer

import "bytes"

// versionPrefix starts the line the indexer logs once it is up (indexing
// trinity and morpheus, secondary/indexer/indexer.go NewIndexer):
// "Indexer::indexer version {cur} with priority {p} ({v}) PRODUCT_VERSION - {build}".
const versionPrefix = "Indexer::indexer version "

// readVersion keeps the build the indexer names; "0.0.0-0000" is
// common.DEFAULT_PRODUCT_VERSION, an indexer built without one.
func (p *parser) readVersion(msg []byte) {
	_, v, ok := bytes.Cut(msg, []byte(" PRODUCT_VERSION - "))
	v = bytes.TrimSpace(v)
	if !ok || len(v) == 0 || string(v) == "0.0.0-0000" || len(v) > 64 {
		return
	}
	p.release = string(v)
}

// Release is the build the last indexer start in the file named.
func (p *parser) Release() string { return p.release }
