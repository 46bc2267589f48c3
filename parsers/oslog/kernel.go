package oslog

import (
	"bytes"

	"forensics"
)

var (
	killedProcess = []byte("Killed process ")
	oomKillColon  = []byte("oom-kill:")
	invokedOOM    = []byte(" invoked oom-killer:")
)

// kernelCandidate is the cheap test run on every kernel line before any
// parsing: the three templates all hold "oom" or "Killed process".
func kernelCandidate(msg []byte) bool {
	return bytes.Contains(msg, []byte("oom")) || bytes.Contains(msg, killedProcess)
}

// kernelEvent reads the OOM killer's lines from mm/oom_kill.c and reports
// whether msg was one; ev gets its kind and attributes.
//
// Killed (3.x–4.x): "Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB,
// file-rss:%lukB[, shmem-rss:%lukB]" after "Out of memory: Kill process %d
// (%s) score %u or sacrifice child"; 5.x+ (__oom_kill_process): "%s: Killed
// process %d (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB,
// shmem-rss:%lukB, UID:%u pgtables:%lukB oom_score_adj:%hd", where %s is
// "Out of memory" or "Memory cgroup out of memory".
//
// Constraint (4.19+, dump_oom_summary): "oom-kill:constraint=%s,nodemask=%*pbl,
// cpuset=…,mems_allowed=…,global_oom|oom_memcg=…,task_memcg=%s,task=%s,pid=%d,uid=%d".
//
// Invoked (dump_header): "%s invoked oom-killer: gfp_mask=%#x(%pGg), order=%d,
// oom_score_adj=%hd".
func kernelEvent(msg []byte, ev *forensics.Event) bool {
	if i := bytes.Index(msg, killedProcess); i >= 0 {
		r := msg[i+len(killedProcess):]
		pid, r := digits(r)
		if pid == nil || !bytes.HasPrefix(r, []byte(" (")) {
			return false
		}
		r = r[2:]
		j := bytes.Index(r, []byte(") "))
		if j < 0 {
			if !bytes.HasSuffix(r, []byte(")")) {
				return false
			}
			j = len(r) - 1
		}
		ev.Kind = OOMKill
		ev.Set(AttrPID, string(pid))
		ev.Set(AttrProcess, string(r[:j]))
		if i > 2 && msg[i-2] == ':' {
			ev.Set(AttrTrigger, string(bytes.TrimSpace(msg[:i-2])))
		}
		for _, f := range [...]struct {
			key  string
			attr forensics.AttrKey
		}{
			{"total-vm:", AttrTotalVMKB}, {"anon-rss:", AttrAnonRSSKB}, {"file-rss:", AttrFileRSSKB}, {"shmem-rss:", AttrShmemRSSKB},
		} {
			if k := bytes.Index(r, []byte(f.key)); k >= 0 {
				if v, rest := digits(r[k+len(f.key):]); v != nil && bytes.HasPrefix(rest, []byte("kB")) {
					ev.Set(f.attr, string(v))
				}
			}
		}
		return true
	}
	if i := bytes.Index(msg, oomKillColon); i >= 0 {
		fields := msg[i+len(oomKillColon):]
		var pid, task []byte
		for len(fields) > 0 {
			f := fields
			if k := bytes.IndexByte(fields, ','); k >= 0 {
				f, fields = fields[:k], fields[k+1:]
			} else {
				fields = nil
			}
			key, val, ok := bytes.Cut(f, []byte("="))
			if !ok {
				continue
			}
			switch string(key) {
			case "constraint":
				ev.Set(AttrConstraint, string(val))
			case "task_memcg":
				ev.Set(AttrTaskMemcg, string(val))
			case "oom_memcg":
				ev.Set(AttrOomMemcg, string(val))
			case "task":
				task = val
			case "pid":
				pid = val
			case "uid":
				ev.Set(AttrUID, string(val))
			}
		}
		if task == nil || pid == nil {
			return false
		}
		ev.Kind = OOMConstraint
		ev.Set(AttrProcess, string(task))
		ev.Set(AttrPID, string(pid))
		return true
	}
	if i := bytes.Index(msg, invokedOOM); i > 0 {
		name := msg[:i]
		if k := bytes.LastIndexByte(name, ' '); k >= 0 {
			name = name[k+1:]
		}
		ev.Kind = OOMInvoked
		ev.Set(AttrProcess, string(name))
		return true
	}
	return false
}

func digits(b []byte) ([]byte, []byte) {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == 0 {
		return nil, b
	}
	return b[:i], b[i:]
}
