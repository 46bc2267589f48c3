package vreplerror

import "strings"

// validName reports whether s can be a Vitess keyspace, shard, workflow or table
// as it goes into a fix command: letters, digits, '_' and '-'. Names taken
// from the evidence are also quoted with the shell package; a name that
// fails this check gets no command at all. (The shell package gains Vitess
// name validators; this check is the stand-in until then.)
func validName(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("_-", c) >= 0) {
			return false
		}
	}
	return true
}
