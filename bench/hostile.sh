#!/usr/bin/env bash
# bench/hostile.sh runs the slow cases of the hostile suite, which
# `go test ./...` skips: the memory the worst inputs cost (a tar.gz of two
# 500 MB members of zeros within 512 MB; timelines someone else wrote, with
# a finding of 300 MB, a million findings, blocks that decode to 256 MiB or
# to 20 million empty records, within 256 MB), each command run as its own
# process and measured by the kernel; re-analyses killed at six points;
# 30,000 findings listed; and 200 incidents pushed to PostgreSQL while fleet
# queries run. It prints the table of attacks with peak memory and time.
#
# usage: FORENSICS_TEST_POSTGRES=postgres://… bench/hostile.sh
#
# It needs /usr/bin/time (Debian's time), the sqlite3 shell and a PostgreSQL
# server where the role may create databases; .ci/run provides all three.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${FORENSICS_TEST_POSTGRES:?set FORENSICS_TEST_POSTGRES to a postgres:// DSN}"
export FORENSICS_REQUIRE_POSTGRES=1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
FORENSICS_HOSTILE_SLOW=1 go test ./cmd/forensics -count=1 -v -timeout 60m \
	-run 'TestHostileMemory|TestHostileLoad|TestKilledReanalysisKeepsFindings|TestHostileTimelineManyFindings' >"$log" 2>&1 || status=$?
echo "| attack | command | outcome | peak RSS | time |"
echo "|---|---|---|--:|--:|"
sed -n 's/^ *hostile_[a-z]*_test.go:[0-9]*: \(| .* | .* | .* | .* | .* |\)$/\1/p' "$log"
echo
echo "| load | time |"
echo "|---|--:|"
sed -n 's/^ *hostile_load_test.go:[0-9]*: \(| [^|]* | [^|]* |\)$/\1/p' "$log"
if [ "$status" -ne 0 ]; then
	# A runtime error (fatal error, a signal) ends the test binary without
	# a test's failure line: the end of the log says what it was.
	grep -E -- '^(--- FAIL|FAIL|ok|panic|fatal error)|_test.go:[0-9]+: [^|]' "$log" | head -50
	echo "… the end of the test log:"
	tail -60 "$log"
	exit "$status"
fi
grep -E -- '^--- (PASS|SKIP)' "$log"
