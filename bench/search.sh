#!/usr/bin/env bash
# bench/search.sh measures forensics' search of a whole incident against
# ripgrep over the extracted files, on bundles of bench/gen at two
# profiles and two sizes, with the page cache warm for both. For each
# query it prints the median time of each and their ratio, checks that
# both give the same lines (rg over the files the timeline holds), and says
# how many blocks the index kept. It also measures what the index costs:
# ingest time and timeline size against a build without it (--base), and
# the index's share of the timeline.
#
# At the end it prints the ratios of every bundle in one table.
#
# usage: bench/search.sh [--size SIZE]... [--profile NAME]... [--runs N] [--seed N] [--base REV] [--queries-only] [WORKDIR]
#
#   WORKDIR     where the bundles, extracted files, timelines and results go
#               (default $BENCH_DIR, else bench/out; keep it out of git)
#   --size      uncompressed size of a bundle (default 256MiB and 1GiB; repeatable)
#   --profile   bench/gen's profile (default and dense unless given; repeatable)
#   --runs      runs of each query; the table gives the median (default 5)
#   --seed      bench/gen's seed (default 2)
#   --base      the build without the index, for ingest time and size
#               (default: the commit before the index of blocks)
#   --queries-only  time the queries only: no ingest timed, no base build
#               (a bundle's timeline is analyzed once if missing); the
#               machine is held a few minutes, not a quarter of an hour
#
# Run it alone on the machine: the ratios compare two programs' wall times.
set -euo pipefail

sizes=() profiles=() runs=5 seed=2 base= queries_only=
work=${BENCH_DIR:-}
while (($#)); do
	case $1 in
	--size) sizes+=("$2"); shift 2 ;;
	--profile) profiles+=("$2"); shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--base) base=$2; shift 2 ;;
	--queries-only) queries_only=1; shift ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "search.sh: unknown flag $1" >&2; exit 2 ;;
	*) work=$1; shift ;;
	esac
done
((${#sizes[@]})) || sizes=(256MiB 1GiB)
((${#profiles[@]})) || profiles=(default dense)
cd "$(dirname "$0")/.."
work=${work:-bench/out}
mkdir -p "$work"
work=$(cd "$work" && pwd)
for tool in rg unzip sqlite3 python3; do
	command -v $tool >/dev/null || { echo "search.sh: $tool is needed (apt-get install ripgrep unzip sqlite3 python3)" >&2; exit 1; }
done

# The build under test, and the build before the index of blocks.
go build -o "$work/forensics" ./cmd/forensics
if [ -z "$base" ]; then
	added=$(git log --diff-filter=A --format=%H -- store/block/grams.go | tail -1)
	base=$added^
fi
base=$(git rev-parse --short "$base")
if [ -z "$queries_only" ] && [ ! -x "$work/forensics-$base" ]; then
	rm -rf "$work/base-src"
	mkdir -p "$work/base-src"
	git archive "$base" | tar -x -C "$work/base-src"
	(cd "$work/base-src" && go build -o "$work/forensics-$base" ./cmd/forensics)
	rm -rf "$work/base-src"
fi

results=$work/search-$(date -u +%Y%m%dT%H%M%SZ).md
summary=${results%.md}.jsonl
{
	echo "# forensics search against ripgrep, $(date -u +%F)"
	echo
	echo "$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr); $(rg --version 2>/dev/null | head -1); bench/gen seed $seed; base build $base; load average $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$results"

for profile in "${profiles[@]}"; do
	for size in "${sizes[@]}"; do
		dir=$work/search-$profile-$size
		if [ ! -d "$dir/zips" ]; then
			go run ./bench/gen -out "$dir/zips" -size "$size" -profile "$profile" -seed "$seed" -q
		fi
		# The extracted files: each zip into a folder of its name, as a
		# support engineer unzips a bundle.
		if [ ! -d "$dir/extracted" ]; then
			for z in "$dir"/zips/*.zip; do
				mkdir -p "$dir/extracted/$(basename "$z" .zip)"
				unzip -q -o "$z" -d "$dir/extracted/$(basename "$z" .zip)"
			done
		fi
		if [ -n "$queries_only" ]; then
			[ -f "$dir/new.db" ] || "$work/forensics" analyze -q --db "$dir/new.db" "$dir/zips" >/dev/null
			python3 bench/search.py --dir "$dir" --base "$base" --runs "$runs" --title "$profile $size" --summary "$summary" --no-cost | tee -a "$results"
			echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$results"
			continue
		fi
		# Ingest with and without the index, the same bundle, taking turns,
		# three times each into a fresh timeline (search.py takes the median).
		for run in 1 2 3; do
			for build in "$base" new; do
				bin=$work/forensics-$build db=$dir/$build.db
				[ "$build" = new ] && bin=$work/forensics
				rm -f "$db" "$db"-* "$db".lock
				/usr/bin/time -f "%e %M" -o "$dir/$build.time.$run" "$bin" analyze -q --db "$db" "$dir/zips" >/dev/null
			done
		done
		python3 bench/search.py --dir "$dir" --base "$base" --runs "$runs" --title "$profile $size" --summary "$summary" | tee -a "$results"
		echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$results"
	done
done
# Every bundle's ratios in one table: rg / forensics (above 1: forensics
# is faster), forensics' seconds in brackets.
python3 - "$summary" <<'PY' | tee -a "$results"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
bundles = list(dict.fromkeys(r["bundle"] for r in rows))
queries = list(dict.fromkeys(r["query"] for r in rows))
cell = {(r["bundle"], r["query"]): r for r in rows}
print()
print("## rg / forensics, every bundle")
print()
print("| query | " + " | ".join(bundles) + " |")
print("|---|" + "--:|" * len(bundles))
for q in queries:
    cs = []
    for b in bundles:
        r = cell.get((b, q))
        cs.append(f"{r['rg'] / r['forensics']:.2f} ({r['forensics']:.3f} s)" + ("" if r["same"] else " DIFFERENT LINES") if r else "")
    print(f"| {q} | " + " | ".join(cs) + " |")
PY
echo
echo "results in $results"
