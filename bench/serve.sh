#!/usr/bin/env bash
# bench/serve.sh measures the explorer (forensics serve) on bundles of
# bench/gen: the page's requests up to its first paint, searches, and the
# server's peak memory while a client pages through the whole incident as a
# browser scrolling it would (forward to the end, then back a stretch).
# Baselines run in the same script on the same timeline: the terminal's
# answer to the same question (forensics timeline query, a process per
# query, as a support engineer runs it).
#
# usage: bench/serve.sh [--size SIZE]... [--profile NAME]... [--runs N] [--seed N] [--scroll] [WORKDIR]
#
#   WORKDIR     where the bundles, timelines and results go (default
#               $BENCH_DIR, else bench/out; keep it out of git)
#   --size      uncompressed size of a bundle (default 1GiB; repeatable)
#   --profile   bench/gen's profile (default and dense unless given; repeatable)
#   --runs      runs of each measurement; the table gives the median (default 5)
#   --seed      bench/gen's seed (default 2)
#   --scroll    also page through the whole incident, forward then back, for
#               the server's peak memory (minutes per GiB: memory, not time,
#               is its measure, so it need not run alone)
#
# Run it alone on the machine: it times the server's answers.
set -euo pipefail

sizes=() profiles=() runs=5 seed=2 scroll=
work=${BENCH_DIR:-}
while (($#)); do
	case $1 in
	--size) sizes+=("$2"); shift 2 ;;
	--profile) profiles+=("$2"); shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--scroll) scroll=--scroll; shift ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "serve.sh: unknown flag $1" >&2; exit 2 ;;
	*) work=$1; shift ;;
	esac
done
((${#sizes[@]})) || sizes=(1GiB)
((${#profiles[@]})) || profiles=(default dense)
cd "$(dirname "$0")/.."
work=${work:-bench/out}
mkdir -p "$work"
work=$(cd "$work" && pwd)
command -v python3 >/dev/null || { echo "serve.sh: python3 is needed" >&2; exit 1; }

go build -o "$work/forensics" ./cmd/forensics
results=$work/serve-$(date -u +%Y%m%dT%H%M%SZ).md
{
	echo "# forensics serve, $(date -u +%F)"
	echo
	echo "$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr); bench/gen seed $seed; build $(git rev-parse --short HEAD)"
} | tee "$results"

for profile in "${profiles[@]}"; do
	for size in "${sizes[@]}"; do
		dir=$work/serve-$profile-$size
		[ -d "$dir/zips" ] || go run ./bench/gen -out "$dir/zips" -size "$size" -profile "$profile" -seed "$seed" -q
		[ -f "$dir/timeline.db" ] || "$work/forensics" analyze -q --db "$dir/timeline.db" "$dir/zips" >/dev/null
		python3 bench/serve.py --forensics "$work/forensics" --db "$dir/timeline.db" --runs "$runs" $scroll --title "$profile profile, $size" | tee -a "$results"
	done
done
echo
echo "results in $results"
