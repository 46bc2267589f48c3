package vitess

import (
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
)

// FuzzParse feeds the same input to both formats: a snapshot file may hold
// log lines and a log may hold JSON.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		getShardV22, getShardCamel, getShardOld, routingRulesReversed, srvKeyspaces, getKeyspaces, workflowShow, statusJSON,
		"$ vtctldclient GetSrvKeyspaces dst zone1\n" + srvKeyspaces,
		"SwitchTraffic was successful for workflow dst.wf1\n\nStart State: a\nCurrent State: b\n",
		"ReverseTraffic dry run results for workflow dst.wf1 at 02 Dec 24 16:41 UTC\n\nLock keyspace dst\n\n",
		"The following vreplication streams exist for workflow ks.wf:\n\nid=1 on ks/zone1-1: Status: Running. VStream Lag: 0s.\n\nTraffic State: x\n",
		reverseTrafficLog,
		"E0123 08:51:21.627147   96215 traffic_switcher.go:1161] Cancel migration failed: could not revert denied tables / shard access: Code: INTERNAL\nkeyspace product is not locked (no locksInfo)\n",
		"E0123 08:51:22.100000   96215 traffic_switcher.go:1006] Cancel migration failed:%!(EXTRA *vterrors.fundamental=Code: INTERNAL\nx\n)\n",
		"I1202 16:45:02.000000       1 logger.go:84] Error: target: dst.-80.primary: vttablet: disallowed due to rule: enforce denied tables\n",
		"{\"rules\": [{\"from_table\": 1}]}\n{\n",
		"I1202 16:41:5\n\xff\x00{[",
	} {
		f.Add([]byte(s))
	}
	origin := forensics.Origin{
		Path:    "case/snapshot-2024-12-02T16:45:00Z/shard_dst_-80.json",
		Name:    "shard_dst_-80.json",
		ModTime: time.Date(2024, 12, 2, 17, 0, 0, 0, time.UTC),
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		parsertest.Check(t, SnapshotFormat, origin, data)
		parsertest.Check(t, VtctldLogFormat, origin, data)
		parsertest.Check(t, VtgateLogFormat, origin, data)
	})
}
