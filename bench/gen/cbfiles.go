package main

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// diag writes diag.log: the seed node's copy (the gossiped user log and
// event log, which hold the incident on every node, then per_node_diag),
// and then the Erlang process dump that makes up most of a real diag.log,
// up to budget bytes.
func (c *cbCtx) diag(w *bufio.Writer, budget int64) error {
	data, err := readShifted(filepath.Join(c.n.dir, "diag.log"), c.cl.sh)
	if err != nil {
		return err
	}
	if c.n.like != "" {
		data = bytes.ReplaceAll(data, []byte("per_node_diag(ns_1@"+c.n.like+")"), []byte("per_node_diag("+c.n.name()+")"))
	}
	w.Write(data)
	r := newRand(mix(c.cl.o.seed, label(c.n.host+"/diag")))
	fmt.Fprintf(w, "\n\nper_node_processes(%s) =\n", c.n.name())
	written := int64(len(data))
	var b []byte
	for i := 0; written < budget; i++ {
		open := "      "
		if i == 0 {
			open = "     ["
		}
		name := erlangNames[r.IntN(len(erlangNames))]
		b = fmt.Appendf(b[:0], "%s{<0.%d.0>,\n       [{registered_name,%s},\n        {status,waiting},\n        {initial_call,{proc_lib,init_p,5}},\n"+
			"        {backtrace,[<<\"Program counter: 0x00007f1b%08x (gen_server:loop/7 + 288)\">>,\n                    <<\"arity = 0\">>,<<>>,\n"+
			"                    <<\"0x00007f1a%08x Return addr 0x00007f1b2c5e7f20 (proc_lib:init_p_do_apply/3 + 72)\">>]},\n"+
			"        {message_queue_len,0},\n        {heap_size,%d},\n        {total_heap_size,%d},\n        {reductions,%d},\n        {trap_exit,%t}]},\n",
			open, 100+i*3+r.IntN(3), name, r.Uint32(), r.Uint32(), 233+r.IntN(10000), 233+r.IntN(100000), r.Int64N(1<<32), r.IntN(2) == 0)
		w.Write(b)
		written += int64(len(b))
	}
	_, err = w.WriteString("      {<0.32.0>,[{registered_name,error_logger},{status,waiting}]}]\n")
	return err
}

var erlangNames = []string{
	"[]", "[]", "[]", "ns_config", "ns_config_rep", "ns_doctor", "ns_heart", "ns_log", "ns_memcached-default",
	"ns_memcached-test3", "janitor_agent-default", "janitor_agent-test3", "menelaus_web", "menelaus_event",
	"compaction_daemon", "chronicle_kv_log", "json_rpc_connection-index-cbauth", "dcp_sup-test3", "mb_master",
	"leader_lease_agent", "auto_failover", "ns_orchestrator", "stats_reader-test3", "ns_ports_setup",
}

// couchbaseLog writes couchbase.log, the output of cbcollect_info's OS
// commands. forensics reads none of it.
func (c *cbCtx) couchbaseLog(w *bufio.Writer) error {
	r := newRand(mix(c.cl.o.seed, label(c.n.host+"/os")))
	task := func(desc, cmd, out string) {
		w.WriteString(bar + desc + "\n" + cmd + "\n" + bar + out)
	}
	local := c.cl.collect.In(cbZone)
	task("uname", "uname -a", fmt.Sprintf("Linux node%d-cb710 5.4.0-122-generic #138-Ubuntu SMP Wed Jun 22 15:00:31 UTC 2022 x86_64 x86_64 x86_64 GNU/Linux\n", c.n.i+1))
	task("time and TZ", "date; date -u", local.Format("Mon Jan _2 15:04:05 MST 2006")+"\n"+c.cl.collect.Format("Mon Jan _2 15:04:05 UTC 2006")+"\n")
	task("Memory", "free -t", fmt.Sprintf("              total        used        free      shared  buff/cache   available\nMem:       15979704     %d     %d       1624     %d     %d\nSwap:             0           0           0\nTotal:     15979704     %d     %d\n",
		9000000+r.IntN(999999), 1000000+r.IntN(999999), 4000000+r.IntN(999999), 5000000+r.IntN(999999), 9000000+r.IntN(999999), 1000000+r.IntN(999999)))
	task("Filesystem", "df -ha", "Filesystem      Size  Used Avail Use% Mounted on\n/dev/sda1        97G   31G   62G  34% /\ntmpfs           7.7G     0  7.7G   0% /dev/shm\n/dev/sdb1       493G  118G  350G  26% /opt/couchbase/var\n")
	var ps strings.Builder
	ps.WriteString("  PID  PPID %CPU %MEM    VSZ   RSS COMMAND\n")
	procs := []string{"beam.smp", "memcached", "projector", "indexer", "cbq-engine", "goxdcr", "gosecrets", "goport", "prometheus", "saslauthd-port", "sshd", "systemd-journald", "rsyslogd", "cron"}
	for i := range 240 {
		fmt.Fprintf(&ps, "%5d %5d %4.1f %4.1f %7d %6d %s\n", 1000+i*7, 1+r.IntN(1000), r.Float64()*20, r.Float64()*10, r.IntN(9000000), r.IntN(2000000), procs[r.IntN(len(procs))])
	}
	task("Process list snapshot", "export TERM=''; top -Hb -n1 || top -H n1", ps.String())
	var ns strings.Builder
	ns.WriteString("Active Internet connections (servers and established)\nProto Recv-Q Send-Q Local Address           Foreign Address         State       PID/Program name\n")
	for range 180 {
		fmt.Fprintf(&ns, "tcp        0      0 %s:%-5d     %s:%-5d     ESTABLISHED %d/%s\n", c.n.host, 11210+r.IntN(3), one(r, append([]string{"127.0.0.1"}, c.peers...)), 40000+r.IntN(25000), 1000+r.IntN(9000), procs[r.IntN(3)])
	}
	task("Network status", "netstat -anp", ns.String())
	task("Kernel log buffer", "dmesg -T", "[Thu Jul 21 09:12:01 2022] EXT4-fs (sdb1): mounted filesystem with ordered data mode. Opts: (null)\n")
	_, err := w.WriteString(bar)
	return err
}

// iniLog writes ini.log, cbcollect_info's copy of the configuration files.
func (c *cbCtx) iniLog(w *bufio.Writer) error {
	w.WriteString(bar + "couchbase ini files\ncat /opt/couchbase/etc/couchdb/default.ini /opt/couchbase/etc/couchdb/local.ini\n" + bar)
	_, err := w.WriteString(`[couchdb]
database_dir = /opt/couchbase/var/lib/couchbase/data
view_index_dir = /opt/couchbase/var/lib/couchbase/data
max_dbs_open = 10000
delayed_commits = true
uri_file = /opt/couchbase/var/lib/couchbase/couch.uri

[httpd]
port = 8092
bind_address = 0.0.0.0
ip4_bind_address = 0.0.0.0

[log]
file = /opt/couchbase/var/lib/couchbase/logs/couchdb.log
level = info

[set_views]
update_interval = 5000
update_min_changes = 5000
replica_update_min_changes = 5000

[compaction]
_default = [{db_fragmentation, "30%"}, {view_fragmentation, "30%"}]
`)
	return err
}
