package indexer

import (
	"bytes"

	"forensics"
	"forensics/parsers/cbgo"
	"forensics/parsers/scan"
)

// Kinds of the indexer pausing for memory: with memory-optimized indexes
// (MOI) and indexer.pause_if_memory_full (the default), monitorMemUsage
// checks the memory used every mem_usage_check_interval (10 s) and pauses
// the indexer above high_mem_mark of the quota (0.95), resuming it below
// low_mem_mark (0.8). Paused, the indexer takes no mutations (its streams
// are paused, so the indexes fall behind) and refuses scans.
const (
	Paused       forensics.Kind = "indexer.paused"
	StreamPaused forensics.Kind = "indexer.stream_paused"
	Resumed      forensics.Kind = "indexer.resumed"
)

var memoryKinds = []forensics.KindDoc{
	{Kind: Paused, Category: forensics.CategoryError, Label: "indexer paused: memory full",
		Doc:   "the indexer went to the Paused state because its memory use passed the high mark of its quota (memory-optimized indexes; Indexer::handleIndexerPauseMOI Indexer State Changed to Paused, 7.2: handleIndexerPause); mem_used is the memory the last check measured, mem_quota the quota the last PeriodicStats gave, in bytes",
		Attrs: attrs.Of(AttrMemQuota, AttrMemUsed, AttrState)},
	{Kind: StreamPaused, Category: forensics.CategoryStream, Label: "stream paused for memory",
		Doc:   "the mutation manager paused a stream while the indexer is paused for memory: its mutations wait (MutationMgr::handleIndexerPauseMOI Stream … Paused)",
		Attrs: attrs.Of(AttrStream)},
	{Kind: Resumed, Category: forensics.CategoryStream, Label: "indexer resumed",
		Doc:   "the indexer left the Paused state: memory fell below the low mark of its quota and it takes mutations and scans again (Indexer::handleUnpauseMOI, 7.2: handleUnpause)",
		Attrs: attrs.Of(AttrMemQuota, AttrMemUsed, AttrState)},
}

// The templates, secondary/indexer (neo = 7.2 without "MOI"; trinity = 7.6
// and morpheus = 8.0 with it):
//
//	indexer.go monitorMemUsage        "Indexer::monitorMemUsage MemoryUsed Total %v Idle %v"   every check
//	indexer.go bootstrap2             "Indexer::bootstrap MemoryUsed %v"                         before pausing at start
//	indexer.go handleIndexerPause[MOI] "Indexer::handleIndexerPause[MOI] Indexer State Changed to %v"
//	mutation_manager.go               "MutationMgr::handleIndexerPause[MOI] Stream %v Paused"
//	indexer.go handleUnpause[MOI]      "Indexer::handleUnpause[MOI] %v"
//	stats_manager.go                   "PeriodicStats = %s" (JSON with "memory_quota"), in indexer.log
//	                                   only with indexer.statsLogEnable false: 7.x writes it to indexer_stats.log by default
const (
	memUsedPrefix  = "Indexer::monitorMemUsage MemoryUsed Total "
	bootUsedPrefix = "Indexer::bootstrap MemoryUsed "
	pausePrefix    = "Indexer::handleIndexerPause"
	streamPausePre = "MutationMgr::handleIndexerPause"
	unpausePrefix  = "Indexer::handleUnpause"
	statsPrefix    = "PeriodicStats = {"
	quotaMember    = `"memory_quota":`
)

// memoryLine reads the templates above; the memory checks give no event,
// only the mem_used of the next state change.
func (p *parser) memoryLine(n int64, text []byte, h cbgo.Header, msg []byte, emit forensics.Emit) {
	switch {
	case scan.HasPrefix(msg, memUsedPrefix):
		p.memUsed = p.memUsed[:0]
		if d, ok := leadingDigits(msg[len(memUsedPrefix):]); ok {
			p.memUsed = append(p.memUsed, d...)
		}
	case scan.HasPrefix(msg, bootUsedPrefix):
		p.memUsed = p.memUsed[:0]
		if d, ok := leadingDigits(msg[len(bootUsedPrefix):]); ok {
			p.memUsed = append(p.memUsed, d...)
		}
	case scan.HasPrefix(msg, pausePrefix):
		r := bytes.TrimPrefix(msg[len(pausePrefix):], []byte("MOI"))
		state, ok := scan.Cut(r, " Indexer State Changed to ")
		if !ok || string(state) != "Paused" {
			return
		}
		p.stateEvent(Paused, n, text, h, state, emit)
	case scan.HasPrefix(msg, streamPausePre):
		r := bytes.TrimPrefix(msg[len(streamPausePre):], []byte("MOI"))
		r, ok := scan.Cut(r, " Stream ")
		stream, ok2 := bytes.CutSuffix(r, []byte(" Paused"))
		if !ok || !ok2 || len(stream) == 0 || bytes.IndexByte(stream, ' ') >= 0 {
			return
		}
		e := p.start(StreamPaused, n, h.Stamp, text)
		add(e, AttrStream, string(stream))
		emit(e)
	case scan.HasPrefix(msg, unpausePrefix):
		r := bytes.TrimPrefix(msg[len(unpausePrefix):], []byte("MOI"))
		if len(r) < 2 || r[0] != ' ' {
			return
		}
		p.stateEvent(Resumed, n, text, h, r[1:], emit)
	}
}

// periodicStats keeps the memory quota a PeriodicStats line gives.
func (p *parser) periodicStats(msg []byte) {
	i := bytes.Index(msg, []byte(quotaMember))
	if i < 0 {
		return
	}
	if d, ok := leadingDigits(msg[i+len(quotaMember):]); ok {
		p.memQuota = append(p.memQuota[:0], d...)
	}
}

func (p *parser) stateEvent(k forensics.Kind, n int64, text []byte, h cbgo.Header, state []byte, emit forensics.Emit) {
	e := p.start(k, n, h.Stamp, text)
	add(e, AttrState, string(state))
	if len(p.memUsed) > 0 {
		add(e, AttrMemUsed, string(p.memUsed))
	}
	if len(p.memQuota) > 0 {
		add(e, AttrMemQuota, string(p.memQuota))
	}
	emit(e)
}

// leadingDigits returns the decimal number b starts with.
func leadingDigits(b []byte) ([]byte, bool) {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return b[:i], i > 0 && i <= 20
}
