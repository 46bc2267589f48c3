#!/usr/bin/env bash
# bench/datarules.sh measures a rule written as data against a Go rule of
# the same logic, on the same timeline of a generated bundle: the rule file
# bench/datarule/stream-storm.yaml (DCP streams opened by the hundred in a
# minute: a sliding-window count over memcached.stream_created, the busiest
# kind of a churning bundle) and its Go twin in bench/datarule/main.go.
# Both run through driver.Run on the store's Timeline, as analyze runs them;
# the script fails when they do not find the same.
#
# usage: bench/datarules.sh [--size SIZE] [--runs N] [--profile NAME]... [WORKDIR]
#
#   WORKDIR     where the bundles and timelines go (default $BENCH_DIR, else
#               bench/out; keep it out of git)
#   --size      uncompressed size of each bundle (default 1GiB)
#   --runs      runs of each rule; the table gives the median (default 5)
#   --profile   bench/gen's profile (default and dense unless given; repeatable)
set -euo pipefail

size=1GiB runs=5 profiles=()
work=${BENCH_DIR:-}
while (($#)); do
	case $1 in
	--size) size=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--profile) profiles+=("$2"); shift 2 ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "datarules.sh: unknown flag $1" >&2; exit 2 ;;
	*) work=$1; shift ;;
	esac
done
((${#profiles[@]})) || profiles=(default dense)
cd "$(dirname "$0")/.."
work=${work:-bench/out}
mkdir -p "$work"
go build -o "$work/forensics" ./cmd/forensics
go build -o "$work/datarule" ./bench/datarule

for profile in "${profiles[@]}"; do
	bundle=$work/datarules-$profile-$size
	db=$work/datarules-$profile-$size.db
	if [ ! -d "$bundle" ]; then
		go run ./bench/gen -out "$bundle" -size "$size" -profile "$profile" -crdb 0 -q
	fi
	if [ ! -f "$db" ]; then
		"$work/forensics" analyze -q --db "$db" --rules kv-stream-before-traffic "$bundle" >/dev/null
	fi
	events=$("$work/forensics" timeline query --db "$db" --kind memcached.stream_created --format raw | wc -l)
	echo
	echo "## $profile profile, $size: $events memcached.stream_created events"
	echo
	"$work/datarule" -db "$db" -runs "$runs"
done
